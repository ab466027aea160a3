import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where outgoing webhooks may connect. An admin chooses the URL, so without a check any tenant could
 * make the worker POST to (and time) the installation's own network: loopback services, the cloud
 * metadata endpoint, private hosts. Only public unicast addresses are allowed unless the operator opts
 * in (`ATENDE_WEBHOOK_ALLOW_PRIVATE_NETWORKS`). The check runs on the addresses a name resolves to at
 * every connection, and the connection is made to exactly those checked addresses (`lookup`), so a
 * name that changes its answer between registration and delivery (DNS rebinding) gains nothing.
 */

/** Why ipaddr.js's range names are refused, in the words of the delivery log and the 400. */
const RANGE_WORDS: Record<string, string> = {
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local (cloud metadata) address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a shared (CGNAT) address',
  private: 'a private address',
  uniqueLocal: 'a unique-local (private) address',
  reserved: 'a reserved address',
  deprecatedSiteLocal: 'a site-local (private) address',
};

/** IPv6 prefixes that carry an IPv4 address in their last 32 bits: judged by that IPv4 address. */
const EMBEDDING_IPV4: [ipaddr.IPv6, number][] = [
  ipaddr.IPv6.parseCIDR('::ffff:0:0/96'), // IPv4-mapped
  ipaddr.IPv6.parseCIDR('::/96'), // IPv4-compatible (deprecated, still routed by some stacks)
  ipaddr.IPv6.parseCIDR('::ffff:0:0:0/96'), // IPv4-translated (RFC 6145)
  ipaddr.IPv6.parseCIDR('64:ff9b::/96'), // NAT64 well-known prefix: public IPv4 on IPv6-only hosts
];

/**
 * What is wrong with connecting to this IP address (e.g. "a loopback address"), or null for a public
 * unicast address. Anything ipaddr.js does not call `unicast` is refused (private, loopback,
 * link-local, metadata, unique-local, CGNAT, multicast, broadcast, unspecified, reserved, 6to4 and
 * Teredo tunnels…); IPv6 forms that carry an IPv4 address are judged by that address.
 */
export function addressProblem(address: string): string | null {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.parse(address);
  } catch {
    return 'not an IP address';
  }
  if (ip.kind() === 'ipv6') {
    const v6 = ip as ipaddr.IPv6;
    const range = v6.range();
    if (range !== 'loopback' && range !== 'unspecified' && EMBEDDING_IPV4.some((c) => v6.match(c))) {
      const v4 = ipaddr.fromByteArray(v6.toByteArray().slice(12)).toString();
      const problem = addressProblem(v4);
      return problem === null ? null : `${problem} (${v4} inside IPv6)`;
    }
    return range === 'unicast' ? null : (RANGE_WORDS[range] ?? 'not a public address');
  }
  const range = ip.range();
  return range === 'unicast' ? null : (RANGE_WORDS[range] ?? 'not a public address');
}

/** Why a literal address is refused ("127.0.0.1 is a loopback address"), or null. */
function literalRefusal(address: string): string | null {
  const problem = addressProblem(address);
  return problem === null ? null : `${address} is ${problem}`;
}

/** Why a name is refused ("localhost resolves to 127.0.0.1, a loopback address"), or null. */
function nameRefusal(hostname: string, addresses: readonly LookupAddress[]): string | null {
  for (const a of addresses) {
    const problem = addressProblem(a.address);
    if (problem !== null) return `${hostname} resolves to ${a.address}, ${problem}`;
  }
  return null;
}

/** A destination the policy refuses: the delivery fails with this message, nothing is sent. */
export class RefusedDestinationError extends Error {
  readonly code = 'ATENDE_REFUSED_DESTINATION';
  constructor(reason: string) {
    super(`Refused: ${reason}; only public addresses are allowed`);
    this.name = 'RefusedDestinationError';
  }
}

/** Resolves a name to every address the system would use (getaddrinfo: /etc/hosts included). */
export type Resolve = (hostname: string) => Promise<LookupAddress[]>;

const systemResolve: Resolve = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** The host of a URL as a connection sees it: IPv6 literals without their brackets. */
export function urlHost(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/** `lookup` of net/http: the single-address and the `all` (Happy Eyeballs) forms. */
export type LookupFunction = (
  hostname: string,
  options: LookupOptions,
  callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
) => void;

interface CacheEntry {
  until: number;
  addresses: Promise<LookupAddress[]>;
}

export interface WebhookEgressOptions {
  /** Installations whose receivers are on their own network opt in; nothing is checked then. */
  allowPrivateNetworks: boolean;
  /** How long a name's checked addresses are reused (getaddrinfo gives no TTL). */
  cacheMs?: number;
  /** Longest wait for a name at registration; a name that does not answer in time is accepted. */
  registrationResolveMs?: number;
  resolve?: Resolve;
}

/** Most names kept: 20 subscriptions per account, so this covers many active accounts. */
const CACHE_ENTRIES = 2000;

/**
 * The egress policy of outgoing webhooks: the check at registration (`refusal`) and the resolver
 * every delivery connects through (`lookup`). Resolutions are cached for a few seconds per name so a
 * busy endpoint pays one DNS lookup per period, not per attempt; what is cached is the checked list,
 * so every connection still goes to an address that passed the check.
 */
export class WebhookEgress {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly cacheMs: number;
  private readonly registrationResolveMs: number;
  private readonly resolveName: Resolve;
  readonly allowPrivateNetworks: boolean;

  constructor(options: WebhookEgressOptions) {
    this.allowPrivateNetworks = options.allowPrivateNetworks;
    this.cacheMs = options.cacheMs ?? 30_000;
    this.registrationResolveMs = options.registrationResolveMs ?? 3_000;
    this.resolveName = options.resolve ?? systemResolve;
  }

  /**
   * Why this URL may not be registered, or null. A literal address is judged as is; a name by what it
   * resolves to now (any refused address refuses it). A name that does not resolve (yet), or not in
   * time, is accepted: every delivery checks again, so accepting it opens nothing.
   */
  async refusal(url: URL): Promise<string | null> {
    if (this.allowPrivateNetworks) return null;
    const host = urlHost(url);
    if (isIP(host)) return literalRefusal(host);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), this.registrationResolveMs);
    });
    try {
      const addresses = await Promise.race([this.resolveName(host), late]);
      return addresses === null ? null : nameRefusal(host, addresses);
    } catch {
      return null;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Throws RefusedDestinationError when a literal address is refused. Names are checked by `lookup`
   * when the connection is made (node does not call `lookup` for literals, hence this check).
   */
  checkLiteral(url: URL): void {
    if (this.allowPrivateNetworks) return;
    const host = urlHost(url);
    if (!isIP(host)) return;
    const why = literalRefusal(host);
    if (why !== null) throw new RefusedDestinationError(why);
  }

  /** The checked addresses of a name: every one must be allowed, else the name is refused whole. */
  async addresses(hostname: string): Promise<LookupAddress[]> {
    const now = Date.now();
    const hit = this.cache.get(hostname);
    if (hit && hit.until > now) return hit.addresses;
    const addresses = this.resolveName(hostname).then((list) => {
      if (list.length === 0)
        throw Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' });
      const why = nameRefusal(hostname, list);
      if (why !== null) throw new RefusedDestinationError(why);
      return list;
    });
    this.cache.delete(hostname);
    this.cache.set(hostname, { until: now + this.cacheMs, addresses });
    // A failed lookup is not kept: the next attempt asks again. A refusal is kept like an answer.
    addresses.catch((err: unknown) => {
      if (!(err instanceof RefusedDestinationError) && this.cache.get(hostname)?.addresses === addresses) {
        this.cache.delete(hostname);
      }
    });
    if (this.cache.size > CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
    return addresses;
  }

  /**
   * The `lookup` a delivery connects with: the checked addresses, in the form node asks for. Undefined
   * when private networks are allowed (node's own resolver then).
   */
  get lookup(): LookupFunction | undefined {
    if (this.allowPrivateNetworks) return undefined;
    return this.connectLookup;
  }

  private readonly connectLookup: LookupFunction = (hostname, options, callback) => {
    this.addresses(hostname).then(
      (list) => {
        const family = options.family;
        const wanted = family === 4 || family === 'IPv4' ? 4 : family === 6 || family === 'IPv6' ? 6 : 0;
        const fit = wanted === 0 ? list : list.filter((a) => a.family === wanted);
        if (fit.length === 0) {
          callback(
            Object.assign(new Error(`${hostname} has no IPv${wanted} address`), { code: 'ENOTFOUND' }),
            '',
          );
        } else if (options.all) callback(null, fit);
        else callback(null, fit[0]!.address, fit[0]!.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  };
}

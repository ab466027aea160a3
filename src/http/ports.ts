import { createServer } from 'node:net';
import type { Config } from '../config.js';

/** The settings that name a port this process listens on. */
export type PortVariable = 'PORT' | 'GATEWAY_PORT' | 'ATENDE_METRICS_PORT';

/** A port this process must listen on is taken: says which setting names it. */
export class PortInUseError extends Error {
  constructor(
    readonly variable: PortVariable,
    readonly port: number,
    readonly host: string,
  ) {
    super(
      `${variable} ${port} is already in use on ${host} (another Atende, or another program): ` +
        `stop it, or set ${variable} to a free port`,
    );
    this.name = 'PortInUseError';
  }
}

/**
 * The address a client on this machine reaches a server at that listens on `host`:`port`: a server on
 * every interface (`0.0.0.0`, `::`) through the loopback address, an IPv6 host in brackets.
 */
export function localUrl(host: string, port: number): string {
  const h = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `http://${h.includes(':') ? `[${h}]` : h}:${port}`;
}

/** `err` as a PortInUseError when it is a listen's EADDRINUSE; otherwise `err` itself. */
export function namePortError(err: unknown, variable: PortVariable, port: number, host: string): unknown {
  return (err as { code?: string } | null)?.code === 'EADDRINUSE'
    ? new PortInUseError(variable, port, host)
    : err;
}

/**
 * Checks, before anything starts, that the ports this process's roles listen on are free. Found
 * only when the API or the gateway listens, a busy port would come after the embedded PostgreSQL's
 * initialisation and migrations, and the answer would be a bare EADDRINUSE. (Something may still take
 * the port in between: the listens name the setting too.)
 */
export async function assertPortsFree(config: Config): Promise<void> {
  const wanted: [PortVariable, number][] = [];
  if (config.roles.includes('api')) wanted.push(['PORT', config.port]);
  if (config.roles.includes('gateway')) wanted.push(['GATEWAY_PORT', config.gatewayPort]);
  if (config.metrics.port !== null) wanted.push(['ATENDE_METRICS_PORT', config.metrics.port]);
  for (const [variable, port] of wanted) {
    if (port === 0) continue; // any free port
    await new Promise<void>((resolve, reject) => {
      const probe = createServer();
      probe.once('error', (err) => reject(namePortError(err, variable, port, config.host)));
      probe.listen({ host: config.host, port, exclusive: true }, () => probe.close(() => resolve()));
    });
  }
}

import { isIP } from 'node:net';
import type { FastifyRequest } from 'fastify';

/**
 * The client's IP for per-client limits: what a trusted proxy named (Fastify's `request.ip`, see
 * ATENDE_TRUST_PROXY) when it is an IP address, else the peer the connection came from. A proxy
 * passing on a client's `X-Forwarded-For: garbage` must not give that client a key of its choosing.
 */
export function clientIp(request: FastifyRequest): string {
  const named = request.ip;
  if (isIP(named) !== 0) return unmapped(named);
  return unmapped(request.socket.remoteAddress ?? 'unknown');
}

/** `::ffff:203.0.113.7` and `203.0.113.7` are one client. */
function unmapped(ip: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return m ? m[1]! : ip.toLowerCase();
}

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The benchmark's own HTTP servers (the fake Graph API, the webhook receiver): on 127.0.0.1, a free
 * port, keep-alive long enough that the server under test reuses its connections for a whole row.
 */
export async function listenLocal(server: Server): Promise<void> {
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
}

export function localUrl(server: Server): string {
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Closes at once, kept-alive connections included. */
export async function closeLocal(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

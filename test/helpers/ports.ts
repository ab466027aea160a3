import net from 'node:net';

function listenAnywhere(): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => resolve(srv));
  });
}

/**
 * `n` distinct TCP ports free on 127.0.0.1 right now (the OS picks them). Every listener stays open
 * until all are picked: closing one before asking for the next lets the OS hand the same port twice.
 */
export async function freePorts(n: number): Promise<number[]> {
  const servers: net.Server[] = [];
  try {
    for (let i = 0; i < n; i++) servers.push(await listenAnywhere());
    return servers.map((s) => (s.address() as net.AddressInfo).port);
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
}

/** A TCP port free on 127.0.0.1 right now (the OS picks it). */
export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port as number;
}

import net from 'node:net';

/**
 * A TCP proxy the test controls, standing in for a load balancer in front of gateway nodes: new
 * connections go to the current target; `dropAll` cuts every open connection at once, as a network
 * failure would, and `setTarget` sends the next ones to another node.
 */
export interface Proxy {
  url: string;
  setTarget(url: string): void;
  dropAll(): void;
  /**
   * Cuts every open connection and, until `resume()`, accepts new ones without ever answering: a
   * server that has vanished from the network (no refusal, no reset), as in a failover or a cut link.
   */
  stall(): void;
  resume(): void;
  close(): Promise<void>;
}

export async function startProxy(target: string): Promise<Proxy> {
  let upstream = new URL(target);
  let stalled = false;
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    open.add(client);
    if (stalled) {
      client.on('error', () => undefined);
      client.on('close', () => open.delete(client));
      return;
    }
    const up = net.connect(Number(upstream.port), upstream.hostname);
    open.add(up);
    const end = () => {
      client.destroy();
      up.destroy();
      open.delete(client);
      open.delete(up);
    };
    for (const s of [client, up]) {
      s.on('error', end);
      s.on('close', end);
    }
    client.pipe(up);
    up.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    setTarget: (url) => {
      upstream = new URL(url);
    },
    dropAll: () => {
      for (const s of open) s.destroy();
      open.clear();
    },
    stall: () => {
      stalled = true;
      for (const s of open) s.destroy();
      open.clear();
    },
    resume: () => {
      stalled = false;
      for (const s of open) s.destroy();
      open.clear();
    },
    close: async () => {
      for (const s of open) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

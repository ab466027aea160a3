import net from 'node:net';

/**
 * A TCP proxy the test controls, standing in for a load balancer in front of gateway nodes, or for the
 * network between a node and its database: new connections go to the current target; `dropAll` cuts
 * every open connection at once, as a network failure would, `setTarget` sends the next ones to another
 * node, and `refuse(true)` refuses new connections until `refuse(false)` (an outage).
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
  /** While on, new connections are closed at once: a server that refuses connections. */
  refuse(on: boolean): void;
  close(): Promise<void>;
}

export async function startProxy(target: string): Promise<Proxy> {
  let upstream = new URL(target);
  let stalled = false;
  let refusing = false;
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (refusing) return void client.destroy();
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
    refuse: (on) => {
      refusing = on;
    },
    close: async () => {
      for (const s of open) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

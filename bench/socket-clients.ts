/**
 * A child process of `npm run bench` holding many gateway connections (real socket.io-client,
 * websocket transport), so the clients' CPU is neither the server's nor the benchmark's own event
 * loop. Driven over the IPC channel: `connect` opens and subscribes the sockets, `await` reports when
 * every socket here has received a chat's event, `close` disconnects and exits. Times are
 * `performance.timeOrigin + performance.now()`, comparable between processes of one machine.
 */
import { performance } from 'node:perf_hooks';
import { io, type Socket } from 'socket.io-client';

export interface SocketSpec {
  token: string;
  userId: string;
  teams: string[];
}

export type ClientCommand =
  | { op: 'connect'; url: string; specs: SocketSpec[]; concurrency: number; event: string }
  | { op: 'await'; chatId: string; timeoutMs: number }
  | { op: 'close' };

export type ClientReply =
  | { op: 'connected'; ok: number; failed: number; errors: string[]; ms: number }
  | { op: 'arrived'; chatId: string; count: number; last: number | null; first: number | null }
  | { op: 'closed' };

const now = () => performance.timeOrigin + performance.now();
const sockets: Socket[] = [];
/** Per chat id: how many sockets here received its event, and when the first and the last did. */
const arrivals = new Map<string, { count: number; first: number; last: number }>();
const waiters = new Map<string, () => void>();

function send(reply: ClientReply): void {
  process.send?.(reply);
}

function chatIdOf(envelope: unknown): string | null {
  const data = (envelope as { data?: { chat?: { id?: unknown } } } | null)?.data;
  return typeof data?.chat?.id === 'string' ? data.chat.id : null;
}

async function open(url: string, spec: SocketSpec, event: string): Promise<void> {
  const socket = io(url, {
    path: '/socket.io',
    transports: ['websocket'],
    forceNew: true,
    reconnection: false,
    timeout: 60_000,
    auth: { token: spec.token },
  });
  sockets.push(socket);
  socket.on(event, (envelope: unknown) => {
    const at = now();
    const chatId = chatIdOf(envelope);
    if (!chatId) return;
    const seen = arrivals.get(chatId);
    if (seen) {
      seen.count++;
      seen.last = at;
    } else arrivals.set(chatId, { count: 1, first: at, last: at });
    waiters.get(chatId)?.();
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('session.ready', () => resolve());
    socket.once('connect_error', (err) => reject(err));
  });
  const ack = (name: string, arg: unknown) =>
    socket.timeout(60_000).emitWithAck(name, arg) as Promise<{ ok?: boolean; error?: string }>;
  const logged = await ack('user_logged_in', spec.userId);
  if (!logged.ok) throw new Error(`user_logged_in refused: ${logged.error}`);
  if (spec.teams.length > 0) {
    const joined = await ack('user_join_team', spec.teams);
    if (!joined.ok) throw new Error(`user_join_team refused: ${joined.error}`);
  }
}

async function connectAll(cmd: Extract<ClientCommand, { op: 'connect' }>): Promise<void> {
  const started = now();
  let next = 0;
  let ok = 0;
  const errors: string[] = [];
  const lane = async () => {
    while (next < cmd.specs.length) {
      const spec = cmd.specs[next++]!;
      try {
        await open(cmd.url, spec, cmd.event);
        ok++;
      } catch (err) {
        errors.push(err instanceof Error ? err.message : String(err));
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, cmd.concurrency) }, lane));
  send({ op: 'connected', ok, failed: errors.length, errors: errors.slice(0, 5), ms: now() - started });
}

/** Resolves when every connected socket here has the chat's event, or at the timeout. */
async function awaitChat(chatId: string, timeoutMs: number): Promise<void> {
  const expected = sockets.filter((s) => s.connected).length;
  const done = () => (arrivals.get(chatId)?.count ?? 0) >= expected;
  if (!done()) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      waiters.set(chatId, () => {
        if (done()) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
  }
  waiters.delete(chatId);
  const seen = arrivals.get(chatId);
  arrivals.delete(chatId);
  send({
    op: 'arrived',
    chatId,
    count: seen?.count ?? 0,
    first: seen?.first ?? null,
    last: seen?.last ?? null,
  });
}

process.on('message', (cmd: ClientCommand) => {
  switch (cmd.op) {
    case 'connect':
      void connectAll(cmd);
      return;
    case 'await':
      void awaitChat(cmd.chatId, cmd.timeoutMs);
      return;
    case 'close':
      for (const s of sockets) s.disconnect();
      send({ op: 'closed' });
      setTimeout(() => process.exit(0), 100);
      return;
  }
});
// The benchmark going away (killed, crashed) takes its clients with it.
process.on('disconnect', () => process.exit(0));

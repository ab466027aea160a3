import assert from 'node:assert/strict';
import { request as httpGet } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { io, type Socket } from 'socket.io-client';
import { TokenService } from '../../src/lib/jwt.js';
import { startTestApp, TEST_JWT_SECRET, type TestApp } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { connect, type GatewayClient } from '../helpers/gateway.js';

// The gateway withdraws access it gave: a cancelled user's connections end, a user taken out of a
// team or given a smaller role leaves the rooms they may no longer see, a session is recovered only
// for a user who may still have it, a connection ends with its token; and only the console's own
// origin (or a client outside a browser) may open a connection.

const REDIS_URL = process.env.REDIS_URL;
let phoneSeq = 0;
const phone = () => `5511986${String(++phoneSeq).padStart(6, '0')}`;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
let userSeq = 0;
/**
 * Each test waits for what the server does (a disconnection, a refusal): without the behaviour it
 * would wait forever, so this turns that into a failure. No test depends on how fast anything is.
 */
const T = { timeout: 60_000 };

/** A new user of the fixture's account, with a token. */
async function makeUser(f: Fixture, role: 'agent' | 'supervisor', teamIndex?: number) {
  const email = `sec-gw-${Date.now().toString(36)}-${++userSeq}@example.com`;
  const user = await f.services.users.create(f.admin, {
    name: 'Pessoa',
    email,
    password: 'user-password',
    role,
  });
  if (teamIndex !== undefined) {
    // The team's seeded agent and this user (users of earlier tests may be cancelled by now).
    const seeded = f.agents[teamIndex] ? [f.agents[teamIndex].id] : [];
    await f.services.teams.update(f.admin, f.teams[teamIndex]!.id, { members: [...seeded, user.id] });
  }
  const token = (await f.services.auth.login(email, 'user-password')).accessToken;
  return { id: user.id, email, token };
}

/** Resolves with the reason of the socket's next disconnection. */
const disconnection = (socket: Socket) =>
  new Promise<string>((resolve) => socket.once('disconnect', (reason) => resolve(reason)));

describe('gateway withdraws access', () => {
  let t: TestApp;
  let f: Fixture;
  const clients: GatewayClient[] = [];
  const open = async (...args: Parameters<typeof connect>) => {
    const c = await connect(...args);
    clients.push(c);
    return c;
  };
  const settled = () => t.server.gateway!.tail.settled();
  const patch = async (path: string, body: unknown) => {
    const res = await t.request('PATCH', path, { headers: bearer(f.adminToken), body });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  };
  /** Drops the transport and waits until the server has seen it (the session is kept then). */
  const dropTransport = async (c: GatewayClient) => {
    const onServer = t.server.gateway!.io.of('/').sockets.get(c.socket.id!)!;
    const gone = new Promise((resolve) => onServer.once('disconnect', resolve));
    c.socket.io.engine.close();
    assert.equal(await gone, 'transport close');
  };

  before(async () => {
    t = await startTestApp();
    f = await seedAccount(t.server.services);
  });
  after(async () => {
    for (const c of clients) c.close();
    await t?.close();
  });

  it("disconnects a cancelled user's open connection: nothing reaches it after", T, async () => {
    const agent = await makeUser(f, 'agent', 0);
    const c = await open(t.gatewayUrl!, { token: agent.token });
    const watcher = await open(t.gatewayUrl!, { token: f.adminToken });
    assert.deepEqual(await c.ack('user_join_team', [f.teams[0]!.id]), {
      ok: true,
      joined: [f.teams[0]!.id],
      refused: [],
    });
    await watcher.ack('user_join_team', [f.teams[0]!.id]);

    const gone = disconnection(c.socket);
    await patch(`/api/users/${agent.id}`, { status: 'cancelled' });
    assert.equal(await gone, 'io server disconnect');
    const chatId = await f.inbound(0, phone());
    // The event was sent (another member of the team has it), not to the cancelled user.
    await watcher.next('chat.new', (e) => (e.data as { chat: { id: string } }).chat.id === chatId);
    await settled();
    assert.deepEqual(c.events(), []);
  });

  it("takes an agent removed from a team out of the team's room", T, async () => {
    const agent = await makeUser(f, 'agent', 1);
    const c = await open(t.gatewayUrl!, { token: agent.token });
    const watcher = await open(t.gatewayUrl!, { token: f.adminToken });
    assert.deepEqual((await c.ack('user_join_team', [f.teams[1]!.id])).joined, [f.teams[1]!.id]);
    await watcher.ack('user_join_team', [f.teams[1]!.id]);
    const before = await f.inbound(1, phone());
    await c.next('chat.new', (e) => (e.data as { chat: { id: string } }).chat.id === before);

    const team = await f.services.teams.get(f.admin, f.teams[1]!.id);
    await patch(`/api/teams/${team.id}`, { members: team.members.filter((m) => m !== agent.id) });
    const chatId = await f.inbound(1, phone());
    await watcher.next('chat.new', (e) => (e.data as { chat: { id: string } }).chat.id === chatId);
    await settled();
    await c.barrier();
    assert.deepEqual(
      c.events().map((e) => (e.data as { chat: { id: string } }).chat.id),
      [before],
    );
    // Still connected, still in its own rooms, and may not come back in.
    assert.equal(c.socket.connected, true);
    assert.deepEqual(await c.ack('user_join_team', [f.teams[1]!.id]), {
      ok: true,
      joined: [],
      refused: [f.teams[1]!.id],
    });
  });

  it(
    "closes a demoted supervisor's connections (a new role ends the session); a new login sees only their own team",
    T,
    async () => {
      const sup = await makeUser(f, 'supervisor', 0);
      const theirs = await f.inbound(1, phone());
      const c = await open(t.gatewayUrl!, { token: sup.token, reconnection: false });
      const watcher = await open(t.gatewayUrl!, { token: f.adminToken });
      const teams = [f.teams[0]!.id, f.teams[1]!.id];
      assert.deepEqual((await c.ack('user_join_team', teams)).joined, teams);
      assert.deepEqual((await c.ack('user_start_watch_chats', [theirs])).watching, [theirs]);
      await watcher.ack('user_join_team', teams);

      const closed = disconnection(c.socket);
      await patch(`/api/users/${sup.id}`, { role: 'agent' });
      assert.equal(await closed, 'io server disconnect');
      const before = c.received.length;

      // Signed in again, as an agent: only their own team.
      const token = (
        await t.request('POST', '/auth/login', { body: { email: sup.email, password: 'user-password' } })
      ).json.accessToken as string;
      const again = await open(t.gatewayUrl!, { token });
      assert.deepEqual((await again.ack('user_join_team', teams)).joined, [teams[0]]);
      const own = await f.inbound(0, phone());
      const other = await f.inbound(1, phone());
      const otherChat = await t.request('POST', `/api/chats/${theirs}/capture`, {
        headers: bearer(f.adminToken),
      });
      assert.equal(otherChat.status, 200);
      await watcher.next('chat.capture', (e) => (e.data as { chat: { id: string } }).chat.id === theirs);
      await watcher.next('chat.new', (e) => (e.data as { chat: { id: string } }).chat.id === other);
      await settled();
      await again.barrier();
      assert.deepEqual(
        again.events().map((e) => [e.event, (e.data as { chat: { id: string } }).chat.id]),
        [['chat.new', own]],
      );
      assert.equal(c.received.length, before);
    },
  );

  it(
    'refuses to recover the session of a user cancelled meanwhile: no missed event reaches it',
    T,
    async () => {
      const agent = await makeUser(f, 'agent', 0);
      const c = await open(t.gatewayUrl!, { token: agent.token, reconnection: false });
      await c.ack('user_join_team', [f.teams[0]!.id]);
      await dropTransport(c);
      const dropped = c.received.length;

      await patch(`/api/users/${agent.id}`, { status: 'cancelled' });
      const chatId = await f.inbound(0, phone());
      await settled();
      assert.ok(chatId);

      const refused = new Promise<Error>((resolve, reject) => {
        c.socket.once('connect', () => reject(new Error('the session was recovered')));
        c.socket.once('connect_error', resolve);
      });
      c.socket.connect();
      assert.equal((await refused).message, 'unauthorized');
      assert.deepEqual(c.received.slice(dropped), []);
    },
  );

  it(
    'does not recover a session with a room its user lost meanwhile; the client starts afresh',
    T,
    async () => {
      const agent = await makeUser(f, 'agent', 1);
      const c = await open(t.gatewayUrl!, { token: agent.token, reconnection: false });
      await c.ack('user_join_team', [f.teams[1]!.id]);
      await dropTransport(c);
      const dropped = c.received.length;

      const team = await f.services.teams.get(f.admin, f.teams[1]!.id);
      await patch(`/api/teams/${team.id}`, { members: team.members.filter((m) => m !== agent.id) });
      await f.inbound(1, phone());
      await settled();

      const back = new Promise((resolve) => c.socket.once('connect', () => resolve(undefined)));
      c.socket.connect();
      await back;
      assert.equal(c.socket.recovered, false);
      const ready = await c.next('session.ready');
      assert.equal(ready.recovered, false);
      await c.barrier();
      assert.deepEqual(
        c.received.slice(dropped).map((r) => r.event),
        ['session.ready'],
      );
    },
  );

  it('still recovers the session of a user who kept their access', T, async () => {
    const agent = await makeUser(f, 'agent', 0);
    const c = await open(t.gatewayUrl!, { token: agent.token, reconnection: false });
    await c.ack('user_join_team', [f.teams[0]!.id]);
    await dropTransport(c);
    const chatId = await f.inbound(0, phone());
    await settled();
    const back = new Promise((resolve) => c.socket.once('connect', () => resolve(undefined)));
    c.socket.connect();
    await back;
    assert.equal(c.socket.recovered, true);
    const missed = await c.next('chat.new');
    assert.equal((missed.data as { chat: { id: string } }).chat.id, chatId);
  });

  it('refuses to recover a session whose handshake now carries another user’s token', T, async () => {
    const agent = await makeUser(f, 'agent', 0);
    const c = await open(t.gatewayUrl!, { token: agent.token, reconnection: false });
    await dropTransport(c);
    (c.socket.auth as Record<string, unknown>).token = f.agents[0]!.token;
    const refused = new Promise<Error>((resolve, reject) => {
      c.socket.once('connect', () => reject(new Error('the session was recovered')));
      c.socket.once('connect_error', resolve);
    });
    c.socket.connect();
    assert.equal((await refused).message, 'unauthorized');
  });

  it('disconnects a connection when its token expires', T, async () => {
    const agent = await makeUser(f, 'agent', 0);
    // A token that expires within two seconds (JWT expiry is in whole seconds).
    const token = await new TokenService(TEST_JWT_SECRET, 2).sign({
      userId: agent.id,
      accountId: f.accountId,
      version: 0,
    });
    const expiresAt = (
      JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { exp: number }
    ).exp;
    const c = await open(t.gatewayUrl!, { token });
    const gone = disconnection(c.socket);
    assert.equal(await gone, 'io server disconnect');
    assert.ok(Date.now() >= expiresAt * 1000, 'not before the token expired');
  });
});

/** A polling handshake with these headers: the status and the CORS header answered. */
function pollingHandshake(base: string, headers: Record<string, string>) {
  return new Promise<{ status: number; allowOrigin: string | undefined }>((resolve, reject) => {
    const req = httpGet(`${base}/socket.io/?EIO=4&transport=polling`, { headers }, (res) => {
      res.resume();
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          allowOrigin: res.headers['access-control-allow-origin'] as string | undefined,
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

/** A WebSocket connection with these headers: its identity, or the refusal. */
async function websocket(base: string, headers: Record<string, string>) {
  const socket = io(base, {
    path: '/socket.io',
    transports: ['websocket'],
    forceNew: true,
    reconnection: false,
    extraHeaders: headers,
  });
  try {
    return await new Promise<{ userId: string | null } | { error: string }>((resolve) => {
      socket.once('session.ready', (ready: { userId: string | null }) => resolve({ userId: ready.userId }));
      socket.once('connect_error', (err) => resolve({ error: err.message }));
    });
  } finally {
    socket.disconnect();
  }
}

describe('gateway origins', () => {
  let t: TestApp;
  let f: Fixture;
  let own: string;

  before(async () => {
    t = await startTestApp();
    f = await seedAccount(t.server.services, { agents: 0 });
    // The console is served by the API; the gateway listens on its own port of the same host.
    own = new URL(t.url).origin;
  });
  after(async () => {
    await t?.close();
  });

  it('refuses a foreign origin on polling and on WebSocket, even with the cookie', T, async () => {
    const cookie = `access_token=${f.adminToken}`;
    for (const origin of ['https://evil.example', 'http://127.0.0.1:1', 'null']) {
      assert.deepEqual(await pollingHandshake(t.gatewayUrl!, { origin, cookie }), {
        status: 403,
        allowOrigin: undefined,
      });
      const ws = await websocket(t.gatewayUrl!, { origin, cookie });
      assert.ok('error' in ws, `${origin}: ${JSON.stringify(ws)}`);
    }
  });

  it("accepts the console's own origin, and clients that send no origin", T, async () => {
    const cookie = `access_token=${f.adminToken}`;
    const polled = await pollingHandshake(t.gatewayUrl!, { origin: own, cookie });
    assert.deepEqual(polled, { status: 200, allowOrigin: own });
    // The gateway's own origin too (one address in front of both).
    const gatewayOrigin = new URL(t.gatewayUrl!).origin;
    assert.equal((await pollingHandshake(t.gatewayUrl!, { origin: gatewayOrigin })).status, 200);
    assert.equal((await pollingHandshake(t.gatewayUrl!, {})).status, 200);
    assert.deepEqual(await websocket(t.gatewayUrl!, { origin: own, cookie }), { userId: f.admin.userId });
    assert.deepEqual(await websocket(t.gatewayUrl!, { cookie }), { userId: f.admin.userId });
  });

  it(
    'accepts the origin of ATENDE_PUBLIC_GATEWAY_URL, the console’s host name behind a proxy',
    T,
    async () => {
      const proxied = await startTestApp({
        databaseUrl: t.databaseUrl,
        env: { ATENDE_PUBLIC_GATEWAY_URL: 'https://atende.example.com' },
      });
      try {
        const ok = await pollingHandshake(proxied.gatewayUrl!, { origin: 'https://atende.example.com' });
        assert.deepEqual(ok, { status: 200, allowOrigin: 'https://atende.example.com' });
        const other = await pollingHandshake(proxied.gatewayUrl!, { origin: 'https://evil.example.com' });
        assert.equal(other.status, 403);
      } finally {
        await proxied.close();
      }
    },
  );

  it('accepts exactly the origins of ATENDE_GATEWAY_ORIGINS when set', T, async () => {
    const listed = await startTestApp({
      databaseUrl: t.databaseUrl,
      env: { ATENDE_GATEWAY_ORIGINS: 'https://console.example.com' },
    });
    try {
      const cookie = `access_token=${f.adminToken}`;
      const ok = await pollingHandshake(listed.gatewayUrl!, { origin: 'https://console.example.com' });
      assert.deepEqual(ok, { status: 200, allowOrigin: 'https://console.example.com' });
      assert.equal((await pollingHandshake(listed.gatewayUrl!, { origin: own })).status, 403);
      assert.ok('error' in (await websocket(listed.gatewayUrl!, { origin: own, cookie })));
      assert.deepEqual(
        await websocket(listed.gatewayUrl!, { origin: 'https://console.example.com', cookie }),
        {
          userId: f.admin.userId,
        },
      );
    } finally {
      await listed.close();
    }
  });
});

describe('gateway withdraws access on several nodes', { skip: REDIS_URL ? false : 'needs REDIS_URL' }, () => {
  let a: TestApp;
  let b: TestApp;
  let f: Fixture;
  const clients: GatewayClient[] = [];

  before(async () => {
    a = await startTestApp({ env: { REDIS_URL: REDIS_URL! } });
    b = await startTestApp({ env: { REDIS_URL: REDIS_URL! }, databaseUrl: a.databaseUrl });
    f = await seedAccount(a.server.services);
  });
  after(async () => {
    for (const c of clients) c.close();
    await b?.close();
    await a?.close();
  });

  it('a user cancelled through one node loses their connections on every node', T, async () => {
    const agent = await makeUser(f, 'agent', 0);
    const onA = await connect(a.gatewayUrl!, { token: agent.token });
    const onB = await connect(b.gatewayUrl!, { token: agent.token });
    clients.push(onA, onB);
    const gone = [disconnection(onA.socket), disconnection(onB.socket)];
    const res = await a.request('PATCH', `/api/users/${agent.id}`, {
      headers: bearer(f.adminToken),
      body: { status: 'cancelled' },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(await Promise.all(gone), ['io server disconnect', 'io server disconnect']);
  });

  it('an agent removed from a team through one node leaves its room on every node', T, async () => {
    const agent = await makeUser(f, 'agent', 1);
    const onB = await connect(b.gatewayUrl!, { token: agent.token });
    // A member who stays, on the same node: once it has the next chat.new, node B has sent it.
    const watcher = await connect(b.gatewayUrl!, { token: f.adminToken });
    clients.push(onB, watcher);
    await onB.ack('user_join_team', [f.teams[1]!.id]);
    await watcher.ack('user_join_team', [f.teams[1]!.id]);
    const team = await f.services.teams.get(f.admin, f.teams[1]!.id);
    const res = await a.request('PATCH', `/api/teams/${team.id}`, {
      headers: bearer(f.adminToken),
      body: { members: team.members.filter((m) => m !== agent.id) },
    });
    assert.equal(res.status, 200);
    const chatId = await f.inbound(1, phone());
    await watcher.next('chat.new', (e) => (e.data as { chat: { id: string } }).chat.id === chatId);
    await onB.barrier();
    assert.deepEqual(onB.events(), []);
  });
});

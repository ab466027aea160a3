import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../helpers/ports.js';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { startCore, type Core } from '../../src/server.js';
import { startTestApp, TEST_JWT_SECRET, type TestApp } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/db.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { connect, type GatewayClient } from '../helpers/gateway.js';
import { startBuiltServer, type Child } from '../helpers/processes.js';

// Live events are sent by the gateway nodes tailing the event log, not by the process that wrote
// them: an event committed by a node without the gateway (with or without Redis), by a writer that
// never sends, or by a node killed right after commit reaches the connected clients.

const REDIS_URL = process.env.REDIS_URL;
let phoneSeq = 0;
const phone = () => `5511986${String(++phoneSeq).padStart(6, '0')}`;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Waits for a state that has no event of its own, checking it every few ms. */
async function until(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The chat.new a client got for `chatId`; fails the test when it has not come within 15 s. */
async function chatNew(c: GatewayClient, chatId: string): Promise<Record<string, unknown>> {
  let timer: NodeJS.Timeout | undefined;
  const lost = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`chat.new of ${chatId} never arrived`)), 15_000);
  });
  try {
    return await Promise.race([
      c.next('chat.new', (e) => (e.data as { chat: { id: string } }).chat.id === chatId),
      lost,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** The log events a client received, each seq once (delivery is at least once). */
const bySeq = (c: GatewayClient) => {
  const seen = new Map<number, Record<string, unknown>>();
  for (const e of c.events()) seen.set(e.seq as number, e);
  return [...seen.values()].sort((x, y) => (x.seq as number) - (y.seq as number));
};

/** The core of a process (database, services) without any role: it writes events, never sends them. */
async function startWriter(databaseUrl: string, env: Record<string, string> = {}): Promise<Core> {
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    ATENDE_ROLES: 'api',
    LOG_LEVEL: 'silent',
    ATENDE_JWT_SECRET: TEST_JWT_SECRET,
    ...env,
  });
  return startCore(config, pino({ level: 'silent' }));
}

describe('event tail without Redis', () => {
  let gw: TestApp; // every role, no Redis
  let api: TestApp; // api and worker only, no Redis
  let f: Fixture;
  const clients: GatewayClient[] = [];

  before(async () => {
    gw = await startTestApp();
    api = await startTestApp({ env: { ATENDE_ROLES: 'api,worker' }, databaseUrl: gw.databaseUrl });
    assert.equal(api.gatewayUrl, null);
    f = await seedAccount(gw.server.services);
  });
  after(async () => {
    for (const c of clients) c.close();
    await api?.close();
    await gw?.close();
  });

  const open = async (token: string) => {
    const c = await connect(gw.gatewayUrl!, { token });
    clients.push(c);
    return c;
  };

  it('an event written by an API-only node reaches a client of the gateway node', async () => {
    const c = await open(f.agents[0]!.token);
    await c.ack('user_join_team', [f.teams[0]!.id]);
    const res = await api.request('POST', `/api/sandbox/channels/${f.channels[0]!.id}/inbound`, {
      headers: bearer(f.adminToken),
      body: { from: phone(), text: 'Oi' },
    });
    assert.equal(res.status, 201);
    const got = await chatNew(c, String(res.json.chatId));
    const log = await api.request('GET', `/api/events?after=${(got.seq as number) - 1}`, {
      headers: bearer(f.agents[0]!.token),
    });
    assert.deepEqual(got, (log.json.events as unknown[])[0]);
  });

  it('a notification lost with the listening connection is caught up, and the node keeps running', async () => {
    const c = await open(f.agents[0]!.token);
    await c.ack('user_join_team', [f.teams[0]!.id]);
    const admin = new pg.Client({ connectionString: gw.databaseUrl });
    await admin.connect();
    try {
      // The tail's listening connection is terminated; an event is committed before it is back.
      const { rows } = await admin.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'atende-event-tail' AND query = 'LISTEN atende_events'`,
      );
      assert.equal(rows.length, 1);
      await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      const chatId = await f.inbound(0, phone(), 'sem aviso');
      await chatNew(c, chatId);
      // A new listening connection replaced it.
      await until(async () => {
        const again = await admin.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'atende-event-tail' AND query = 'LISTEN atende_events'`,
        );
        return again.rows.length === 1 && again.rows[0]!.pid !== rows[0]!.pid;
      }, 'the tail to listen again');
      const next = await f.inbound(0, phone(), 'de novo');
      await chatNew(c, next);
    } finally {
      await admin.end();
    }
    const health = await gw.request('GET', '/readyz');
    assert.equal(health.status, 200);
  });
});

describe('event tail on several gateway nodes', { skip: REDIS_URL ? false : 'needs REDIS_URL' }, () => {
  let databaseUrl: string;
  let drop: () => Promise<void>;
  let leader: Child | null = null; // a built server, every role: started first, so it tails
  let b: TestApp; // every role, in this process
  let writer: Core; // no role at all: never sends what it writes
  let f: Fixture;
  const clients: GatewayClient[] = [];

  before(async () => {
    ({ url: databaseUrl, drop } = await createTestDatabase());
    leader = (
      await startBuiltServer({
        DATABASE_URL: databaseUrl,
        REDIS_URL: REDIS_URL!,
        ATENDE_JWT_SECRET: TEST_JWT_SECRET,
        LOG_LEVEL: 'info',
      })
    ).child;
    b = await startTestApp({ env: { REDIS_URL: REDIS_URL! }, databaseUrl });
    writer = await startWriter(databaseUrl, { REDIS_URL: REDIS_URL! });
    f = await seedAccount(b.server.services);
  });
  after(async () => {
    for (const c of clients) c.close();
    leader?.proc.kill('SIGKILL');
    await leader?.exited;
    await writer?.close();
    await b?.close();
    await drop?.();
  });

  it('events written by a process that never sends reach clients, and survive the tailing node being killed', async () => {
    // The child leads: this node only delivers what comes through Redis.
    assert.equal(b.server.gateway!.tail.state, 'off');
    const c = await connect(b.gatewayUrl!, { token: f.agents[0]!.token });
    clients.push(c);
    await c.ack('user_join_team', [f.teams[0]!.id]);
    const fw = await seedAccountView(writer, f);

    const first = await fw.inbound(0, phone(), 'antes');
    await chatNew(c, first);

    // Committed by the writer, then the tailing node dies at once, perhaps before sending it.
    const around = await fw.inbound(0, phone(), 'na hora');
    leader!.proc.kill('SIGKILL');
    await leader!.exited;
    leader = null;
    const afterKill = await fw.inbound(0, phone(), 'depois');
    await chatNew(c, around);
    await chatNew(c, afterKill);
    await until(() => b.server.gateway!.tail.state === 'leader', 'this node to take over');

    // Every chat.new of the agent's team in the log arrived (once or more), in seq order.
    const log = await b.request('GET', `/api/events?after=${(bySeq(c)[0]!.seq as number) - 1}`, {
      headers: bearer(f.agents[0]!.token),
    });
    await b.server.gateway!.tail.settled();
    await c.barrier();
    assert.deepEqual(
      bySeq(c),
      (log.json.events as { event: string }[]).filter((e) => e.event === 'chat.new'),
    );
    assert.equal(bySeq(c).length, 3);
  });
});

/** `f`'s account as seen through another process's services (same users, channels, teams). */
async function seedAccountView(core: Core, f: Fixture): Promise<Pick<Fixture, 'inbound'>> {
  const admin = await core.services.auth.authenticate(f.adminToken);
  return {
    inbound: async (channelIndex, from, text = 'Olá') =>
      (
        await core.services.inbound.receiveSandbox(admin, f.channels[channelIndex]!.id, {
          from,
          text,
          name: null,
        })
      ).chatId,
  };
}

/** A redis-server of this test's own, on a free port, without persistence. */
async function startRedis(port: number): Promise<ChildProcess> {
  const proc = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    proc.once('exit', () => reject(new Error('redis-server exited')));
    proc.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('Ready to accept connections')) resolve();
    });
  });
  proc.stdout!.resume();
  return proc;
}

describe('event tail while Redis is down', () => {
  let port: number;
  let redis: ChildProcess | null = null;
  let a: TestApp;
  let b: TestApp;
  let api: TestApp;
  let f: Fixture;
  const clients: GatewayClient[] = [];

  before(async () => {
    port = await freePort();
    redis = await startRedis(port);
    const env = { REDIS_URL: `redis://127.0.0.1:${port}` };
    a = await startTestApp({ env });
    b = await startTestApp({ env, databaseUrl: a.databaseUrl });
    api = await startTestApp({ env: { ...env, ATENDE_ROLES: 'api' }, databaseUrl: a.databaseUrl });
    f = await seedAccount(a.server.services);
  });
  after(async () => {
    for (const c of clients) c.close();
    await api?.close();
    await b?.close();
    await a?.close();
    redis?.kill('SIGKILL');
  });

  it('every node sends to its own clients while Redis is down, and one node again once it is back', async () => {
    const onA = await connect(a.gatewayUrl!, { token: f.agents[0]!.token });
    const onB = await connect(b.gatewayUrl!, { token: f.agents[0]!.token });
    clients.push(onA, onB);
    for (const c of [onA, onB]) await c.ack('user_join_team', [f.teams[0]!.id]);
    assert.deepEqual([a.server.gateway!.tail.state, b.server.gateway!.tail.state], ['leader', 'off']);

    const exited = new Promise((resolve) => redis!.once('exit', resolve));
    redis!.kill('SIGTERM');
    await exited;
    redis = null;
    await until(
      () => a.server.gateway!.tail.state === 'fallback' && b.server.gateway!.tail.state === 'fallback',
      'both nodes to fall back',
    );
    const down = await api.request('POST', `/api/sandbox/channels/${f.channels[0]!.id}/inbound`, {
      headers: bearer(f.adminToken),
      body: { from: phone(), text: 'sem Redis' },
    });
    assert.equal(down.status, 201);
    await Promise.all([chatNew(onA, String(down.json.chatId)), chatNew(onB, String(down.json.chatId))]);

    redis = await startRedis(port);
    await until(
      () => [a.server.gateway!.tail.state, b.server.gateway!.tail.state].sort().join() === 'leader,off',
      'one node to lead again',
    );
    const up = await api.request('POST', `/api/sandbox/channels/${f.channels[0]!.id}/inbound`, {
      headers: bearer(f.adminToken),
      body: { from: phone(), text: 'com Redis' },
    });
    assert.equal(up.status, 201);
    await Promise.all([chatNew(onA, String(up.json.chatId)), chatNew(onB, String(up.json.chatId))]);
  });
});

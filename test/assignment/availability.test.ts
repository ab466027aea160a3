import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { connect, type GatewayClient } from '../helpers/gateway.js';

// The platform's availability: a user whose last gateway connection is gone (on every node) becomes
// offline after the grace period (shortened here), an availability the platform took comes back at
// their next connection, a choice of their own does not, and a node that died without a word does not
// leave its users online.

const GRACE_MS = 600;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
type Change = { userId: string; availability: string; since: string; auto: boolean };

describe('availability from the connections', { timeout: 60_000 }, () => {
  let t: TestApp;
  let f: Fixture;
  let db: pg.Pool;
  let admin: GatewayClient;
  const clients: GatewayClient[] = [];

  before(async () => {
    t = await startTestApp({ env: { ATENDE_AVAILABILITY_GRACE_MS: String(GRACE_MS) } });
    f = await seedAccount(t.server.services, { agents: 3 });
    db = new pg.Pool({ connectionString: t.databaseUrl, max: 2 });
    admin = await connect(t.gatewayUrl!, { token: f.adminToken });
  });
  after(async () => {
    for (const c of clients) c.close();
    admin?.close();
    await db?.end();
    await t?.close();
  });

  const open = async (token: string) => {
    const c = await connect(t.gatewayUrl!, { token });
    clients.push(c);
    return c;
  };
  const set = (token: string, availability: string) =>
    t.request('PUT', '/api/me/availability', { headers: bearer(token), body: { availability } });
  const change = async (userId: string, availability: string) =>
    (
      await admin.next('user.availability', (e) => {
        const d = e.data as Change;
        return d.userId === userId && d.availability === availability;
      })
    ).data as Change;

  it('offline once the last connection has been gone for the grace period; back at the next one', async () => {
    const agent = f.agents[0]!;
    const first = await open(agent.token);
    const second = await open(agent.token);
    assert.equal((await set(agent.token, 'online')).status, 200);
    await change(agent.id, 'online');

    first.close();
    // Let the first close be recorded before the second (the node writes them in order).
    const closedAt = Date.now();
    second.close();
    const gone = await change(agent.id, 'offline');
    assert.equal(gone.auto, true);
    // It went when the last connection went, not the first.
    assert.ok(
      Date.parse(gone.since) >= closedAt + GRACE_MS - 50,
      `${gone.since} vs ${new Date(closedAt).toISOString()}`,
    );

    await open(agent.token);
    const back = await change(agent.id, 'online');
    assert.equal(back.auto, true);
    const me = await t.request('GET', '/api/me/availability', { headers: bearer(agent.token) });
    assert.equal(me.json.availability, 'online');
  });

  it('a choice of the user’s own is kept: offline by hand stays offline at the next connection', async () => {
    const agent = f.agents[1]!;
    const c = await open(agent.token);
    assert.equal((await set(agent.token, 'away')).status, 200);
    await change(agent.id, 'away');
    c.close();
    assert.equal((await change(agent.id, 'offline')).auto, true);
    assert.equal((await set(agent.token, 'offline')).status, 200);
    const again = await open(agent.token);
    await again.barrier();
    await t.server.services.gatewayConnections.settled();
    const me = await t.request('GET', '/api/me/availability', { headers: bearer(agent.token) });
    assert.equal(me.json.availability, 'offline');
  });

  it('a node that died leaves its users online only until its rows age', async () => {
    const agent = f.agents[2]!;
    assert.equal((await set(agent.token, 'online')).status, 200);
    await change(agent.id, 'online');
    // A connection recorded by a node that then died: live, never renewed since.
    await db.query(
      `INSERT INTO user_connections (user_id, node_id, live, seen_at) VALUES ($1, 'dead-node', true, now())`,
      [agent.id],
    );
    const gone = await change(agent.id, 'offline');
    assert.equal(gone.auto, true);
  });
});

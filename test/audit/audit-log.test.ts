import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';

const bearer = (token: string) => ({ authorization: `Bearer ${token}`, 'user-agent': 'audit-test/1.0' });

interface Entry {
  id: string;
  actor: { type: string; id: string | null; name: string | null };
  action: string;
  target: { type: string; id: string | null };
  details: Record<string, unknown>;
  ip: string | null;
  userAgent: string | null;
  createdAt: string;
}
interface Page {
  entries: Entry[];
  nextBefore: string | null;
}

function ok(res: TestResponse, status = 200): void {
  assert.equal(res.status, status, JSON.stringify(res.body));
}

describe('audit log', () => {
  let t: TestApp;
  let f: Fixture;
  let other: Fixture;
  const admin = () => bearer(f.adminToken);

  /** The lines of the account written after `since` (an id), oldest first. */
  async function linesSince(since: string, fx: Fixture = f): Promise<Entry[]> {
    const rows = await fx.services.db
      .selectFrom('audit_log')
      .select('id')
      .where('account_id', '=', fx.accountId)
      .where('id', '>', since)
      .execute();
    if (rows.length === 0) return [];
    const res = await t.request('GET', `/api/audit-log?limit=200`, { headers: bearer(fx.adminToken) });
    ok(res);
    return (res.body as Page).entries.filter((e) => BigInt(e.id) > BigInt(since)).reverse();
  }
  async function lastId(): Promise<string> {
    const row = await f.services.db
      .selectFrom('audit_log')
      .select((eb) => eb.fn.max('id').as('m'))
      .executeTakeFirst();
    return String(row?.m ?? '0');
  }

  before(async () => {
    t = await startTestApp();
    f = await seedAccount(t.server.services);
    other = await seedAccount(t.server.services);
  });
  after(async () => t?.close());

  it('records an API key created and revoked, without its token or hash', async () => {
    const since = await lastId();
    const res = await t.request('POST', '/api/api-keys', {
      headers: admin(),
      body: { name: 'Integração', scopes: ['chats:read'] },
    });
    ok(res, 201);
    const key = res.body as { id: string; token: string };
    const stored = await f.services.db
      .selectFrom('account_api_keys')
      .select('token_hash')
      .where('id', '=', key.id)
      .executeTakeFirstOrThrow();
    ok(await t.request('DELETE', `/api/api-keys/${key.id}`, { headers: admin() }), 204);
    const lines = await linesSince(since);
    assert.deepEqual(
      lines.map((l) => [l.action, l.actor.type, l.actor.id, l.target.type, l.target.id]),
      [
        ['apikey.create', 'user', f.admin.userId, 'api_key', key.id],
        ['apikey.revoke', 'user', f.admin.userId, 'api_key', key.id],
      ],
    );
    assert.deepEqual(lines[0]!.details, { name: 'Integração', scopes: ['chats:read'], channelIds: null });
    assert.equal(lines[0]!.userAgent, 'audit-test/1.0');
    assert.ok(lines[0]!.ip);
    const raw = JSON.stringify(
      await f.services.db.selectFrom('audit_log').selectAll().where('account_id', '=', f.accountId).execute(),
    );
    assert.ok(!raw.includes(key.token), 'the token is in the log');
    assert.ok(!raw.includes(stored.token_hash.toString('hex')), 'the hash (hex) is in the log');
    assert.ok(!raw.includes(stored.token_hash.toString('base64')), 'the hash (base64) is in the log');
  });

  it('records user create, update, role and cancel, never the password', async () => {
    const since = await lastId();
    const created = await t.request('POST', '/api/users', {
      headers: admin(),
      body: {
        name: 'Ana',
        email: `ana-${Date.now()}@example.com`,
        password: 'segredo-123456',
        role: 'agent',
      },
    });
    ok(created, 201);
    const id = (created.body as { id: string }).id;
    ok(
      await t.request('PATCH', `/api/users/${id}`, {
        headers: admin(),
        body: { name: 'Ana B', password: 'outra-senha-123' },
      }),
    );
    ok(await t.request('PATCH', `/api/users/${id}`, { headers: admin(), body: { role: 'supervisor' } }));
    ok(await t.request('PATCH', `/api/users/${id}`, { headers: admin(), body: { status: 'cancelled' } }));
    const lines = await linesSince(since);
    assert.deepEqual(
      lines.map((l) => [l.action, l.target.id, l.details]),
      [
        [
          'user.create',
          id,
          { name: 'Ana', email: (created.body as { email: string }).email, role: 'agent', status: 'active' },
        ],
        ['user.update', id, { changed: ['name', 'password'], name: 'Ana B' }],
        ['user.role', id, { role: 'supervisor' }],
        ['user.cancel', id, { from: 'active' }],
      ],
    );
    assert.ok(!JSON.stringify(lines).includes('segredo'));
    assert.ok(!JSON.stringify(lines).includes('outra-senha'));
  });

  it('records channel and team changes, a rotated channel key without its value', async () => {
    const since = await lastId();
    const ch = await t.request('POST', '/api/channels', {
      headers: admin(),
      body: { name: 'Loja', provider: 'sandbox', defaultTeamId: f.teams[0]!.id },
    });
    ok(ch, 201);
    const chId = (ch.body as { id: string }).id;
    ok(await t.request('PATCH', `/api/channels/${chId}`, { headers: admin(), body: { name: 'Loja 2' } }));
    const rotated = await t.request('POST', `/api/channels/${chId}/api-key`, { headers: admin() });
    ok(rotated, 201);
    const team = await t.request('POST', '/api/teams', { headers: admin(), body: { name: 'Vendas' } });
    ok(team, 201);
    const teamId = (team.body as { id: string }).id;
    ok(
      await t.request('PATCH', `/api/teams/${teamId}`, {
        headers: admin(),
        body: { members: [f.agents[0]!.id] },
      }),
    );
    const lines = await linesSince(since);
    assert.deepEqual(
      lines.map((l) => [l.action, l.target.type, l.target.id]),
      [
        ['channel.create', 'channel', chId],
        ['channel.update', 'channel', chId],
        ['channel.rotate_key', 'channel', chId],
        ['team.create', 'team', teamId],
        ['team.update', 'team', teamId],
      ],
    );
    assert.deepEqual(lines[1]!.details, { changed: ['name'], name: 'Loja 2' });
    assert.deepEqual(lines[4]!.details, { changed: ['members'], members: [f.agents[0]!.id] });
    assert.ok(!JSON.stringify(lines).includes((rotated.body as { apiKey: string }).apiKey));
    ok(
      await t.request('PATCH', `/api/teams/000000000000000000000000`, {
        headers: admin(),
        body: { name: 'x' },
      }),
      404,
    );
    ok(await t.request('POST', `/api/channels/000000000000000000000000/api-key`, { headers: admin() }), 404);
    assert.equal((await linesSince(since)).length, 5);
  });

  it('writes nothing for a refused action (400, 404, 409)', async () => {
    const since = await lastId();
    const bad = await t.request('POST', '/api/api-keys', {
      headers: admin(),
      body: { name: 'x', scopes: ['chats:read'], channelIds: ['000000000000000000000000'] },
    });
    ok(bad, 400);
    ok(await t.request('DELETE', '/api/api-keys/000000000000000000000000', { headers: admin() }), 404);
    ok(
      await t.request('PATCH', '/api/users/000000000000000000000000', {
        headers: admin(),
        body: { name: 'X' },
      }),
      404,
    );
    ok(
      await t.request('PATCH', `/api/users/${f.admin.userId}`, { headers: admin(), body: { role: 'agent' } }),
      400,
    );
    ok(
      await t.request('POST', '/api/users', {
        headers: admin(),
        body: { name: 'X', email: f.agents[0]!.email, password: 'senha-123456', role: 'agent' },
      }),
      409,
    );
    assert.equal(await lastId(), since);
  });

  it('pages newest first and filters by actor, action prefix, target and dates', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await t.request('POST', '/api/api-keys', {
        headers: admin(),
        body: { name: `k${i}`, scopes: ['chats:read'] },
      });
      ok(res, 201);
      ids.push((res.body as { id: string }).id);
    }
    const seen: Entry[] = [];
    let before: string | null = null;
    do {
      const res = await t.request(
        'GET',
        `/api/audit-log?action=apikey.create&limit=2${before ? `&before=${before}` : ''}`,
        { headers: admin() },
      );
      ok(res);
      const page = res.body as Page;
      assert.ok(page.entries.length <= 2);
      seen.push(...page.entries);
      before = page.nextBefore;
    } while (before);
    const order = seen.map((e) => BigInt(e.id));
    assert.deepEqual(
      order,
      [...order].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0)),
    );
    assert.ok(seen.every((e) => e.action === 'apikey.create'));
    for (const id of ids) assert.equal(seen.filter((e) => e.target.id === id).length, 1);

    const byTarget = await t.request('GET', `/api/audit-log?targetType=api_key&targetId=${ids[2]}`, {
      headers: admin(),
    });
    assert.deepEqual(
      (byTarget.body as Page).entries.map((e) => e.action),
      ['apikey.create'],
    );
    const byPrefix = await t.request('GET', '/api/audit-log?action=user.', { headers: admin() });
    assert.ok((byPrefix.body as Page).entries.length > 0);
    assert.ok((byPrefix.body as Page).entries.every((e) => e.action.startsWith('user.')));
    const byActor = await t.request('GET', `/api/audit-log?actorId=${f.agents[0]!.id}`, { headers: admin() });
    assert.deepEqual((byActor.body as Page).entries, []);
    const future = await t.request(
      'GET',
      `/api/audit-log?from=${new Date(Date.now() + 3_600_000).toISOString()}`,
      { headers: admin() },
    );
    assert.deepEqual((future.body as Page).entries, []);
    const past = await t.request(
      'GET',
      `/api/audit-log?to=${new Date(Date.now() + 3_600_000).toISOString()}&limit=1`,
      { headers: admin() },
    );
    assert.equal((past.body as Page).entries.length, 1);
    assert.equal((past.body as Page).entries[0]!.actor.name !== null, true);
  });

  it('answers 400 for bad filters and an oversize page', async () => {
    for (const q of [
      'limit=201',
      'limit=0',
      'before=abc',
      'from=yesterday',
      'action=DROP%20TABLE',
      'color=red',
    ])
      ok(await t.request('GET', `/api/audit-log?${q}`, { headers: admin() }), 400);
  });

  it('is for admins only (agents and supervisors 403)', async () => {
    const email = `sup-${Date.now()}@example.com`;
    ok(
      await t.request('POST', '/api/users', {
        headers: admin(),
        body: { name: 'Sup', email, password: 'senha-123456', role: 'supervisor' },
      }),
      201,
    );
    const supToken = (await f.services.auth.login(email, 'senha-123456')).accessToken;
    ok(await t.request('GET', '/api/audit-log', { headers: bearer(f.agents[0]!.token) }), 403);
    ok(await t.request('GET', '/api/audit-log', { headers: bearer(supToken) }), 403);
    ok(await t.request('GET', '/api/audit-log', {}), 401);
  });

  it("never shows another account's lines", async () => {
    const mine = await t.request('GET', '/api/audit-log?limit=200', { headers: admin() });
    const theirs = await t.request('GET', '/api/audit-log?limit=200', { headers: bearer(other.adminToken) });
    const mineIds = new Set((mine.body as Page).entries.map((e) => e.id));
    assert.ok((theirs.body as Page).entries.length > 0);
    assert.ok((theirs.body as Page).entries.every((e) => !mineIds.has(e.id)));
    const targeted = await t.request('GET', `/api/audit-log?actorId=${f.admin.userId}`, {
      headers: bearer(other.adminToken),
    });
    assert.deepEqual((targeted.body as Page).entries, []);
  });

  it('refuses to rewrite a line', async () => {
    await assert.rejects(
      f.services.db
        .updateTable('audit_log')
        .set({ action: 'x' })
        .where('account_id', '=', f.accountId)
        .execute(),
      /append-only/,
    );
  });
});

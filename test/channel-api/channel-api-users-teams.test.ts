import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';

// GET /channel-api/users and GET /channel-api/teams.

interface User {
  id: string;
  name: string;
  email: string;
  status: string;
  role: { id: string; name: string };
}
interface Team {
  id: string;
  name: string;
  description: string | null;
  status: string;
  members: string[];
}

const UNAUTHORIZED = { statusCode: 401, message: 'Credencial ausente ou inválida', error: 'Unauthorized' };
const NOT_FOUND = { statusCode: 404, message: 'Not Found', error: 'Not Found' };
const byId = <T extends { id: string }>(items: T[]) => [...items].sort((a, b) => a.id.localeCompare(b.id));
let seq = 0;
const email = (name: string) => `${name}-${Date.now().toString(36)}-${++seq}@example.com`;

describe('Channel API users and teams', () => {
  let t: TestApp;
  let f: Fixture;
  let other: Fixture;
  let db: pg.Pool;
  let roles: Record<string, { id: string; name: string }>;

  const get = (path: string, key = f.apiKey) =>
    t.request('GET', path, { headers: { authorization: `ApiKey ${key}` } });
  const createUser = (
    name: string,
    role: 'admin' | 'supervisor' | 'agent',
    status?: 'active' | 'onboarding' | 'cancelled',
  ) =>
    f.services.users.create(f.admin, {
      name,
      email: email(name.toLowerCase().replace(/\s+/g, '')),
      password: 'secret-password',
      role,
      ...(status ? { status } : {}),
    });

  before(async () => {
    t = await startTestApp();
    f = await seedAccount(t.server.services);
    other = await seedAccount(t.server.services);
    db = new pg.Pool({ connectionString: t.databaseUrl, max: 2 });
    const { rows } = await db.query<{ id: string; name: string }>(
      'SELECT id, name FROM roles WHERE account_id = $1',
      [f.accountId],
    );
    roles = Object.fromEntries(rows.map((r) => [r.name, r]));
  });
  after(async () => {
    await db?.end();
    await t?.close();
  });

  for (const [path, scope] of [
    ['/channel-api/users', 'users:read'],
    ['/channel-api/teams', 'teams:read'],
  ] as const) {
    describe(`${path} credentials and scope`, () => {
      it('answers 401 for a missing or invalid credential', async () => {
        const revoked = await f.services.apiKeys.create(f.admin, {
          name: 'revogada',
          scopes: [scope],
          channelIds: null,
        });
        assert.equal((await get(path, revoked.token)).status, 200);
        await f.services.apiKeys.revoke(f.admin, revoked.id);
        const [, id, secret] = f.apiKey.split('_') as [string, string, string];
        const wrongSecret = `ak_${id}_${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
        const credentials: Record<string, string>[] = [
          {},
          { authorization: `Bearer ${f.apiKey}` },
          { authorization: `Basic ${Buffer.from(`x:${f.apiKey}`).toString('base64')}` },
          { authorization: 'ApiKey garbage' },
          { authorization: `ApiKey ${f.apiKey}x` },
          { authorization: `ApiKey ${wrongSecret}` },
          { authorization: `ApiKey ${revoked.token}` },
        ];
        for (const headers of credentials) {
          const res = await t.request('GET', path, { headers });
          assert.equal(res.status, 401, JSON.stringify(headers));
          assert.deepEqual(res.body, UNAUTHORIZED);
        }
      });

      it(`answers 404 to a key without ${scope}`, async () => {
        const others = (['chats:read', 'chats:transfer', 'users:read', 'teams:read'] as const).filter(
          (s) => s !== scope,
        );
        for (const key of [await f.makeKey(others), await f.makeKey([])]) {
          for (const query of ['', '?foo=1']) {
            const res = await get(`${path}${query}`, key);
            assert.equal(res.status, 404, query);
            assert.deepEqual(res.body, NOT_FOUND);
          }
        }
        // The route's own scope alone is enough.
        assert.equal((await get(path, await f.makeKey([scope]))).status, 200);
        // A key limited to channels still lists every user and team of the account.
        assert.equal((await get(path, await f.makeKey([scope], [f.channels[0]!.id]))).status, 200);
      });
    });
  }

  describe('GET /channel-api/users', () => {
    it('lists active and onboarding users, never cancelled ones, without password material', async () => {
      const supervisor = await createUser('Supervisora', 'supervisor');
      const onboarding = await createUser('Novato', 'agent', 'onboarding');
      const cancelled = await createUser('Ex Agente', 'agent');
      await f.services.users.update(f.admin, cancelled.id, { status: 'cancelled' });
      const cancelledAtOnce = await createUser('Nunca Ativo', 'agent', 'cancelled');

      const res = await fetch(`${t.url}/channel-api/users`, {
        headers: { authorization: `ApiKey ${f.apiKey}` },
      });
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      const text = await res.text();
      assert.doesNotMatch(text, /password/i);
      assert.doesNotMatch(text, /scrypt/i);
      assert.doesNotMatch(text, /hash/i);

      const users = JSON.parse(text) as User[];
      const agent = (i: number) => ({
        id: f.agents[i]!.id,
        name: `Agente ${i}`,
        email: f.agents[i]!.email,
        status: 'active',
        role: roles.agent!,
        availability: 'offline',
      });
      const adminRow = await db.query<{ email: string }>('SELECT email FROM users WHERE id = $1', [
        f.admin.userId,
      ]);
      assert.deepEqual(
        byId(users),
        byId([
          {
            id: f.admin.userId,
            name: 'Admin',
            email: adminRow.rows[0]!.email,
            status: 'active',
            role: roles.admin!,
            availability: 'offline',
          },
          agent(0),
          agent(1),
          { ...supervisor, status: 'active', role: roles.supervisor!, availability: 'offline' },
          { ...onboarding, status: 'onboarding', role: roles.agent!, availability: 'offline' },
        ]),
      );
      for (const user of users)
        assert.deepEqual(Object.keys(user).sort(), ['availability', 'email', 'id', 'name', 'role', 'status']);
      const listed = new Set(users.map((u) => u.id));
      assert.ok(!listed.has(cancelled.id) && !listed.has(cancelledAtOnce.id));
      // Nothing from the other account.
      for (const u of [other.admin.userId, ...other.agents.map((a) => a.id)]) assert.ok(!listed.has(u));

      // Status changes show at once: a reactivated user is back, a newly cancelled one is gone.
      await f.services.users.update(f.admin, cancelled.id, { status: 'active' });
      await f.services.users.update(f.admin, onboarding.id, { status: 'cancelled' });
      const after = (await get('/channel-api/users')).body as User[];
      const ids = new Set(after.map((u) => u.id));
      assert.ok(ids.has(cancelled.id));
      assert.ok(!ids.has(onboarding.id));
      assert.equal(after.length, users.length);
      // A role change shows too.
      await f.services.users.update(f.admin, supervisor.id, { role: 'agent' });
      const changed = ((await get('/channel-api/users')).body as User[]).find((u) => u.id === supervisor.id);
      assert.deepEqual(changed?.role, roles.agent);
    });

    it('lists only the key’s own account', async () => {
      const res = await get('/channel-api/users', other.apiKey);
      assert.equal(res.status, 200);
      assert.deepEqual(
        (res.body as User[]).map((u) => u.id).sort(),
        [other.admin.userId, ...other.agents.map((a) => a.id)].sort(),
      );
    });
  });

  describe('GET /channel-api/teams', () => {
    it('lists every team with its members, description and status', async () => {
      const u1 = await createUser('Membro Um', 'agent');
      const u2 = await createUser('Membro Dois', 'agent');
      const described = await f.services.teams.create(f.admin, {
        name: 'Financeiro',
        description: 'Cobranças e boletos',
        members: [u1.id, u2.id, f.agents[0]!.id],
      });
      const empty = await f.services.teams.create(f.admin, { name: 'Vazia' });
      const inactive = await f.services.teams.create(f.admin, { name: 'Antiga', members: [u1.id] });
      const patched = await t.request('PATCH', `/api/teams/${inactive.id}`, {
        headers: { authorization: `Bearer ${f.adminToken}` },
        body: { status: 'inactive' },
      });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));

      const res = await get('/channel-api/teams');
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const teams = (res.body as Team[]).map((team) => ({ ...team, members: [...team.members].sort() }));
      assert.deepEqual(
        byId(teams),
        byId([
          {
            id: f.teams[0]!.id,
            name: 'Equipe 0',
            description: null,
            status: 'active',
            members: [f.agents[0]!.id],
          },
          {
            id: f.teams[1]!.id,
            name: 'Equipe 1',
            description: null,
            status: 'active',
            members: [f.agents[1]!.id],
          },
          {
            id: described.id,
            name: 'Financeiro',
            description: 'Cobranças e boletos',
            status: 'active',
            members: [u1.id, u2.id, f.agents[0]!.id].sort(),
          },
          { id: empty.id, name: 'Vazia', description: null, status: 'active', members: [] },
          { id: inactive.id, name: 'Antiga', description: null, status: 'inactive', members: [u1.id] },
        ]),
      );
      for (const team of res.body as Team[]) {
        assert.deepEqual(Object.keys(team).sort(), ['description', 'id', 'members', 'name', 'status']);
      }

      // Membership changes show at once.
      await f.services.teams.update(f.admin, described.id, { members: [u2.id] });
      const after = ((await get('/channel-api/teams')).body as Team[]).find(
        (team) => team.id === described.id,
      );
      assert.deepEqual(after?.members, [u2.id]);
    });

    it('lists only the key’s own account', async () => {
      const res = await get('/channel-api/teams', other.apiKey);
      assert.equal(res.status, 200);
      assert.deepEqual(
        byId(res.body as Team[]),
        byId([
          {
            id: other.teams[0]!.id,
            name: 'Equipe 0',
            description: null,
            status: 'active',
            members: [other.agents[0]!.id],
          },
          {
            id: other.teams[1]!.id,
            name: 'Equipe 1',
            description: null,
            status: 'active',
            members: [other.agents[1]!.id],
          },
        ]),
      );
    });
  });
});

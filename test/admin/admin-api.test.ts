import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { API_KEY_SCOPES, type RoleName } from '../../src/access/permissions.js';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';

const UNAUTHORIZED = { statusCode: 401, message: 'Credencial ausente ou inválida', error: 'Unauthorized' };
const NOT_FOUND = { statusCode: 404, message: 'Not Found', error: 'Not Found' };
const badRequest = (message: string | string[]) => ({ statusCode: 400, message, error: 'Bad Request' });
const forbidden = (permission: string) => ({
  statusCode: 403,
  message: `Permissão necessária: ${permission}`,
  error: 'Forbidden',
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const OBJECT_ID = /^[0-9a-f]{24}$/;

/** Asserts an ISO 8601 timestamp as `Date#toISOString` writes it, and returns it. */
function iso(value: unknown): string {
  assert.equal(typeof value, 'string', `not a timestamp: ${JSON.stringify(value)}`);
  assert.equal(new Date(value as string).toISOString(), value);
  return value as string;
}

function expectStatus(res: TestResponse, status: number, label = ''): void {
  assert.equal(res.status, status, `${label} ${JSON.stringify(res.body)}`);
}

async function roleIds(f: Fixture): Promise<Record<RoleName, string>> {
  const rows = await f.services.db
    .selectFrom('roles')
    .select(['id', 'name'])
    .where('account_id', '=', f.accountId)
    .execute();
  return Object.fromEntries(rows.map((r) => [r.name, r.id])) as Record<RoleName, string>;
}

describe('admin API', () => {
  let t: TestApp;
  let f: Fixture;
  let other: Fixture;
  let roles: Record<RoleName, string>;
  const admin = () => bearer(f.adminToken);
  const agent = (i = 0) => bearer(f.agents[i]!.token);

  before(async () => {
    t = await startTestApp();
    f = await seedAccount(t.server.services);
    other = await seedAccount(t.server.services);
    roles = await roleIds(f);
  });
  after(async () => t?.close());

  describe('access', () => {
    it('answers 401 without a token on every route family', async () => {
      const id = f.teams[0]!.id;
      const routes: [string, string, unknown?][] = [
        ['GET', '/api/users'],
        ['POST', '/api/users', { name: 'x', email: 'x@example.com', password: '12345678', role: 'agent' }],
        ['PATCH', `/api/users/${f.agents[0]!.id}`, { name: 'x' }],
        ['GET', '/api/teams'],
        ['POST', '/api/teams', { name: 'x' }],
        ['PATCH', `/api/teams/${id}`, { name: 'x' }],
        ['GET', '/api/channels'],
        ['POST', '/api/channels', { name: 'x', provider: 'sandbox', defaultTeamId: id }],
        ['PATCH', `/api/channels/${f.channels[0]!.id}`, { name: 'x' }],
        ['POST', `/api/channels/${f.channels[0]!.id}/api-key`],
        ['GET', '/api/api-keys'],
        ['POST', '/api/api-keys', { name: 'x', scopes: ['chats:read'] }],
        ['DELETE', `/api/api-keys/${id}`],
        ['POST', `/api/sandbox/channels/${f.channels[0]!.id}/inbound`, { from: '5511987654321', text: 'x' }],
        ['GET', '/api/chats'],
        ['GET', `/api/chats/${id}`],
        ['POST', `/api/chats/${id}/queue`, { queue: 'Espera' }],
        ['POST', `/api/chats/${id}/transfer`, { teamId: id }],
        ['GET', '/api/me'],
      ];
      for (const [method, path, body] of routes) {
        for (const headers of [{}, bearer('nope'), { authorization: `ApiKey ${f.apiKey}` }]) {
          const res = await t.request(method, path, { headers, body });
          assert.equal(res.status, 401, `${method} ${path} ${JSON.stringify(res.body)}`);
          assert.deepEqual(res.body, UNAUTHORIZED);
        }
      }
    });

    it('answers 403 to an agent on users, teams, channels and API key management', async () => {
      const team = f.teams[0]!.id;
      const channel = f.channels[0]!.id;
      const keyId = (await f.services.apiKeys.create(f.admin, { name: 'k', scopes: ['chats:read'] })).id;
      const routes: [string, string, string, unknown?][] = [
        [
          'POST',
          '/api/users',
          'users:manage',
          { name: 'x', email: `x-${randomUUID()}@example.com`, password: '12345678', role: 'agent' },
        ],
        ['PATCH', `/api/users/${f.agents[1]!.id}`, 'users:manage', { status: 'cancelled' }],
        ['PATCH', `/api/users/${f.agents[0]!.id}`, 'users:manage', { role: 'admin' }],
        ['POST', '/api/teams', 'teams:manage', { name: 'x' }],
        ['PATCH', `/api/teams/${team}`, 'teams:manage', { name: 'x' }],
        ['POST', '/api/channels', 'channels:manage', { name: 'x', provider: 'sandbox', defaultTeamId: team }],
        ['PATCH', `/api/channels/${channel}`, 'channels:manage', { name: 'x' }],
        ['POST', `/api/channels/${channel}/api-key`, 'channels:manage'],
        ['GET', '/api/api-keys', 'api_keys:manage'],
        ['POST', '/api/api-keys', 'api_keys:manage', { name: 'x', scopes: ['chats:read'] }],
        ['DELETE', `/api/api-keys/${keyId}`, 'api_keys:manage'],
      ];
      for (const [method, path, permission, body] of routes) {
        const res = await t.request(method, path, { headers: agent(), body });
        assert.equal(res.status, 403, `${method} ${path} ${JSON.stringify(res.body)}`);
        assert.deepEqual(res.body, forbidden(permission));
      }
      // Nothing was changed on the way.
      assert.equal((await f.services.users.get(f.admin, f.agents[1]!.id)).status, 'active');
      assert.equal((await f.services.teams.get(f.admin, team)).name, 'Equipe 0');
      assert.equal((await f.services.channels.get(f.admin, channel)).hasApiKey, false);
      const keys = await f.services.apiKeys.list(f.admin);
      assert.equal(keys.find((k) => k.id === keyId)?.revokedAt, null);
    });

    it('answers 404 to ids of another account, and changes nothing there', async () => {
      const otherChat = await other.inbound(0, '5511911112222', 'Oi');
      const otherKey = await other.services.apiKeys.create(other.admin, {
        name: 'k',
        scopes: ['chats:read'],
      });
      const routes: [string, string, unknown?][] = [
        ['GET', `/api/users/${other.agents[0]!.id}`],
        ['PATCH', `/api/users/${other.agents[0]!.id}`, { status: 'cancelled' }],
        ['GET', `/api/teams/${other.teams[0]!.id}`],
        ['PATCH', `/api/teams/${other.teams[0]!.id}`, { name: 'Tomada' }],
        ['GET', `/api/channels/${other.channels[0]!.id}`],
        ['PATCH', `/api/channels/${other.channels[0]!.id}`, { name: 'Tomado' }],
        ['POST', `/api/channels/${other.channels[0]!.id}/api-key`],
        ['DELETE', `/api/api-keys/${otherKey.id}`],
        [
          'POST',
          `/api/sandbox/channels/${other.channels[0]!.id}/inbound`,
          { from: '5511987654321', text: 'x' },
        ],
        ['GET', `/api/chats/${otherChat}`],
        ['POST', `/api/chats/${otherChat}/queue`, { queue: 'Observação' }],
        ['POST', `/api/chats/${otherChat}/transfer`, { teamId: f.teams[0]!.id }],
        ['POST', `/api/chats/${otherChat}/transfer`, { userId: f.agents[0]!.id }],
      ];
      for (const [method, path, body] of routes) {
        const res = await t.request(method, path, { headers: admin(), body });
        assert.equal(res.status, 404, `${method} ${path} ${JSON.stringify(res.body)}`);
        assert.deepEqual(res.body, NOT_FOUND);
      }
      assert.equal((await other.services.users.get(other.admin, other.agents[0]!.id)).status, 'active');
      assert.equal((await other.services.teams.get(other.admin, other.teams[0]!.id)).name, 'Equipe 0');
      const channel = await other.services.channels.get(other.admin, other.channels[0]!.id);
      assert.equal(channel.name, 'Canal 0');
      assert.equal(channel.hasApiKey, false);
      const chat = await other.services.chats.getForUser(other.admin, otherChat);
      assert.equal(chat.queue, 'Espera');
      assert.equal(chat.teamId, other.teams[0]!.id);
      assert.equal(chat.unreadMessages, 1);
      const key = (await other.services.apiKeys.list(other.admin)).find((k) => k.id === otherKey.id);
      assert.equal(key?.revokedAt, null);
      // Their key still works.
      const res = await t.request('GET', '/channel-api/chats', {
        headers: { authorization: `ApiKey ${otherKey.token}` },
      });
      expectStatus(res, 200);
    });
  });

  describe('users', () => {
    it('lists the users of the account in the User shape', async () => {
      const adminRow = await f.services.db
        .selectFrom('users')
        .select('email')
        .where('id', '=', f.admin.userId)
        .executeTakeFirstOrThrow();
      const res = await t.request('GET', '/api/users', { headers: admin() });
      expectStatus(res, 200);
      assert.deepEqual((res.body as unknown[]).slice(0, 3), [
        {
          id: f.admin.userId,
          name: 'Admin',
          email: adminRow.email,
          status: 'active',
          role: { id: roles.admin, name: 'admin' },
          availability: 'offline',
        },
        ...f.agents.map((a, i) => ({
          id: a.id,
          name: `Agente ${i}`,
          email: a.email,
          status: 'active',
          role: { id: roles.agent, name: 'agent' },
          availability: 'offline',
        })),
      ]);
      const ids = (res.body as { id: string }[]).map((u) => u.id);
      assert.ok(!ids.includes(other.admin.userId), 'another account’s users are not listed');
    });

    it('creates a user (201), stores only a password hash, and the user can log in', async () => {
      const email = `Nova.Supervisora-${randomUUID()}@Example.com`;
      const res = await t.request('POST', '/api/users', {
        headers: admin(),
        body: { name: ' Nova Supervisora ', email, password: 'senha-forte-1', role: 'supervisor' },
      });
      expectStatus(res, 201);
      const id = res.json.id as string;
      assert.match(id, OBJECT_ID);
      assert.deepEqual(res.body, {
        id,
        name: 'Nova Supervisora',
        email: email.toLowerCase(),
        status: 'active',
        role: { id: roles.supervisor, name: 'supervisor' },
        availability: 'offline',
      });
      const row = await f.services.db
        .selectFrom('users')
        .select(['password_hash', 'account_id'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      assert.equal(row.account_id, f.accountId);
      assert.match(row.password_hash, /^scrypt\$/);
      assert.ok(!row.password_hash.includes('senha-forte-1'));

      const login = await t.request('POST', '/auth/login', { body: { email, password: 'senha-forte-1' } });
      expectStatus(login, 200);
      assert.deepEqual(login.json.user, res.body);

      const get = await t.request('GET', `/api/users/${id}`, { headers: admin() });
      assert.deepEqual(get.body, res.body);
    });

    it('creates a user in onboarding', async () => {
      const res = await t.request('POST', '/api/users', {
        headers: admin(),
        body: {
          name: 'Em integração',
          email: `onb-${randomUUID()}@example.com`,
          password: '12345678',
          role: 'agent',
          status: 'onboarding',
        },
      });
      expectStatus(res, 201);
      assert.equal(res.json.status, 'onboarding');
    });

    it('answers 409 to an email already in use, in any case and in any account', async () => {
      for (const email of [f.agents[0]!.email, f.agents[0]!.email.toUpperCase(), other.agents[0]!.email]) {
        const res = await t.request('POST', '/api/users', {
          headers: admin(),
          body: { name: 'Dup', email, password: '12345678', role: 'agent' },
        });
        assert.equal(res.status, 409, email);
        assert.deepEqual(res.body, { statusCode: 409, message: 'Email already in use', error: 'Conflict' });
      }
    });

    it('validates the body: unknown fields, missing fields, bad values', async () => {
      const valid = {
        name: 'X',
        email: `v-${randomUUID()}@example.com`,
        password: '12345678',
        role: 'agent',
      };
      const cases: [unknown, string[]][] = [
        [{ ...valid, foo: 1 }, ['property foo should not exist']],
        [{ ...valid, passwordHash: 'x' }, ['property passwordHash should not exist']],
        [
          {},
          [
            'name should not be empty',
            'email should not be empty',
            'password should not be empty',
            'role should not be empty',
          ],
        ],
        [{ ...valid, email: 'not-an-email' }, ['email must be an email']],
        [{ ...valid, password: 'short' }, ['password must be longer than or equal to 8 characters']],
        [{ ...valid, role: 'root' }, ['role must be one of the following values: admin, supervisor, agent']],
        [
          { ...valid, status: 'deleted' },
          ['status must be one of the following values: active, onboarding, cancelled'],
        ],
        [{ ...valid, name: { first: 'X' } }, ['name must be a string']],
      ];
      for (const [body, message] of cases) {
        const res = await t.request('POST', '/api/users', { headers: admin(), body });
        assert.deepEqual(res.body, badRequest(message), JSON.stringify(body));
      }
      const patch = await t.request('PATCH', `/api/users/${f.agents[0]!.id}`, { headers: admin(), body: {} });
      assert.deepEqual(patch.body, badRequest(['body should not be empty']));
    });

    it('changes name, role and password', async () => {
      const email = `muda-${randomUUID()}@example.com`;
      const user = await f.services.users.create(f.admin, {
        name: 'Antes',
        email,
        password: 'old-password',
        role: 'agent',
      });
      const res = await t.request('PATCH', `/api/users/${user.id}`, {
        headers: admin(),
        body: { name: 'Depois', role: 'supervisor', password: 'new-password' },
      });
      expectStatus(res, 200);
      assert.deepEqual(res.body, {
        id: user.id,
        name: 'Depois',
        email,
        status: 'active',
        role: { id: roles.supervisor, name: 'supervisor' },
        availability: 'offline',
      });
      const login = (password: string) => t.request('POST', '/auth/login', { body: { email, password } });
      assert.equal((await login('old-password')).status, 401);
      assert.equal((await login('new-password')).status, 200);
    });

    it('does not let an admin cancel or demote themselves', async () => {
      for (const body of [{ status: 'cancelled' }, { role: 'agent' }]) {
        const res = await t.request('PATCH', `/api/users/${f.admin.userId}`, { headers: admin(), body });
        assert.deepEqual(res.body, badRequest('Você não pode cancelar nem rebaixar o próprio usuário'));
      }
      const me = await t.request('GET', '/api/me', { headers: admin() });
      assert.deepEqual(me.json.user, {
        ...(me.json.user as object),
        status: 'active',
        role: { id: roles.admin, name: 'admin' },
      });
    });
  });

  describe('teams', () => {
    it('lists the teams of the account in the Team shape', async () => {
      const res = await t.request('GET', '/api/teams', { headers: admin() });
      expectStatus(res, 200);
      assert.deepEqual((res.body as unknown[]).slice(0, 2), [
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
      ]);
    });

    it('creates (201) and changes a team, members included', async () => {
      const created = await t.request('POST', '/api/teams', {
        headers: admin(),
        body: {
          name: ' Suporte N2 ',
          description: 'Segundo nível',
          members: [f.agents[0]!.id, f.agents[1]!.id],
        },
      });
      expectStatus(created, 201);
      const id = created.json.id as string;
      assert.match(id, OBJECT_ID);
      assert.deepEqual(created.body, {
        id,
        name: 'Suporte N2',
        description: 'Segundo nível',
        status: 'active',
        members: [f.agents[0]!.id, f.agents[1]!.id],
      });

      const patched = await t.request('PATCH', `/api/teams/${id}`, {
        headers: admin(),
        body: { status: 'inactive', description: null, members: [f.agents[1]!.id] },
      });
      expectStatus(patched, 200);
      const expected = {
        id,
        name: 'Suporte N2',
        description: null,
        status: 'inactive',
        members: [f.agents[1]!.id],
      };
      assert.deepEqual(patched.body, expected);
      assert.deepEqual((await t.request('GET', `/api/teams/${id}`, { headers: admin() })).body, expected);
      const members = await f.services.db
        .selectFrom('team_members')
        .select('user_id')
        .where('team_id', '=', id)
        .execute();
      assert.deepEqual(members, [{ user_id: f.agents[1]!.id }]);
    });

    it('keeps an empty description empty and null null', async () => {
      const team = await t.request('POST', '/api/teams', {
        headers: admin(),
        body: { name: 'Vazia', description: '' },
      });
      expectStatus(team, 201);
      assert.equal(team.json.description, '');
      const id = team.json.id as string;
      const cleared = await t.request('PATCH', `/api/teams/${id}`, {
        headers: admin(),
        body: { description: null },
      });
      assert.equal(cleared.json.description, null);
      const bad = await t.request('PATCH', `/api/teams/${id}`, {
        headers: admin(),
        body: { description: ['x'] },
      });
      assert.deepEqual(bad.body, badRequest(['description must be a string']));
    });

    it('refuses members that are not users of the account, and unknown fields', async () => {
      const stranger = other.agents[0]!.id;
      const res = await t.request('POST', '/api/teams', {
        headers: admin(),
        body: { name: 'X', members: [f.agents[0]!.id, stranger] },
      });
      assert.deepEqual(res.body, badRequest([`members contains unknown users: ${stranger}`]));

      const patch = await t.request('PATCH', `/api/teams/${f.teams[0]!.id}`, {
        headers: admin(),
        body: { members: [stranger] },
      });
      assert.deepEqual(patch.body, badRequest([`members contains unknown users: ${stranger}`]));
      assert.deepEqual((await f.services.teams.get(f.admin, f.teams[0]!.id)).members, [f.agents[0]!.id]);

      for (const [method, path] of [
        ['POST', '/api/teams'],
        ['PATCH', `/api/teams/${f.teams[0]!.id}`],
      ] as const) {
        const r = await t.request(method, path, { headers: admin(), body: { name: 'X', foo: 1 } });
        assert.deepEqual(r.body, badRequest(['property foo should not exist']));
      }
      const bad = await t.request('POST', '/api/teams', {
        headers: admin(),
        body: { name: 'X', members: ['x'] },
      });
      assert.deepEqual(bad.body, badRequest(['members.0 must be a 24-character hexadecimal id']));
    });
  });

  describe('channels', () => {
    it('lists, creates (201) and changes channels', async () => {
      const list = await t.request('GET', '/api/channels', { headers: admin() });
      expectStatus(list, 200);
      const first = (list.body as Record<string, unknown>[])[0]!;
      assert.deepEqual(first, {
        id: f.channels[0]!.id,
        name: 'Canal 0',
        provider: 'sandbox',
        providerConfig: {},
        apiEnabled: true,
        hasApiKey: false,
        defaultTeamId: f.teams[0]!.id,
        queue: 'Espera',
        health: 'ok',
        healthReason: null,
        unhealthySince: null,
        sendReadReceipts: false,
        botId: null,
        botHours: null,
        createdAt: iso(first.createdAt),
        updatedAt: iso(first.updatedAt),
      });

      const created = await t.request('POST', '/api/channels', {
        headers: admin(),
        body: {
          name: 'Vendas',
          provider: 'sandbox',
          defaultTeamId: f.teams[1]!.id,
          queue: 'Triagem',
          apiEnabled: false,
        },
      });
      expectStatus(created, 201);
      const id = created.json.id as string;
      assert.match(id, OBJECT_ID);
      assert.deepEqual(created.body, {
        id,
        name: 'Vendas',
        provider: 'sandbox',
        providerConfig: {},
        apiEnabled: false,
        hasApiKey: false,
        defaultTeamId: f.teams[1]!.id,
        queue: 'Triagem',
        health: 'ok',
        healthReason: null,
        unhealthySince: null,
        sendReadReceipts: false,
        botId: null,
        botHours: null,
        createdAt: iso(created.json.createdAt),
        updatedAt: iso(created.json.updatedAt),
      });

      const patched = await t.request('PATCH', `/api/channels/${id}`, {
        headers: admin(),
        body: { name: 'Vendas BR', apiEnabled: true, defaultTeamId: f.teams[0]!.id },
      });
      expectStatus(patched, 200);
      assert.deepEqual(patched.body, {
        ...created.json,
        name: 'Vendas BR',
        apiEnabled: true,
        defaultTeamId: f.teams[0]!.id,
        updatedAt: iso(patched.json.updatedAt),
      });
      const get = await t.request('GET', `/api/channels/${id}`, { headers: admin() });
      assert.deepEqual(get.body, patched.body);
    });

    it('refuses a default team of another account or inactive, and unknown fields (nested too)', async () => {
      const inactive = await f.services.teams.create(f.admin, { name: 'Inativa' });
      await f.services.teams.update(f.admin, inactive.id, { status: 'inactive' });
      for (const teamId of [other.teams[0]!.id, inactive.id]) {
        const res = await t.request('POST', '/api/channels', {
          headers: admin(),
          body: { name: 'X', provider: 'sandbox', defaultTeamId: teamId },
        });
        assert.deepEqual(res.body, badRequest('Equipe não encontrada'));
        const patch = await t.request('PATCH', `/api/channels/${f.channels[0]!.id}`, {
          headers: admin(),
          body: { defaultTeamId: teamId },
        });
        assert.deepEqual(patch.body, badRequest('Equipe não encontrada'));
      }
      const base = { name: 'X', provider: 'sandbox', defaultTeamId: f.teams[0]!.id };
      const cases: [unknown, string[]][] = [
        [{ ...base, foo: 1 }, ['property foo should not exist']],
        [{ ...base, providerConfig: { token: 'x' } }, ['property providerConfig.token should not exist']],
        [{ ...base, apiKeyHash: 'x' }, ['property apiKeyHash should not exist']],
        [{ ...base, defaultTeamId: 'x' }, ['defaultTeamId must be a 24-character hexadecimal id']],
      ];
      for (const [body, message] of cases) {
        const res = await t.request('POST', '/api/channels', { headers: admin(), body });
        assert.deepEqual(res.body, badRequest(message), JSON.stringify(body));
      }
    });

    it('generates a channel API key (201, shown once) and stores only its hash', async () => {
      const channel = f.channels[1]!.id;
      const hashOf = async () =>
        (
          await f.services.db
            .selectFrom('channels')
            .select('api_key_hash')
            .where('id', '=', channel)
            .executeTakeFirstOrThrow()
        ).api_key_hash;
      assert.equal(await hashOf(), null);

      const res = await t.request('POST', `/api/channels/${channel}/api-key`, { headers: admin() });
      expectStatus(res, 201);
      assert.deepEqual(Object.keys(res.json), ['apiKey']);
      const key = res.json.apiKey as string;
      assert.match(key, new RegExp(`^ck_${channel}_[A-Za-z0-9_-]{43}$`));
      const stored = await hashOf();
      assert.ok(Buffer.isBuffer(stored));
      assert.equal(stored.length, 32);
      const secret = key.split('_').slice(2).join('_');
      assert.ok(!stored.equals(Buffer.from(key)) && !stored.toString('latin1').includes(secret));

      const shown = await t.request('GET', `/api/channels/${channel}`, { headers: admin() });
      assert.equal(shown.json.hasApiKey, true);
      assert.ok(!JSON.stringify(shown.body).includes(secret), 'the key is never shown again');
      const list = await t.request('GET', '/api/channels', { headers: admin() });
      assert.ok(!JSON.stringify(list.body).includes(secret));

      const again = await t.request('POST', `/api/channels/${channel}/api-key`, { headers: admin() });
      expectStatus(again, 201);
      assert.notEqual(again.json.apiKey, key);
      assert.ok(!(await hashOf())!.equals(stored), 'the previous key is replaced');
    });
  });

  describe('account API keys', () => {
    it('creates a key (201) whose token is shown once, works on the Channel API, and dies when revoked', async () => {
      const created = await t.request('POST', '/api/api-keys', {
        headers: admin(),
        body: { name: ' ERP ', scopes: ['users:read'], channelIds: null },
      });
      expectStatus(created, 201);
      const id = created.json.id as string;
      const token = created.json.token as string;
      assert.match(id, OBJECT_ID);
      assert.match(token, new RegExp(`^ak_${id}_[A-Za-z0-9_-]{43}$`));
      assert.deepEqual(created.body, { id, name: 'ERP', scopes: ['users:read'], channelIds: null, token });
      const secret = token.split('_').slice(2).join('_');

      const list = await t.request('GET', '/api/api-keys', { headers: admin() });
      expectStatus(list, 200);
      const item = (list.body as Record<string, unknown>[]).find((k) => k.id === id)!;
      assert.deepEqual(item, {
        id,
        name: 'ERP',
        scopes: ['users:read'],
        channelIds: null,
        createdBy: f.admin.userId,
        lastUsedAt: null,
        revokedAt: null,
        createdAt: iso(item.createdAt),
      });
      assert.ok(!JSON.stringify(list.body).includes(secret), 'the list never holds a token');
      assert.ok((list.body as object[]).every((k) => !('token' in k)));

      const row = await f.services.db
        .selectFrom('account_api_keys')
        .select(['token_hash', 'account_id'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      assert.equal(row.account_id, f.accountId);
      assert.equal(row.token_hash.length, 32);
      assert.ok(!row.token_hash.toString('latin1').includes(secret));

      const headers = { authorization: `ApiKey ${token}` };
      const users = await t.request('GET', '/channel-api/users', { headers });
      expectStatus(users, 200);
      const all = await t.request('GET', '/api/users', { headers: admin() });
      assert.deepEqual(
        users.body,
        (all.body as { status: string }[]).filter((u) => u.status !== 'cancelled'),
      );
      // Only the scopes it was given.
      assert.deepEqual((await t.request('GET', '/channel-api/teams', { headers })).body, NOT_FOUND);

      const del = await t.request('DELETE', `/api/api-keys/${id}`, { headers: admin() });
      assert.equal(del.status, 204);
      assert.equal(del.body, null);
      const after = await t.request('GET', '/channel-api/users', { headers });
      assert.equal(after.status, 401);
      assert.deepEqual(after.body, UNAUTHORIZED);

      const listed = (
        (await t.request('GET', '/api/api-keys', { headers: admin() })).body as Record<string, unknown>[]
      ).find((k) => k.id === id)!;
      iso(listed.revokedAt);

      const again = await t.request('DELETE', `/api/api-keys/${id}`, { headers: admin() });
      assert.deepEqual(again.body, {
        statusCode: 409,
        message: 'A chave já foi revogada',
        error: 'Conflict',
      });
    });

    it('limits a key to its channels, which must be channels of the account', async () => {
      const created = await t.request('POST', '/api/api-keys', {
        headers: admin(),
        body: { name: 'Canal 0 só', scopes: ['chats:read'], channelIds: [f.channels[0]!.id] },
      });
      expectStatus(created, 201);
      assert.deepEqual(created.json.channelIds, [f.channels[0]!.id]);
      const headers = { authorization: `ApiKey ${created.json.token as string}` };
      const outside = await t.request('GET', `/channel-api/chats?channelId=${f.channels[1]!.id}`, {
        headers,
      });
      assert.deepEqual(outside.body, NOT_FOUND);

      const stranger = other.channels[0]!.id;
      const res = await t.request('POST', '/api/api-keys', {
        headers: admin(),
        body: { name: 'X', scopes: ['chats:read'], channelIds: [stranger] },
      });
      assert.deepEqual(res.body, badRequest([`channelIds contains unknown channels: ${stranger}`]));
    });

    it('validates the body', async () => {
      const cases: [unknown, string[]][] = [
        [{ name: 'X', scopes: ['chats:read'], foo: 1 }, ['property foo should not exist']],
        [{ name: 'X', scopes: [] }, ['scopes must contain at least 1 elements']],
        [
          { name: 'X', scopes: ['chats:delete'] },
          [`scopes.0 must be one of the following values: ${API_KEY_SCOPES.join(', ')}`],
        ],
        [{ name: 'X', scopes: ['chats:read', 'chats:read'] }, ["All scopes's elements must be unique"]],
        [
          { name: 'X', scopes: ['chats:read'], channelIds: ['nope'] },
          ['channelIds.0 must be a 24-character hexadecimal id'],
        ],
        [{ name: 'X', scopes: ['chats:read'], token: 'mine' }, ['property token should not exist']],
        // Falsy values are not taken for null, which would mean every channel.
        [{ name: 'X', scopes: ['chats:read'], channelIds: '' }, ['channelIds must be an array']],
        [{ name: 'X', scopes: ['chats:read'], channelIds: false }, ['channelIds must be an array']],
      ];
      const before = (await f.services.apiKeys.list(f.admin)).length;
      for (const [body, message] of cases) {
        const res = await t.request('POST', '/api/api-keys', { headers: admin(), body });
        assert.deepEqual(res.body, badRequest(message), JSON.stringify(body));
      }
      assert.equal((await f.services.apiKeys.list(f.admin)).length, before);
    });
  });

  describe('sandbox inbound', () => {
    const inbound = (channelId: string, body: unknown) =>
      t.request('POST', `/api/sandbox/channels/${channelId}/inbound`, { headers: admin(), body });
    const chat = async (id: string) =>
      (await t.request('GET', `/api/chats/${id}`, { headers: admin() })).json;

    it('opens a chat in Espera of the default team, then appends messages from the same number', async () => {
      const channel = f.channels[0]!.id;
      const first = await inbound(channel, { from: '5511987654321', name: 'Maria', text: 'Oi' });
      expectStatus(first, 201);
      const chatId = first.json.chatId as string;
      const messageId = first.json.messageId as string;
      assert.deepEqual(Object.keys(first.json).sort(), ['chatId', 'messageId']);
      assert.match(chatId, OBJECT_ID);
      assert.match(messageId, OBJECT_ID);

      const opened = await chat(chatId);
      const contact = opened.contact as { id: string };
      assert.match(contact.id, OBJECT_ID);
      const lastAt = iso((opened.lastMessage as { createdAt: unknown }).createdAt);
      assert.deepEqual(opened, {
        id: chatId,
        status: 'open',
        queue: 'Espera',
        channelId: channel,
        teamId: f.teams[0]!.id,
        userId: null,
        contact: { id: contact.id, name: 'Maria', value: '5511987654321' },
        // A first contact is a customer of its own, with the same id.
        customerId: contact.id,
        unreadMessages: 1,
        lastMessage: { id: messageId, origin: 'contact', type: 'text', content: 'Oi', createdAt: lastAt },
        createdAt: iso(opened.createdAt),
        updatedAt: iso(opened.updatedAt),
        labels: [],
        // A sandbox customer opens the 24-hour window as a WhatsApp one does.
        window: { open: true, expiresAt: new Date(Date.parse(lastAt) + 24 * 3600 * 1000).toISOString() },
        snooze: null,
        // No SLA on the team; no bot holds it.
        sla: null,
        botId: null,
      });

      const second = await inbound(channel, { from: '5511987654321', text: 'Tudo bem?' });
      expectStatus(second, 201);
      assert.equal(second.json.chatId, chatId);
      assert.notEqual(second.json.messageId, messageId);
      const appended = await chat(chatId);
      assert.equal(appended.unreadMessages, 2);
      assert.deepEqual(appended.contact, opened.contact);
      assert.deepEqual(appended.lastMessage, {
        id: second.json.messageId,
        origin: 'contact',
        type: 'text',
        content: 'Tudo bem?',
        createdAt: iso((appended.lastMessage as { createdAt: unknown }).createdAt),
      });

      // The same mobile written without its ninth digit, or formatted, is the same contact.
      for (const [i, from] of ['551187654321', '+55 (11) 98765-4321'].entries()) {
        const res = await inbound(channel, { from, text: `Alô ${i}` });
        expectStatus(res, 201, from);
        assert.equal(res.json.chatId, chatId, from);
      }
      const now = await chat(chatId);
      assert.equal(now.unreadMessages, 4);
      assert.equal((now.lastMessage as { content: string }).content, 'Alô 1');
      const stored = await f.services.db
        .selectFrom('messages')
        .select(['id', 'origin'])
        .where('chat_id', '=', chatId)
        .execute();
      assert.equal(stored.length, 4);
      assert.ok(stored.every((m) => m.origin === 'contact'));

      const another = await inbound(channel, { from: '5511912345678', text: 'Outro' });
      expectStatus(another, 201);
      assert.notEqual(another.json.chatId, chatId);
      const anotherChat = await chat(another.json.chatId as string);
      assert.equal(anotherChat.unreadMessages, 1);
      assert.deepEqual(anotherChat.contact, {
        id: (anotherChat.contact as { id: string }).id,
        name: '5511912345678',
        value: '5511912345678',
      });
    });

    it("opens chats in the channel's configured queue and team", async () => {
      const channel = await f.services.channels.create(f.admin, {
        name: 'Triagem',
        provider: 'sandbox',
        defaultTeamId: f.teams[1]!.id,
        queue: 'Triagem',
      });
      const res = await inbound(channel.id, { from: '5521987650000', text: 'Oi' });
      expectStatus(res, 201);
      const opened = await chat(res.json.chatId as string);
      assert.equal(opened.queue, 'Triagem');
      assert.equal(opened.teamId, f.teams[1]!.id);
      assert.equal(opened.channelId, channel.id);
    });

    it('answers 400 to an invalid phone, a missing text and unknown fields', async () => {
      const channel = f.channels[0]!.id;
      const cases: [unknown, string[]][] = [
        [{ from: 'abc', text: 'x' }, ['from must be a valid phone number']],
        [{ from: '123', text: 'x' }, ['from must be a valid phone number']],
        [{ from: '5511987654321' }, ['text should not be empty']],
        [{ from: '5511987654321', text: '' }, ['text should not be empty']],
        [{ from: '5511987654321', text: 'x', foo: 1 }, ['property foo should not exist']],
      ];
      for (const [body, message] of cases) {
        assert.deepEqual((await inbound(channel, body)).body, badRequest(message), JSON.stringify(body));
      }
    });
  });

  describe('chats', () => {
    let g: Fixture;
    let chats: { a: string; b: string; c: string };
    const as = (token: string) => bearer(token);
    const list = async (token: string, query = '') => {
      const res = await t.request('GET', `/api/chats${query}`, { headers: as(token) });
      expectStatus(res, 200, query);
      return res.json as { total: number; chats: { id: string }[] } & Record<string, unknown>;
    };
    const ids = (page: { chats: { id: string }[] }) => page.chats.map((c) => c.id);

    before(async () => {
      // An account of its own, so the lists hold exactly the chats made here.
      g = await seedAccount(t.server.services);
      chats = {
        a: await g.inbound(0, '5511900000001', 'A'),
        b: await g.inbound(0, '5511900000002', 'B'),
        c: await g.inbound(1, '5511900000003', 'C'),
      };
    });

    it("shows an agent only its teams' chats, and the admin all of them", async () => {
      const all = await list(g.adminToken);
      assert.deepEqual(ids(all), [chats.c, chats.b, chats.a]);
      assert.deepEqual(
        { ...all, chats: undefined },
        { total: 3, page: 1, limit: 20, hasNextPage: false, nextPage: null, chats: undefined },
      );
      assert.deepEqual(ids(await list(g.agents[0]!.token)), [chats.b, chats.a]);
      assert.equal((await list(g.agents[0]!.token)).total, 2);
      assert.deepEqual(ids(await list(g.agents[1]!.token)), [chats.c]);

      const hidden = await t.request('GET', `/api/chats/${chats.c}`, { headers: as(g.agents[0]!.token) });
      assert.deepEqual(hidden.body, NOT_FOUND);
      const shown = await t.request('GET', `/api/chats/${chats.c}`, { headers: as(g.agents[1]!.token) });
      assert.equal(shown.json.id, chats.c);

      const paged = await list(g.adminToken, '?limit=1&page=2');
      assert.deepEqual(ids(paged), [chats.b]);
      assert.equal(paged.hasNextPage, true);
      assert.equal(paged.nextPage, 3);
      assert.deepEqual(ids(await list(g.adminToken, `?channelId=${g.channels[1]!.id}`)), [chats.c]);
      assert.deepEqual(ids(await list(g.adminToken, `?teamId=${g.teams[0]!.id}`)), [chats.b, chats.a]);
    });

    it('filters closed chats with status=closed', async () => {
      const closed = await g.inbound(1, '5511900000004', 'D');
      // No close operation exists yet in the API; the chat is closed in the store directly.
      await g.services.db
        .updateTable('chats')
        .set({ status: 'closed', closed_at: new Date() })
        .where('id', '=', closed)
        .execute();
      const page = await list(g.adminToken, '?status=closed');
      assert.deepEqual(ids(page), [closed]);
      assert.equal(page.total, 1);
      assert.equal((page.chats[0] as unknown as { status: string }).status, 'closed');
      assert.deepEqual(ids(await list(g.adminToken)), [chats.c, chats.b, chats.a]);
      assert.deepEqual(ids(await list(g.adminToken, '?status=open')), [chats.c, chats.b, chats.a]);
      // A closed chat cannot be moved or transferred.
      for (const [path, body] of [
        ['queue', { queue: 'Observação' }],
        ['transfer', { teamId: g.teams[0]!.id }],
      ] as const) {
        const res = await t.request('POST', `/api/chats/${closed}/${path}`, {
          headers: as(g.adminToken),
          body,
        });
        assert.deepEqual(res.body, NOT_FOUND);
      }
    });

    it('hides a chat moved to Observação from the lists unless asked for by queue', async () => {
      const res = await t.request('POST', `/api/chats/${chats.b}/queue`, {
        headers: as(g.agents[0]!.token),
        body: { queue: 'Observação' },
      });
      expectStatus(res, 200);
      assert.equal(res.json.id, chats.b);
      assert.equal(res.json.queue, 'Observação');
      assert.equal(res.json.status, 'open');

      assert.deepEqual(ids(await list(g.adminToken)), [chats.c, chats.a]);
      assert.equal((await list(g.adminToken)).total, 2);
      assert.deepEqual(ids(await list(g.agents[0]!.token)), [chats.a]);
      const q = `?queue=${encodeURIComponent('Observação')}`;
      const observed = await list(g.adminToken, q);
      assert.deepEqual(ids(observed), [chats.b]);
      assert.equal(observed.total, 1);
      assert.deepEqual(ids(await list(g.agents[0]!.token, q)), [chats.b]);
      assert.deepEqual(ids(await list(g.agents[1]!.token, q)), []);
    });

    it('moves to Em Atendimento only with an attendant, and back to Espera without one', async () => {
      const moveA = (queue: string) =>
        t.request('POST', `/api/chats/${chats.a}/queue`, { headers: as(g.adminToken), body: { queue } });
      const refused = await moveA('Em Atendimento');
      assert.deepEqual(
        refused.body,
        badRequest('Um chat sem atendente não pode ir para Em Atendimento; capture ou transfira o chat'),
      );

      const given = await t.request('POST', `/api/chats/${chats.a}/transfer`, {
        headers: as(g.adminToken),
        body: { userId: g.agents[0]!.id },
      });
      expectStatus(given, 200);
      assert.equal(given.json.queue, 'Em Atendimento');
      assert.equal(given.json.userId, g.agents[0]!.id);
      assert.equal(given.json.teamId, g.teams[0]!.id);

      const auto = await moveA('Automação');
      assert.equal(auto.json.queue, 'Automação');
      assert.equal(auto.json.userId, g.agents[0]!.id);
      const waiting = await moveA('Espera');
      expectStatus(waiting, 200);
      assert.equal(waiting.json.queue, 'Espera');
      assert.equal(waiting.json.userId, null);
      assert.equal(waiting.json.teamId, g.teams[0]!.id);
    });

    it('transfers to a team (Espera, no attendant) and to a user (keeps the team), recording the reason', async () => {
      const toTeam = await t.request('POST', `/api/chats/${chats.a}/transfer`, {
        headers: as(g.agents[0]!.token),
        body: { teamId: g.teams[1]!.id, reasonCode: 'N2', reason: 'Precisa do financeiro' },
      });
      expectStatus(toTeam, 200);
      assert.equal(toTeam.json.teamId, g.teams[1]!.id);
      assert.equal(toTeam.json.queue, 'Espera');
      assert.equal(toTeam.json.userId, null);
      const history = await g.services.db
        .selectFrom('chat_transfers')
        .select(['from_team_id', 'to_team_id', 'reason_code', 'reason', 'actor_type', 'actor_id'])
        .where('chat_id', '=', chats.a)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      assert.deepEqual(history, {
        from_team_id: g.teams[0]!.id,
        to_team_id: g.teams[1]!.id,
        reason_code: 'N2',
        reason: 'Precisa do financeiro',
        actor_type: 'user',
        actor_id: g.agents[0]!.id,
      });
      // The chat left agent 0's team: agent 0 no longer sees it, agent 1 does.
      const gone = await t.request('GET', `/api/chats/${chats.a}`, { headers: as(g.agents[0]!.token) });
      assert.deepEqual(gone.body, NOT_FOUND);
      assert.deepEqual(ids(await list(g.agents[1]!.token)), [chats.c, chats.a]);

      const toUser = await t.request('POST', `/api/chats/${chats.c}/transfer`, {
        headers: as(g.adminToken),
        body: { userId: g.agents[0]!.id },
      });
      expectStatus(toUser, 200);
      assert.equal(toUser.json.teamId, g.teams[1]!.id);
      assert.equal(toUser.json.userId, g.agents[0]!.id);
      assert.equal(toUser.json.queue, 'Em Atendimento');
      // Its attendant sees it though the chat is in another team.
      assert.deepEqual(ids(await list(g.agents[0]!.token)), [chats.c]);
    });

    it('answers 400 to transfers naming no target, two targets, or targets that do not exist', async () => {
      const cancelled = await g.services.users.create(g.admin, {
        name: 'Fora',
        email: `fora-${randomUUID()}@example.com`,
        password: '12345678',
        role: 'agent',
        status: 'cancelled',
      });
      const inactive = await g.services.teams.create(g.admin, { name: 'Inativa' });
      await g.services.teams.update(g.admin, inactive.id, { status: 'inactive' });
      const cases: [unknown, string | string[]][] = [
        [{}, ['exactly one of teamId or userId must be given']],
        [
          { teamId: g.teams[0]!.id, userId: g.agents[0]!.id },
          ['exactly one of teamId or userId must be given'],
        ],
        [{ teamId: other.teams[0]!.id }, 'Equipe não encontrada'],
        [{ teamId: inactive.id }, 'Equipe não encontrada'],
        [{ userId: other.agents[0]!.id }, 'Usuário não encontrado'],
        [{ userId: cancelled.id }, 'Usuário não encontrado'],
        [{ teamId: 'x' }, ['teamId must be a 24-character hexadecimal id']],
        [{ teamId: g.teams[0]!.id, foo: 1 }, ['property foo should not exist']],
        [
          { teamId: g.teams[0]!.id, reasonCode: 'x'.repeat(65) },
          ['reasonCode must be shorter than or equal to 64 characters'],
        ],
      ];
      const before = (await t.request('GET', `/api/chats/${chats.c}`, { headers: as(g.adminToken) })).json;
      for (const [body, message] of cases) {
        const res = await t.request('POST', `/api/chats/${chats.c}/transfer`, {
          headers: as(g.adminToken),
          body,
        });
        assert.deepEqual(res.body, badRequest(message), JSON.stringify(body));
      }
      const afterAll = (await t.request('GET', `/api/chats/${chats.c}`, { headers: as(g.adminToken) })).json;
      assert.deepEqual(afterAll, before);
    });

    it('validates list queries', async () => {
      const cases: [string, string[]][] = [
        ['?foo=1', ['property foo should not exist']],
        ['?limit=101', ['limit must not be greater than 100']],
        ['?limit=0', ['limit must not be less than 1']],
        ['?page=0', ['page must not be less than 1']],
        ['?limit=abc', ['limit must be an integer number']],
        ['?status=waiting', ['status must be one of the following values: open, pending, closed, snoozed']],
        ['?channelId=123', ['channelId must be a 24-character hexadecimal id']],
      ];
      for (const [query, message] of cases) {
        const res = await t.request('GET', `/api/chats${query}`, { headers: as(g.adminToken) });
        assert.deepEqual(res.body, badRequest(message), query);
      }
    });
  });
});

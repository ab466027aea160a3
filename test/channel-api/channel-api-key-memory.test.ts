import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';

// A node keeps the account API keys it has read in memory (a key never changes but by revocation) and
// checks them as it works, without a lookup of their own. A key revoked through another node must
// still stop at once on this one, on every account-key route and whatever the request would have
// answered (a page, a 400, a 404).

const UNAUTHORIZED = { statusCode: 401, message: 'Credencial ausente ou inválida', error: 'Unauthorized' };

let phoneSeq = 0;
const phone = () => `5511966${String(++phoneSeq).padStart(6, '0')}`;

describe('account API keys remembered by a node', () => {
  let a: TestApp;
  let b: TestApp;
  let f: Fixture;
  let chatId: string;

  before(async () => {
    a = await startTestApp();
    b = await startTestApp({ databaseUrl: a.databaseUrl });
    f = await seedAccount(a.server.services);
    chatId = await f.inbound(0, phone());
  });
  after(async () => {
    await b?.close();
    await a?.close();
  });

  const call = (t: TestApp, key: string, request: { method: 'GET' | 'POST'; path: string; body?: unknown }) =>
    t.request(request.method, request.path, {
      headers: { authorization: `ApiKey ${key}` },
      ...(request.body !== undefined ? { body: request.body } : {}),
    });

  const cases = () =>
    [
      { name: 'list chats', method: 'GET', path: '/channel-api/chats' },
      {
        name: 'list chats, a query that fails validation',
        method: 'GET',
        path: '/channel-api/chats?limit=x',
      },
      {
        name: 'list chats in the hidden queue',
        method: 'GET',
        path: '/channel-api/chats?queue=Observa%C3%A7%C3%A3o',
      },
      { name: 'list users', method: 'GET', path: '/channel-api/users' },
      { name: 'list teams', method: 'GET', path: '/channel-api/teams' },
      {
        name: 'transfer to a team',
        method: 'POST',
        path: `/channel-api/chats/${chatId}/transfer/team`,
        body: { teamId: f.teams[1]!.id },
      },
      {
        name: 'transfer of a chat that does not exist',
        method: 'POST',
        path: '/channel-api/chats/6b0918febe4b5b90c9021d00/transfer/user',
        body: { userId: f.agents[0]!.id },
      },
      {
        name: 'transfer with a body that fails validation',
        method: 'POST',
        path: `/channel-api/chats/${chatId}/transfer/team`,
        body: { teamId: 42 },
      },
    ] as const;

  it('a key revoked through another node answers 401 at once on every route', async () => {
    for (const c of cases()) {
      const key = await f.services.apiKeys.create(f.admin, {
        name: `lembrada ${c.name}`,
        scopes: ['chats:read', 'chats:transfer', 'users:read', 'teams:read'],
        channelIds: null,
      });
      // Node A reads the key once and keeps it.
      assert.equal((await call(a, key.token, { method: 'GET', path: '/channel-api/users' })).status, 200);
      const revoked = await b.request('DELETE', `/api/api-keys/${key.id}`, {
        headers: { authorization: `Bearer ${f.adminToken}` },
      });
      assert.equal(revoked.status, 204, c.name);
      const res = await call(a, key.token, c);
      assert.equal(res.status, 401, `${c.name}: ${JSON.stringify(res.body)}`);
      assert.deepEqual(res.body, UNAUTHORIZED, c.name);
      // And it stays refused (no longer remembered).
      assert.equal((await call(a, key.token, c)).status, 401, c.name);
    }
  });

  it('a remembered key keeps working, and a wrong secret for it is still refused', async () => {
    const key = await f.services.apiKeys.create(f.admin, {
      name: 'lembrada',
      scopes: ['chats:read'],
      channelIds: null,
    });
    for (let i = 0; i < 3; i++) {
      assert.equal((await call(a, key.token, { method: 'GET', path: '/channel-api/chats' })).status, 200);
    }
    const wrong = `${key.token.slice(0, -1)}${key.token.endsWith('A') ? 'B' : 'A'}`;
    const res = await call(a, wrong, { method: 'GET', path: '/channel-api/chats' });
    assert.equal(res.status, 401);
    assert.deepEqual(res.body, UNAUTHORIZED);
    assert.equal((await call(a, key.token, { method: 'GET', path: '/channel-api/chats' })).status, 200);
  });
});

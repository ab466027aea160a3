import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';

// Notification preferences: each user's own (which moments the console announces with a sound and a
// desktop notification), the defaults until changed, replaced whole, validated with the contract's
// error body.

const DEFAULTS = {
  newChat: { sound: true, desktop: true },
  newMessage: { sound: true, desktop: true },
  transfer: { sound: true, desktop: true },
  mention: { sound: true, desktop: true },
};

describe('notification preferences', () => {
  let t: TestApp;
  let f: Fixture;
  const as = (token: string) => ({ authorization: `Bearer ${token}` });
  const PATH = '/api/me/notification-preferences';

  before(async () => {
    t = await startTestApp();
    f = await seedAccount(t.server.services);
  });
  after(async () => {
    await t?.close();
  });

  it('are the defaults until changed, then the user’s own, kept and replaced whole', async () => {
    const first = await t.request('GET', PATH, { headers: as(f.agents[0]!.token) });
    assert.equal(first.status, 200);
    assert.deepEqual(first.json, { ...DEFAULTS, updatedAt: null });

    const mine = {
      newChat: { sound: true, desktop: false },
      newMessage: { sound: false, desktop: false },
      transfer: { sound: true, desktop: true },
      mention: { sound: false, desktop: true },
    };
    const put = await t.request('PUT', PATH, { headers: as(f.agents[0]!.token), body: mine });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    const { updatedAt, ...prefs } = put.json;
    assert.deepEqual(prefs, mine);
    assert.ok(typeof updatedAt === 'string' && !Number.isNaN(Date.parse(updatedAt)));
    assert.deepEqual((await t.request('GET', PATH, { headers: as(f.agents[0]!.token) })).json, put.json);

    // Another user's are untouched.
    assert.deepEqual((await t.request('GET', PATH, { headers: as(f.agents[1]!.token) })).json, {
      ...DEFAULTS,
      updatedAt: null,
    });

    // A second change replaces the first.
    const again = await t.request('PUT', PATH, { headers: as(f.agents[0]!.token), body: DEFAULTS });
    assert.equal(again.status, 200);
    assert.deepEqual({ ...again.json, updatedAt: null }, { ...DEFAULTS, updatedAt: null });
    const stored = await t.server.services.db
      .selectFrom('notification_preferences')
      .select(['user_id', 'account_id'])
      .execute();
    assert.deepEqual(stored, [{ user_id: f.agents[0]!.id, account_id: f.accountId }]);
  });

  it('refuses a body that is not every moment with both ways, with the error body', async () => {
    const bad: unknown[] = [
      {},
      { ...DEFAULTS, newChat: { sound: true } },
      { ...DEFAULTS, newChat: { sound: 'maybe', desktop: true } },
      { ...DEFAULTS, extra: { sound: true, desktop: true } },
      { ...DEFAULTS, mention: { sound: true, desktop: true, vibrate: true } },
      { ...DEFAULTS, transfer: null },
      [DEFAULTS],
    ];
    for (const body of bad) {
      const res = await t.request('PUT', PATH, { headers: as(f.agents[1]!.token), body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.json.statusCode, 400);
      assert.equal(res.json.error, 'Bad Request');
      assert.ok(Array.isArray(res.json.message) || typeof res.json.message === 'string');
    }
    // Nothing was stored.
    assert.equal((await t.request('GET', PATH, { headers: as(f.agents[1]!.token) })).json.updatedAt, null);
  });

  it('need a signed-in user', async () => {
    assert.equal((await t.request('GET', PATH)).status, 401);
    assert.equal((await t.request('PUT', PATH, { body: DEFAULTS })).status, 401);
    // An account API key is not a user.
    assert.equal((await t.request('GET', PATH, { headers: f.authHeader() })).status, 401);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from './helpers/app.js';
import { seedAccount, type Fixture } from './helpers/fixtures.js';

describe('smoke', () => {
  let t: TestApp;
  let f: Fixture;
  before(async () => {
    t = await startTestApp();
    f = await seedAccount(t.server.services);
  });
  after(async () => t?.close());

  it('lists chats', async () => {
    await f.inbound(0, '5511987654321', 'Oi');
    const res = await t.request('GET', '/channel-api/chats', { headers: f.authHeader() });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    console.log(JSON.stringify(res.body));
    const bad = await t.request('GET', '/channel-api/chats?limit=101&foo=1', { headers: f.authHeader() });
    console.log(JSON.stringify(bad.body));
  });
});

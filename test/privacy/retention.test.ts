import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';

// An account's retention: set by admins, enforced by the housekeeping round on exactly what is older,
// in this account only.

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('retention', () => {
  let t: TestApp;
  let f: Fixture;
  let other: Fixture;
  let db: pg.Pool;
  let chat: string;
  let otherChat: string;

  before(async () => {
    t = await startTestApp({ env: { ATENDE_ROLES: 'api' } });
    f = await seedAccount(t.server.services);
    other = await seedAccount(t.server.services);
    db = new pg.Pool({ connectionString: t.databaseUrl, max: 2 });
    chat = await f.inbound(0, '5511977000001', 'Oi');
    otherChat = await other.inbound(0, '5511977000001', 'Oi');
  });
  after(async () => {
    await db?.end();
    await t?.close();
  });

  /** Messages `days` old (a minute more or less than the limit), one with a file. */
  async function aged(
    chatId: string,
    accountId: string,
    label: string,
    days: number,
    file: boolean,
  ): Promise<string> {
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO messages (id, account_id, chat_id, channel_id, origin, type, content, status, created_at, updated_at)
       SELECT substr(md5(random()::text), 1, 24), account_id, id, channel_id, 'contact', 'text',
              jsonb_build_object('text', $2::text), 'received', now() - make_interval(days => $3::int), now()
       FROM chats WHERE id = $1 RETURNING id`,
      [chatId, label, days],
    );
    const id = rows[0]!.id;
    if (file) {
      await t.server.services.mediaStore.put(
        t.server.services.db,
        { key: id, accountId, mimetype: 'image/png', filename: 'a.png' },
        Buffer.from('png'),
      );
    }
    return id;
  }
  const texts = async (chatId: string) =>
    (
      await db.query<{ t: string }>(
        `SELECT content->>'text' AS t FROM messages WHERE chat_id = $1 ORDER BY t`,
        [chatId],
      )
    ).rows.map((r) => r.t);
  const files = async (ids: string[]) =>
    (await db.query(`SELECT 1 FROM media_objects WHERE message_id = ANY($1)`, [ids])).rowCount;

  it('admins set it; others are refused; bad values are 400', async () => {
    const put = (token: string, body: unknown) =>
      t.request('PUT', '/api/retention', { headers: bearer(token), body });
    assert.deepEqual((await t.request('GET', '/api/retention', { headers: bearer(f.adminToken) })).json, {
      days: null,
      scope: 'messages',
    });
    assert.equal((await put(f.agents[0]!.token, { days: 30, scope: 'messages' })).status, 403);
    assert.equal((await put(f.adminToken, { days: 0, scope: 'messages' })).status, 400);
    assert.equal((await put(f.adminToken, { days: 30, scope: 'everything' })).status, 400);
    const ok = await put(f.adminToken, { days: 30, scope: 'media' });
    assert.equal(ok.status, 200);
    assert.deepEqual((await t.request('GET', '/api/retention', { headers: bearer(f.adminToken) })).json, {
      days: 30,
      scope: 'media',
    });
    // Another account's setting is its own.
    assert.equal(
      (await t.request('GET', '/api/retention', { headers: bearer(other.adminToken) })).json.days,
      null,
    );
  });

  it('media only: files older than the limit go, their messages stay', async () => {
    const old = await aged(chat, f.accountId, 'old-file', 31, true);
    const young = await aged(chat, f.accountId, 'young-file', 29, true);
    const theirs = await aged(otherChat, other.accountId, 'their-old-file', 400, true);
    await t.server.services.retention.enforce();
    assert.equal(await files([old]), 0);
    assert.equal(await files([young, theirs]), 2);
    assert.ok((await texts(chat)).includes('old-file'));
  });

  it('messages: exactly those older than the limit go, with their files', async () => {
    await t.request('PUT', '/api/retention', {
      headers: bearer(f.adminToken),
      body: { days: 30, scope: 'messages' },
    });
    await aged(chat, f.accountId, 'young', 29, false);
    await aged(chat, f.accountId, 'old', 31, false);
    const oldFile = await aged(chat, f.accountId, 'old-with-file', 45, true);
    assert.ok((await t.server.services.retention.enforce()) >= 3);
    assert.deepEqual(await texts(chat), ['Oi', 'young', 'young-file']);
    assert.equal(await files([oldFile]), 0);
    assert.ok((await texts(otherChat)).includes('their-old-file'));
    // Nothing left to do: the next round changes nothing.
    assert.equal(await t.server.services.retention.enforce(), 0);
  });
});

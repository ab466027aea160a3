import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { inflateRawSync } from 'node:zlib';
import pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';

// A person's rights (LGPD): the export holds everything about them, streamed as one ZIP; the erasure
// leaves nothing personal in any table, in batches that finish after a run is cut short.

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** The files of a ZIP, read from its central directory. */
function unzip(buf: Buffer): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const eocd = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  assert.ok(eocd >= 0, 'end of central directory');
  const count = buf.readUInt16LE(eocd + 10);
  let at = buf.readUInt32LE(eocd + 16);
  for (let i = 0; i < count; i++) {
    assert.equal(buf.readUInt32LE(at), 0x02014b50);
    const method = buf.readUInt16LE(at + 10);
    const size = buf.readUInt32LE(at + 20);
    const nameLen = buf.readUInt16LE(at + 28);
    const extraLen = buf.readUInt16LE(at + 30) + buf.readUInt16LE(at + 32);
    const local = buf.readUInt32LE(at + 42);
    const name = buf.subarray(at + 46, at + 46 + nameLen).toString('utf8');
    const dataAt = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const data = buf.subarray(dataAt, dataAt + size);
    files.set(name, method === 8 ? inflateRawSync(data) : data);
    at += 46 + nameLen + extraLen;
  }
  return files;
}

describe('data subject rights', () => {
  let t: TestApp;
  let f: Fixture;
  let other: Fixture;
  let db: pg.Pool;
  const phone = `5511988${String(Date.now() % 1e6).padStart(6, '0')}`;
  const NAME = 'Joana Privacidade';
  const MANY = 1200;
  let customerId: string;
  let chatIds: string[];
  let mediaMessageId: string;
  const FILE = Buffer.from('%PDF-1.4 conteúdo pessoal da Joana');

  before(async () => {
    t = await startTestApp({ env: { ATENDE_ROLES: 'api' } });
    f = await seedAccount(t.server.services);
    other = await seedAccount(t.server.services);
    db = new pg.Pool({ connectionString: t.databaseUrl, max: 2 });
    const first = await f.inbound(0, phone, 'Meu CPF é 123', NAME);
    const second = await f.inbound(1, phone, 'Oi de novo pelo outro canal');
    await other.inbound(0, phone, 'Outra conta', NAME);
    chatIds = [first, second];
    customerId = (await t.request('GET', `/api/chats/${first}`, { headers: bearer(f.adminToken) })).json
      .customerId as string;
    // Many messages in one conversation: more than a page of the export and a batch of the erasure.
    await db.query(
      `INSERT INTO messages (id, account_id, chat_id, channel_id, origin, type, content, status, created_at, updated_at)
       SELECT substr(md5(random()::text || g), 1, 24), c.account_id, c.id, c.channel_id, 'contact', 'text',
              jsonb_build_object('text', 'mensagem ' || g), 'received', now() + g * interval '1 ms', now()
       FROM chats c, generate_series(1, $2) g WHERE c.id = $1`,
      [first, MANY],
    );
    mediaMessageId = (
      await db.query<{ id: string }>(
        `SELECT id FROM messages WHERE chat_id = $1 ORDER BY created_at LIMIT 1`,
        [second],
      )
    ).rows[0]!.id;
    await t.server.services.mediaStore.put(
      t.server.services.db,
      {
        key: mediaMessageId,
        accountId: f.accountId,
        mimetype: 'application/pdf',
        filename: 'rg/da joana.pdf',
      },
      FILE,
    );
    await t.request('POST', `/api/customers/${customerId}/notes`, {
      headers: bearer(f.adminToken),
      body: { body: 'Cliente pediu desconto' },
    });
    await db.query(
      `INSERT INTO drafts (user_id, chat_id, account_id, text) VALUES ($1, $2, $3, 'rascunho')`,
      [f.agents[0]!.id, first, f.accountId],
    );
  });
  after(async () => {
    await db?.end();
    await t?.close();
  });

  const download = async (id: string, token: string) =>
    fetch(`${t.url}/api/contacts/${id}/export`, { headers: bearer(token) });

  it('exports the person: profile, every conversation and message, the files', async () => {
    // The id of one contact (an address) names the same person as the customer's id.
    const contactId = (
      await db.query<{ id: string }>(`SELECT id FROM contacts WHERE customer_id = $1 LIMIT 1`, [customerId])
    ).rows[0]!.id;
    for (const id of [customerId, contactId]) {
      const res = await download(id, f.adminToken);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/zip');
      const files = unzip(Buffer.from(await res.arrayBuffer()));
      const contact = JSON.parse(files.get('contact.json')!.toString('utf8'));
      assert.equal(contact.id, customerId);
      assert.equal(contact.name, NAME);
      assert.deepEqual(
        contact.contacts.map((c: { value: string }) => c.value),
        [phone, phone],
      );
      assert.equal(contact.notes[0].body, 'Cliente pediu desconto');
      const conversations = JSON.parse(files.get('conversations.json')!.toString('utf8'));
      assert.deepEqual(conversations.map((c: { id: string }) => c.id).sort(), [...chatIds].sort());
      const total = conversations.reduce((n: number, c: { messages: unknown[] }) => n + c.messages.length, 0);
      assert.equal(total, MANY + 2);
      const big = conversations.find((c: { id: string }) => c.id === chatIds[0]);
      const texts = big.messages.map((m: { content: { text: string } }) => m.content.text);
      assert.equal(texts[0], 'Meu CPF é 123');
      assert.equal(texts[MANY], `mensagem ${MANY}`);
      assert.equal(new Set(big.messages.map((m: { id: string }) => m.id)).size, MANY + 1);
      assert.deepEqual(files.get(`media/${mediaMessageId}-rg_da joana.pdf`), FILE);
    }
  });

  it('only admins, only their account', async () => {
    assert.equal((await download(customerId, f.agents[0]!.token)).status, 403);
    assert.equal((await download(customerId, other.adminToken)).status, 404);
    const erase = (token: string, body: unknown) =>
      t.request('POST', `/api/contacts/${customerId}/erase`, { headers: bearer(token), body });
    assert.equal((await erase(f.agents[0]!.token, { confirm: 'ERASE' })).status, 403);
    assert.equal((await erase(other.adminToken, { confirm: 'ERASE' })).status, 404);
    assert.equal((await erase(f.adminToken, {})).status, 400);
    assert.equal((await erase(f.adminToken, { confirm: 'yes' })).status, 400);
  });

  it('erases everything personal, finishing after a run cut short', async () => {
    // Before: the event log and the stored provider deliveries hold the person's number and name.
    const before = await db.query<{ n: number }>(
      `SELECT (SELECT count(*) FROM events WHERE account_id = $1 AND data::text LIKE '%' || $2 || '%')::int
            + (SELECT count(*) FROM notifications WHERE account_id = $1)::int AS n`,
      [f.accountId, NAME],
    );
    assert.ok(before.rows[0]!.n > 0);
    const res = await t.request('POST', `/api/contacts/${customerId}/erase`, {
      headers: bearer(f.adminToken),
      body: { confirm: 'ERASE' },
    });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    assert.equal(res.json.status, 'running');
    const erasureId = res.json.id as string;
    // Asked again while it runs: the same erasure.
    const again = await t.request('POST', `/api/contacts/${customerId}/erase`, {
      headers: bearer(f.adminToken),
      body: { confirm: 'ERASE' },
    });
    assert.equal(again.json.id, erasureId);

    const erasures = t.server.services.erasures;
    // The first run stops after one batch, as a crash would: part of the messages are gone.
    assert.equal(await erasures.process(erasureId, { maxBatches: 1 }), false);
    const left = await db.query(`SELECT count(*)::int AS n FROM messages WHERE chat_id = ANY($1)`, [chatIds]);
    assert.equal(left.rows[0].n, MANY + 2 - 1000);
    assert.equal(await erasures.process(erasureId), true);

    const record = await t.request('GET', `/api/erasures/${erasureId}`, { headers: bearer(f.adminToken) });
    assert.equal(record.json.status, 'done');
    assert.equal((record.json.counts as Record<string, number>).messages, MANY + 2);
    assert.equal(
      (await t.request('GET', `/api/erasures/${erasureId}`, { headers: bearer(other.adminToken) })).status,
      404,
    );

    // Nothing personal anywhere: every table that held the person's name, number, words or file.
    const traces = [phone, NAME, 'Meu CPF', 'mensagem 1', 'conteúdo pessoal', 'rascunho', 'desconto'];
    const tables: [string, string][] = [
      ['contacts', `SELECT row_to_json(x)::text AS t FROM contacts x WHERE account_id = $1`],
      ['customers', `SELECT row_to_json(x)::text AS t FROM customers x WHERE account_id = $1`],
      ['messages', `SELECT row_to_json(x)::text AS t FROM messages x WHERE account_id = $1`],
      ['chats', `SELECT row_to_json(x)::text AS t FROM chats x WHERE account_id = $1`],
      ['events', `SELECT data::text AS t FROM events WHERE account_id = $1`],
      [
        'webhooks',
        `SELECT e.data::text AS t FROM webhook_deliveries d JOIN events e ON e.seq = d.event_seq WHERE d.account_id = $1`,
      ],
      ['request_logs', `SELECT row_to_json(x)::text AS t FROM request_logs x WHERE account_id = $1`],
      ['inbound', `SELECT body::text AS t FROM inbound_webhook_events WHERE account_id = $1`],
      ['notifications', `SELECT data::text AS t FROM notifications WHERE account_id = $1`],
      ['drafts', `SELECT text AS t FROM drafts WHERE account_id = $1`],
      ['notes', `SELECT body AS t FROM customer_notes WHERE account_id = $1`],
      ['chat notes', `SELECT text AS t FROM chat_notes WHERE account_id = $1`],
      ['merges', `SELECT row_to_json(x)::text AS t FROM customer_merges x WHERE account_id = $1`],
      [
        'media',
        `SELECT encode(bytes, 'escape') AS t FROM media_chunks c JOIN media_objects o USING (message_id) WHERE o.account_id = $1`,
      ],
      ['erasures', `SELECT row_to_json(x)::text AS t FROM erasures x WHERE account_id = $1`],
    ];
    for (const [table, query] of tables) {
      const { rows } = await db.query<{ t: string }>(query, [f.accountId]);
      for (const row of rows)
        for (const trace of traces) assert.ok(!row.t.includes(trace), `${table}: ${trace} in ${row.t}`);
    }
    const media = await db.query(`SELECT 1 FROM media_objects WHERE message_id = $1`, [mediaMessageId]);
    assert.equal(media.rowCount, 0);
    // The conversations remain as shells for reports; the other account's customer is untouched.
    assert.equal((await db.query(`SELECT 1 FROM chats WHERE id = ANY($1)`, [chatIds])).rowCount, 2);
    const theirs = await db.query(
      `SELECT count(*)::int AS n FROM contacts WHERE account_id = $1 AND value = $2`,
      [other.accountId, phone],
    );
    assert.equal(theirs.rows[0].n, 1);

    // Idempotent: asked again, a new empty erasure that finishes at once.
    const repeat = await t.request('POST', `/api/contacts/${customerId}/erase`, {
      headers: bearer(f.adminToken),
      body: { confirm: 'ERASE' },
    });
    assert.equal(repeat.status, 202);
    assert.equal(await erasures.process(repeat.json.id as string), true);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { inTransaction } from '../../src/db/index.js';
import { migrateTo, migrateToLatest } from '../../src/db/migrate.js';
import { createTestDatabase } from '../helpers/db.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { startTestServices, type TestServices } from '../helpers/services.js';

// Customers: the person behind a channel's contacts (migration 027). Every way of writing a contact
// gets its customer from the database: the account's earlier contact with the same value on another
// channel, else a customer of its own with the contact's id.

describe('customers', () => {
  let t: TestServices;
  let f: Fixture;
  let other: Fixture;
  let db: pg.Pool;
  const customerOf = async (contactId: string) =>
    (await db.query<{ customer_id: string }>('SELECT customer_id FROM contacts WHERE id = $1', [contactId]))
      .rows[0]?.customer_id;
  const contactOfChat = async (chatId: string) =>
    (await db.query<{ contact_id: string }>('SELECT contact_id FROM chats WHERE id = $1', [chatId])).rows[0]!
      .contact_id;

  before(async () => {
    t = await startTestServices();
    f = await seedAccount(t.services);
    other = await seedAccount(t.services);
    db = new pg.Pool({ connectionString: t.databaseUrl, max: 2 });
  });
  after(async () => {
    await db?.end();
    await t?.close();
  });

  it('a new contact is a customer of its own, with the same id and the name it came with', async () => {
    const contact = await contactOfChat(await f.inbound(0, '5511900000001', 'Oi', 'Rita'));
    assert.equal(await customerOf(contact), contact);
    const row = await db.query('SELECT account_id, name FROM customers WHERE id = $1', [contact]);
    assert.deepEqual(row.rows[0], { account_id: f.accountId, name: 'Rita' });
  });

  it('the same number on another channel of the account is the same customer; another account’s is not', async () => {
    const first = await contactOfChat(await f.inbound(0, '5511900000002', 'Oi', 'Caio'));
    const second = await contactOfChat(await f.inbound(1, '5511900000002', 'Oi de novo', 'Caio'));
    assert.notEqual(first, second);
    assert.equal(await customerOf(second), first);
    const foreign = await contactOfChat(await other.inbound(0, '5511900000002', 'Oi', 'Caio'));
    assert.equal(await customerOf(foreign), foreign);
    const count = await db.query('SELECT count(*)::int AS n FROM customers WHERE id IN ($1, $2)', [
      second,
      foreign,
    ]);
    assert.equal(count.rows[0].n, 1); // only the foreign one has a row of its own
  });

  it('another number is another customer', async () => {
    const a = await contactOfChat(await f.inbound(0, '5511900000003'));
    const b = await contactOfChat(await f.inbound(0, '5511900000004'));
    assert.notEqual(await customerOf(a), await customerOf(b));
  });

  it('contacts of one value written together on two channels share the earliest one’s customer', async () => {
    const { contacts } = t.services.repos;
    const rows = [f.channels[1]!.id, f.channels[0]!.id].map((channelId, i) => ({
      id: `c${i}${Date.now().toString(16)}`.padEnd(24, '0').slice(0, 24),
      account_id: f.accountId,
      channel_id: channelId,
      type: 'phone' as const,
      value: '5511900000005',
      name: null,
    }));
    const written = await inTransaction(t.services.db, (tx) => contacts.findOrCreateMany(tx, rows));
    const ids = written.map((w) => w.id).sort();
    const customers = await Promise.all(ids.map(customerOf));
    assert.deepEqual(customers, [ids[0], ids[0]]);
    // Found again (a conflict writes nothing): no customer is made for nothing.
    await inTransaction(t.services.db, (tx) => contacts.findOrCreateMany(tx, rows));
    const made = await db.query(
      `SELECT count(*)::int AS n FROM customers WHERE account_id = $1 AND id NOT IN (SELECT customer_id FROM contacts)`,
      [f.accountId],
    );
    assert.equal(made.rows[0].n, 0);
  });
});

describe('customers: the upgrade', () => {
  it('groups the contacts stored before by account, type and value, named by the latest name', async () => {
    const database = await createTestDatabase();
    const pool = new pg.Pool({ connectionString: database.url, max: 2 });
    const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
    try {
      await migrateTo(db, '026_media_blob_chunks');
      await pool.query(`
        INSERT INTO accounts (id, name) VALUES ('a1', 'Conta'), ('a2', 'Outra');
        INSERT INTO teams (id, account_id, name) VALUES ('t1', 'a1', 'Equipe'), ('t2', 'a2', 'Equipe');
        INSERT INTO channels (id, account_id, name, provider, provider_config, default_team_id) VALUES
          ('ch1', 'a1', 'Um', 'sandbox', '{}', 't1'), ('ch2', 'a1', 'Dois', 'sandbox', '{}', 't1'),
          ('ch3', 'a2', 'Três', 'sandbox', '{}', 't2');
        INSERT INTO contacts (id, account_id, channel_id, type, value, name, created_at, updated_at) VALUES
          ('k1', 'a1', 'ch1', 'phone', '5511911111111', 'Ana', now() - interval '2 days', now() - interval '2 days'),
          ('k2', 'a1', 'ch2', 'phone', '5511911111111', 'Ana Souza', now() - interval '1 day', now()),
          ('k3', 'a1', 'ch1', 'phone', '5511922222222', NULL, now(), now()),
          ('k4', 'a2', 'ch3', 'phone', '5511911111111', 'Outra Ana', now(), now());
      `);
      await migrateToLatest(db);
      const contacts = await pool.query('SELECT id, customer_id FROM contacts ORDER BY id');
      assert.deepEqual(contacts.rows, [
        { id: 'k1', customer_id: 'k1' },
        { id: 'k2', customer_id: 'k1' },
        { id: 'k3', customer_id: 'k3' },
        { id: 'k4', customer_id: 'k4' },
      ]);
      const customers = await pool.query('SELECT id, account_id, name FROM customers ORDER BY id');
      assert.deepEqual(customers.rows, [
        { id: 'k1', account_id: 'a1', name: 'Ana Souza' },
        { id: 'k3', account_id: 'a1', name: null },
        { id: 'k4', account_id: 'a2', name: 'Outra Ana' },
      ]);
    } finally {
      await db.destroy();
      await database.drop();
    }
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { migrateTo, migrateToLatest } from '../../src/db/migrate.js';
import { createTestDatabase } from '../helpers/db.js';

// Upgrading to the version that downloads customers' files: files received before were never
// downloaded and have no job, so they are marked failed rather than shown as waiting forever.

describe('media store upgrade', () => {
  let database: { url: string; drop: () => Promise<void> };
  let db: Kysely<unknown>;
  let pool: pg.Pool;

  before(async () => {
    database = await createTestDatabase();
    pool = new pg.Pool({ connectionString: database.url, max: 2 });
    db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
  });
  after(async () => {
    await db?.destroy();
    await pool?.end().catch(() => undefined);
    await database?.drop();
  });

  it('marks earlier customers’ files not downloaded, and leaves text and agents’ files alone', async () => {
    await migrateTo(db, '010_user_token_version');
    await pool.query(`
      INSERT INTO accounts (id, name) VALUES ('a1', 'Conta');
      INSERT INTO teams (id, account_id, name) VALUES ('t1', 'a1', 'Equipe');
      INSERT INTO channels (id, account_id, name, provider, provider_config, default_team_id)
        VALUES ('ch1', 'a1', 'WhatsApp', 'whatsapp-cloud', '{}', 't1');
      INSERT INTO contacts (id, account_id, channel_id, type, value) VALUES ('c1', 'a1', 'ch1', 'phone', '5511987650001');
      INSERT INTO chats (id, account_id, channel_id, contact_id, team_id, queue) VALUES ('k1', 'a1', 'ch1', 'c1', 't1', 'Espera');
      INSERT INTO messages (id, account_id, chat_id, channel_id, origin, type, content, status) VALUES
        ('m1', 'a1', 'k1', 'ch1', 'contact', 'image', '{"media":{"id":"wa1","mimetype":"image/jpeg"}}', 'received'),
        ('m2', 'a1', 'k1', 'ch1', 'contact', 'text', '{"text":"Oi"}', 'received'),
        ('m3', 'a1', 'k1', 'ch1', 'user', 'document', '{"media":{"kind":"document","mimetype":"application/pdf"}}', 'sent');
    `);
    await migrateToLatest(db);
    const rows = await pool.query<{ id: string; content: unknown }>(
      'SELECT id, content FROM messages ORDER BY id',
    );
    assert.deepEqual(rows.rows, [
      {
        id: 'm1',
        content: {
          media: {
            id: 'wa1',
            mimetype: 'image/jpeg',
            status: 'failed',
            error: { code: 'not_downloaded', message: 'Received before files were downloaded' },
          },
        },
      },
      { id: 'm2', content: { text: 'Oi' } },
      { id: 'm3', content: { media: { kind: 'document', mimetype: 'application/pdf' } } },
    ]);
  });
});

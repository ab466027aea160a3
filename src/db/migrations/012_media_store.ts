import { sql, type Kysely } from 'kysely';

/**
 * The media store (src/modules/media/media-store.ts): the bytes of every message's file, in chunks of
 * a fixed size so that a file is written and read a slice at a time (never whole in memory) and a
 * byte range is a few rows. Keyed by the message: its file goes with it (chat, channel or account
 * deleted). Chunks are stored uncompressed: media is compressed already, and PostgreSQL's own
 * compression would only spend CPU on it. A file is visible once `complete`: a download cut short
 * leaves a row the next attempt replaces.
 *
 * Customers' files received before this version were never downloaded and have no download queued:
 * they are marked `failed` (`not_downloaded`), so the console does not show them as waiting forever.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
CREATE TABLE media_objects (
  message_id text PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  mimetype text NOT NULL,
  filename text,
  size bigint NOT NULL DEFAULT 0,
  chunk_size integer NOT NULL,
  sha256 bytea,
  complete boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE media_chunks (
  message_id text NOT NULL REFERENCES media_objects(message_id) ON DELETE CASCADE,
  seq integer NOT NULL,
  bytes bytea NOT NULL,
  PRIMARY KEY (message_id, seq)
);
ALTER TABLE media_chunks ALTER COLUMN bytes SET STORAGE EXTERNAL;

UPDATE messages
   SET content = jsonb_set(content, '{media}', (content->'media') || jsonb_build_object(
         'status', 'failed',
         'error', jsonb_build_object('code', 'not_downloaded',
                                     'message', 'Received before files were downloaded')))
 WHERE origin = 'contact'
   AND jsonb_typeof(content->'media') = 'object'
   AND NOT (content->'media' ? 'status');
`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE media_chunks; DROP TABLE media_objects;`.execute(db);
}

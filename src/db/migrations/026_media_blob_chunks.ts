import { sql, type Kysely } from 'kysely';

/**
 * Waiting outbound files in chunks (src/modules/media/media-blobs.repo.ts): a Channel API media send
 * keeps its file until the provider has it, and a file held whole in one bytea column is written and
 * read in one piece — a 100 MB file became a 200 MB hex string on the event loop. Chunks of the media
 * store's size instead. Rows written before keep their `bytes` and are read in slices; nothing is
 * moved, so nodes of the previous version keep working during a rolling upgrade.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
ALTER TABLE media_blobs ALTER COLUMN bytes DROP NOT NULL;
ALTER TABLE media_blobs ADD COLUMN size bigint, ADD COLUMN chunk_size integer;
CREATE TABLE media_blob_chunks (
  blob_id text NOT NULL REFERENCES media_blobs(id) ON DELETE CASCADE,
  seq integer NOT NULL,
  bytes bytea NOT NULL,
  PRIMARY KEY (blob_id, seq)
);
ALTER TABLE media_blob_chunks ALTER COLUMN bytes SET STORAGE EXTERNAL;
`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
DROP TABLE media_blob_chunks;
ALTER TABLE media_blobs DROP COLUMN size, DROP COLUMN chunk_size;
`.execute(db);
}

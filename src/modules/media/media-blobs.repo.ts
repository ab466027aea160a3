import { sql } from 'kysely';
import type { Db, Tx } from '../../db/index.js';
import { rechunk } from '../../lib/chunks.js';
import { CHUNK_SIZE } from './media-store.js';

/** A file waiting for its upload to the provider. */
export interface NewMediaBlob {
  id: string;
  account_id: string;
  mimetype: string;
  filename: string | null;
  /** The bytes, in pieces of any size. */
  pieces: readonly Uint8Array[];
}

/** A waiting file as the provider upload takes it: read a chunk at a time as the upload goes. */
export interface LoadedMediaBlob {
  mimetype: string;
  filename: string | null;
  size: number;
  chunks(): AsyncIterable<Uint8Array>;
}

/** Chunks written per statement: a megabyte of bytes, a few statements for the largest file. */
const CHUNKS_PER_STATEMENT = 4;

/**
 * Files of outbound media between the request that brought them and the provider's upload
 * (`media_blobs`, its bytes in `media_blob_chunks`): Channel API sends keep theirs here until sent;
 * agents' replies of earlier versions did too (theirs now live in the media store). Written and read
 * a chunk at a time, so a 100 MB file never passes through one statement or one buffer. Rows of
 * earlier versions hold their bytes whole in `media_blobs.bytes`, and are read as they are.
 */
export class MediaBlobsRepo {
  constructor(private readonly db: Db) {}

  async insert(tx: Tx, blobs: readonly NewMediaBlob[]): Promise<void> {
    if (blobs.length === 0) return;
    await tx
      .insertInto('media_blobs')
      .values(
        blobs.map((b) => ({
          id: b.id,
          account_id: b.account_id,
          mimetype: b.mimetype,
          filename: b.filename,
          bytes: null,
          size: b.pieces.reduce((n, p) => n + p.byteLength, 0),
          chunk_size: CHUNK_SIZE,
        })),
      )
      .execute();
    for (const blob of blobs) {
      let batch: Array<{ blob_id: string; seq: number; bytes: Buffer }> = [];
      let seq = 0;
      for await (const bytes of rechunk(blob.pieces, CHUNK_SIZE)) {
        batch.push({ blob_id: blob.id, seq: seq++, bytes });
        if (batch.length === CHUNKS_PER_STATEMENT) {
          await tx.insertInto('media_blob_chunks').values(batch).execute();
          batch = [];
        }
      }
      if (batch.length > 0) await tx.insertInto('media_blob_chunks').values(batch).execute();
    }
  }

  /** The file, or undefined when it is no longer stored. */
  async load(id: string): Promise<LoadedMediaBlob | undefined> {
    const row = await this.db
      .selectFrom('media_blobs')
      .select(['mimetype', 'filename', 'size'])
      .select(sql<string | null>`octet_length(bytes)`.as('whole_size'))
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) return undefined;
    const whole = row.whole_size !== null;
    return {
      mimetype: row.mimetype,
      filename: row.filename,
      size: Number(whole ? row.whole_size : row.size),
      chunks: () => (whole ? this.whole(id) : this.chunks(id)),
    };
  }

  async delete(db: Db | Tx, id: string): Promise<void> {
    // Chunks go with their blob (ON DELETE CASCADE).
    await db.deleteFrom('media_blobs').where('id', '=', id).execute();
  }

  private async *chunks(id: string): AsyncGenerator<Buffer> {
    for (let from = 0; ; from += CHUNKS_PER_STATEMENT) {
      const rows = await this.db
        .selectFrom('media_blob_chunks')
        .select('bytes')
        .where('blob_id', '=', id)
        .where('seq', '>=', from)
        .where('seq', '<', from + CHUNKS_PER_STATEMENT)
        .orderBy('seq')
        .execute();
      for (const r of rows) yield r.bytes;
      if (rows.length < CHUNKS_PER_STATEMENT) return;
    }
  }

  /** A row of an earlier version, its bytes whole in one column: read a chunk's length at a time. */
  private async *whole(id: string): AsyncGenerator<Buffer> {
    const span = CHUNK_SIZE * CHUNKS_PER_STATEMENT;
    for (let from = 1; ; from += span) {
      const row = await sql<{ bytes: Buffer | null }>`
        SELECT substring(bytes FROM ${from}::int FOR ${span}::int) AS bytes FROM media_blobs WHERE id = ${id}`
        .execute(this.db)
        .then((r) => r.rows[0]);
      if (!row?.bytes || row.bytes.length === 0) return;
      yield row.bytes;
      if (row.bytes.length < span) return;
    }
  }
}

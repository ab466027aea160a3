import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Db, Tx } from '../../db/index.js';
import { rechunk } from '../../lib/chunks.js';

/**
 * Where the bytes of messages' files live, behind one small interface so that another backend (an
 * S3-compatible bucket) can take its place. Files are keyed by their message.
 */
export interface MediaStore {
  /**
   * Stores `body` as the file of message `key`, replacing a previous unfinished or finished one. Counts
   * the bytes as they come and refuses (MediaStoreError `too_large`) past `maxBytes`; with `sha256`
   * (hex or base64; other text cannot be checked and is ignored), refuses a file whose digest differs
   * (`checksum_mismatch`). Nothing becomes
   * visible unless the whole file is stored. `db` may be a transaction: the file then commits with it.
   */
  put(
    db: Db | Tx,
    file: NewMediaFile,
    body: AsyncIterable<Uint8Array> | Iterable<Uint8Array> | Uint8Array,
    checks?: { maxBytes?: number; sha256?: string },
  ): Promise<MediaFile>;
  /** The stored file of a message, if complete. */
  stat(db: Db | Tx, key: string): Promise<MediaFile | undefined>;
  /** The bytes `start`..`end` (inclusive; default the whole file), a slice at a time. */
  read(file: MediaFile, range?: { start: number; end: number }): AsyncIterable<Buffer>;
  delete(db: Db | Tx, key: string): Promise<void>;
}

export interface NewMediaFile {
  key: string;
  accountId: string;
  mimetype: string;
  filename: string | null;
}

export interface MediaFile extends NewMediaFile {
  size: number;
  /** Hex SHA-256 of the bytes. */
  sha256: string;
  chunkSize: number;
}

export class MediaStoreError extends Error {
  constructor(
    readonly code: 'too_large' | 'checksum_mismatch',
    message: string,
  ) {
    super(message);
    this.name = 'MediaStoreError';
  }
}

/** 256 KiB: a 100 MB document is 400 rows; a read holds a few of them at a time. */
export const CHUNK_SIZE = 256 * 1024;
/** Chunks fetched per query while reading. */
const CHUNKS_PER_READ = 4;

/**
 * The default store: chunks in PostgreSQL (`media_objects`, `media_chunks`), which every node
 * shares, so a file downloaded by one node's worker is served by any other (docs/adr/0036-media-storage.md).
 */
export class PostgresMediaStore implements MediaStore {
  constructor(
    private readonly db: Db,
    private readonly chunkSize = CHUNK_SIZE,
  ) {}

  async put(
    db: Db | Tx,
    file: NewMediaFile,
    body: AsyncIterable<Uint8Array> | Iterable<Uint8Array> | Uint8Array,
    checks: { maxBytes?: number; sha256?: string } = {},
  ): Promise<MediaFile> {
    await this.delete(db, file.key);
    await db
      .insertInto('media_objects')
      .values({
        message_id: file.key,
        account_id: file.accountId,
        mimetype: file.mimetype,
        filename: file.filename,
        chunk_size: this.chunkSize,
      })
      .execute();
    const hash = createHash('sha256');
    let size = 0;
    let seq = 0;
    try {
      // Counted and hashed a chunk at a time: a file given whole costs no long step either.
      for await (const bytes of rechunk(body instanceof Uint8Array ? [body] : body, this.chunkSize)) {
        size += bytes.length;
        if (checks.maxBytes !== undefined && size > checks.maxBytes) {
          throw new MediaStoreError('too_large', `The file is larger than ${checks.maxBytes} bytes`);
        }
        hash.update(bytes);
        await db.insertInto('media_chunks').values({ message_id: file.key, seq: seq++, bytes }).execute();
      }
      const digest = hash.digest();
      const expected = checks.sha256 === undefined ? null : parseDigest(checks.sha256);
      if (expected && !expected.equals(digest)) {
        throw new MediaStoreError('checksum_mismatch', 'The file does not match its SHA-256');
      }
      await db
        .updateTable('media_objects')
        .set({ size, sha256: digest, complete: true })
        .where('message_id', '=', file.key)
        .execute();
      return { ...file, size, sha256: digest.toString('hex'), chunkSize: this.chunkSize };
    } catch (err) {
      // Outside a transaction the partial file is removed here; inside one, the rollback removes it.
      if (!db.isTransaction) await this.delete(db, file.key).catch(() => undefined);
      throw err;
    }
  }

  async stat(db: Db | Tx, key: string): Promise<MediaFile | undefined> {
    const row = await db
      .selectFrom('media_objects')
      .select(['message_id', 'account_id', 'mimetype', 'filename', 'size', 'sha256', 'chunk_size'])
      .where('message_id', '=', key)
      .where('complete', '=', true)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      key: row.message_id,
      accountId: row.account_id,
      mimetype: row.mimetype,
      filename: row.filename,
      size: Number(row.size),
      sha256: row.sha256?.toString('hex') ?? '',
      chunkSize: row.chunk_size,
    };
  }

  async *read(file: MediaFile, range?: { start: number; end: number }): AsyncIterable<Buffer> {
    if (file.size === 0) return;
    const start = range?.start ?? 0;
    const end = Math.min(range?.end ?? file.size - 1, file.size - 1);
    if (end < start) return;
    const first = Math.floor(start / file.chunkSize);
    const last = Math.floor(end / file.chunkSize);
    for (let from = first; from <= last; from += CHUNKS_PER_READ) {
      const to = Math.min(from + CHUNKS_PER_READ - 1, last);
      const rows = await this.db
        .selectFrom('media_chunks')
        .select(['seq', 'bytes'])
        .where('message_id', '=', file.key)
        .where('seq', '>=', from)
        .where('seq', '<=', to)
        .orderBy('seq')
        .execute();
      // Deleted while being read: the answer ends short rather than with wrong bytes.
      if (rows.length !== to - from + 1) throw new Error('the media file changed while being read');
      for (const row of rows) {
        const offset = row.seq * file.chunkSize;
        const lo = Math.max(start - offset, 0);
        const hi = Math.min(end - offset + 1, row.bytes.length);
        yield lo === 0 && hi === row.bytes.length ? row.bytes : row.bytes.subarray(lo, hi);
      }
    }
  }

  async delete(db: Db | Tx, key: string): Promise<void> {
    // Chunks go with their object (ON DELETE CASCADE).
    await sql`DELETE FROM media_objects WHERE message_id = ${key}`.execute(db);
  }
}

/**
 * The 32 bytes a SHA-256 given in hex or base64 (Meta uses both) names; null when the text is
 * neither, which cannot be checked.
 */
export function parseDigest(text: string): Buffer | null {
  const t = text.trim();
  if (/^[0-9a-f]{64}$/i.test(t)) return Buffer.from(t, 'hex');
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(t)) return null;
  const bytes = Buffer.from(t.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return bytes.length === 32 ? bytes : null;
}

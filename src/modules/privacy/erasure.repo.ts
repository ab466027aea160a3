import { sql } from 'kysely';
import type { Db, Tx } from '../../db/index.js';

/** What an erasure's batches look for: ids and addresses of the person, never stored in its record. */
export interface ErasureTarget {
  accountId: string;
  customerId: string;
  chatIds: string[];
  /** LIKE patterns (escaped) of the person's ids and addresses, to find them inside JSON documents. */
  patterns: string[];
}

export interface ErasureRow {
  id: string;
  account_id: string;
  customer_id: string;
  requested_by: string | null;
  status: 'running' | 'done';
  counts: Record<string, number>;
  created_at: Date;
  finished_at: Date | null;
}

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The bounded steps of an erasure (docs/adr/0092-data-subject-rights.md). Each batch step changes at
 * most `limit` rows and answers how many it changed: 0 means that step is finished. Every step finds
 * its rows from the person's data still present, so a step run again after a crash does the rest.
 */
export class ErasureRepo {
  constructor(private readonly db: Db) {}

  async insert(
    tx: Tx,
    row: { id: string; accountId: string; customerId: string; actorId: string },
  ): Promise<void> {
    await sql`INSERT INTO erasures (id, account_id, customer_id, requested_by)
      VALUES (${row.id}, ${row.accountId}, ${row.customerId}, ${row.actorId})`.execute(tx);
  }

  async running(tx: Tx, customerId: string): Promise<ErasureRow | undefined> {
    const { rows } = await sql<ErasureRow>`
      SELECT * FROM erasures WHERE customer_id = ${customerId} AND status = 'running' FOR UPDATE`.execute(tx);
    return rows[0];
  }

  async get(id: string): Promise<ErasureRow | undefined> {
    const { rows } = await sql<ErasureRow>`SELECT * FROM erasures WHERE id = ${id}`.execute(this.db);
    return rows[0];
  }

  /** The person's ids and addresses as they are now (before the profile step scrubs them). */
  async target(accountId: string, customerId: string): Promise<ErasureTarget> {
    const { rows } = await sql<{ chat_ids: string[]; words: string[] }>`
      SELECT
        ARRAY(SELECT t.id FROM contacts k JOIN chats t ON t.contact_id = k.id WHERE k.customer_id = ${customerId}) AS chat_ids,
        ARRAY(SELECT w FROM contacts k, LATERAL (VALUES (k.id), (k.value), (k.provider_address)) v(w)
          WHERE k.customer_id = ${customerId} AND w IS NOT NULL AND w NOT LIKE 'erased-%') AS words`.execute(
      this.db,
    );
    const row = rows[0] ?? { chat_ids: [], words: [] };
    const words = [customerId, ...row.chat_ids, ...row.words].filter((w) => w.length >= 4);
    return {
      accountId,
      customerId,
      chatIds: row.chat_ids,
      patterns: [...new Set(words)].map((w) => `%${likeEscape(w)}%`),
    };
  }

  async addCounts(db: Db | Tx, id: string, step: string, n: number): Promise<void> {
    if (n === 0) return;
    await sql`UPDATE erasures SET counts = counts || jsonb_build_object(${step}::text,
      coalesce((counts->>${step}::text)::int, 0) + ${n}::int) WHERE id = ${id}`.execute(db);
  }

  /** Up to `limit` messages of the person's conversations, with whether each has a stored file. */
  async messageBatch(tx: Tx, t: ErasureTarget, limit: number): Promise<{ id: string; has_file: boolean }[]> {
    const { rows } = await sql<{ id: string; has_file: boolean }>`
      SELECT m.id, EXISTS (SELECT 1 FROM media_objects o WHERE o.message_id = m.id) AS has_file
      FROM messages m WHERE m.chat_id = ANY(${t.chatIds}::text[]) LIMIT ${limit} FOR UPDATE OF m`.execute(tx);
    return rows;
  }

  async deleteMessages(tx: Tx, ids: string[]): Promise<number> {
    const r = await sql`DELETE FROM messages WHERE id = ANY(${ids}::text[])`.execute(tx);
    return Number(r.numAffectedRows ?? 0);
  }

  /** Channel API requests to the person: the address, text and file go; status and times stay. */
  async requestLogBatch(tx: Tx, t: ErasureTarget, limit: number): Promise<number> {
    const { rows } = await sql<{ blob: string | null }>`
      WITH hit AS (
        SELECT request_id, media_blob_id FROM request_logs
        WHERE account_id = ${t.accountId} AND NOT (contact ? 'erased')
          AND (chat_id = ANY(${t.chatIds}::text[]) OR contact::text LIKE ANY(${t.patterns}::text[]))
        LIMIT ${limit} FOR UPDATE
      ), upd AS (
        UPDATE request_logs r SET contact = jsonb_build_object('type', r.contact->>'type', 'value', '', 'name', NULL, 'erased', true),
          payload = '{}', metadata = '{}', media_blob_id = NULL, idempotency_key = NULL
        FROM hit WHERE r.request_id = hit.request_id RETURNING hit.media_blob_id AS blob
      )
      SELECT blob FROM upd`.execute(tx);
    const blobs = rows.map((r) => r.blob).filter((b): b is string => b !== null);
    if (blobs.length > 0) {
      // A canned response's attachment is the account's file, not the person's: kept.
      await sql`DELETE FROM media_blobs b WHERE b.id = ANY(${blobs}::text[])
        AND NOT EXISTS (SELECT 1 FROM canned_responses c WHERE c.attachment_id = b.id)`.execute(tx);
    }
    return rows.length;
  }

  /** Events (and so webhook deliveries, which send an event's data) naming the person: data replaced. */
  async eventBatch(tx: Tx, t: ErasureTarget, limit: number): Promise<number> {
    const r = await sql`
      UPDATE events e SET data = jsonb_build_object('erased', true, 'chat', jsonb_build_object('id', e.data#>>'{chat,id}'))
      WHERE e.seq IN (SELECT seq FROM events WHERE account_id = ${t.accountId} AND NOT (data ? 'erased')
        AND data::text LIKE ANY(${t.patterns}::text[]) LIMIT ${limit})`.execute(tx);
    return Number(r.numAffectedRows ?? 0);
  }

  /** Stored provider deliveries (the customer's raw messages) naming the person: body emptied. */
  async inboundBatch(tx: Tx, t: ErasureTarget, limit: number): Promise<number> {
    const r = await sql`
      UPDATE inbound_webhook_events SET body = '{"erased": true}'
      WHERE id IN (SELECT id FROM inbound_webhook_events WHERE account_id = ${t.accountId}
        AND NOT (body ? 'erased') AND body::text LIKE ANY(${t.patterns}::text[]) LIMIT ${limit})`.execute(tx);
    return Number(r.numAffectedRows ?? 0);
  }

  async notificationBatch(tx: Tx, t: ErasureTarget, limit: number): Promise<number> {
    const r = await sql`
      DELETE FROM notifications WHERE id IN (SELECT id FROM notifications WHERE account_id = ${t.accountId}
        AND data::text LIKE ANY(${t.patterns}::text[]) LIMIT ${limit})`.execute(tx);
    return Number(r.numAffectedRows ?? 0);
  }

  /** Agents' notes and drafts about the person's conversations, and their last-message previews. */
  async conversationExtras(tx: Tx, t: ErasureTarget): Promise<number> {
    const notes = await sql`DELETE FROM chat_notes WHERE chat_id = ANY(${t.chatIds}::text[])`.execute(tx);
    const drafts = await sql`DELETE FROM drafts WHERE chat_id = ANY(${t.chatIds}::text[])`.execute(tx);
    await sql`UPDATE chats SET last_message = NULL WHERE id = ANY(${t.chatIds}::text[]) AND last_message IS NOT NULL`.execute(
      tx,
    );
    return Number(notes.numAffectedRows ?? 0) + Number(drafts.numAffectedRows ?? 0);
  }

  /**
   * The person's profile, last (the steps before find rows by its addresses): contacts keep their row
   * (conversations point at them) with a placeholder address, the customer its row without name or
   * attributes; labels, notes and merged records' data go.
   */
  async scrubProfile(tx: Tx, customerId: string): Promise<number> {
    const contacts = await sql`
      UPDATE contacts SET name = NULL, provider_address = NULL, value = 'erased-' || id, last_inbound_at = NULL
      WHERE customer_id = ${customerId}`.execute(tx);
    await sql`UPDATE customers SET name = NULL, attributes = '{}', updated_at = now() WHERE id = ${customerId}`.execute(
      tx,
    );
    await sql`DELETE FROM customer_labels WHERE customer_id = ${customerId}`.execute(tx);
    await sql`DELETE FROM customer_notes WHERE customer_id = ${customerId}`.execute(tx);
    await sql`UPDATE customer_merges SET merged_name = NULL, merged_attributes = '{}' WHERE customer_id = ${customerId}`.execute(
      tx,
    );
    return Number(contacts.numAffectedRows ?? 0);
  }

  async finish(tx: Tx, id: string): Promise<void> {
    await sql`UPDATE erasures SET status = 'done', finished_at = now() WHERE id = ${id}`.execute(tx);
  }
}

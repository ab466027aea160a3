import { sql } from 'kysely';
import type { Db, Tx } from '../../db/index.js';

/** A conversation of the person, as exported. */
export interface ExportChat {
  id: string;
  channel_id: string;
  channel_name: string;
  contact_id: string;
  status: string;
  created_at: Date;
  closed_at: Date | null;
}

/** A message, as exported: what was said, how, when and by whom. */
export interface ExportMessage {
  id: string;
  origin: string;
  type: string;
  content: Record<string, unknown>;
  status: string;
  user_id: string | null;
  user_name: string | null;
  sender_name: string | null;
  sender_address: string | null;
  created_at: Date;
  updated_at: Date;
  /** created_at with its microseconds, for the next page's cursor. */
  cursor_at: string;
}

/** A stored file of one of the person's messages. */
export interface ExportMedia {
  message_id: string;
  filename: string | null;
  created_at: Date;
}

/**
 * The SQL of data subjects' rights (docs/adr/0092-data-subject-rights.md): reads of everything about a
 * person (a customer and every contact merged into it) and the bounded steps of an erasure.
 */
export class PrivacyRepo {
  constructor(private readonly db: Db) {}

  /** The customer an id names in the account: a customer's own id, or the id of one of its contacts. */
  async subject(accountId: string, id: string): Promise<string | undefined> {
    const { rows } = await sql<{ id: string }>`
      SELECT id FROM customers WHERE account_id = ${accountId} AND id = ${id}
      UNION ALL
      SELECT customer_id FROM contacts WHERE account_id = ${accountId} AND id = ${id}
      LIMIT 1`.execute(this.db);
    return rows[0]?.id;
  }

  /** The person's profile as one JSON document: the customer, its contacts, labels, notes and merges. */
  async profile(customerId: string): Promise<Record<string, unknown>> {
    const { rows } = await sql<{ doc: Record<string, unknown> }>`
      SELECT jsonb_build_object(
        'id', c.id, 'name', c.name, 'attributes', c.attributes, 'createdAt', c.created_at, 'updatedAt', c.updated_at,
        'contacts', (SELECT coalesce(jsonb_agg(jsonb_build_object('id', k.id, 'channelId', k.channel_id,
            'channelName', ch.name, 'type', k.type, 'value', k.value, 'name', k.name,
            'providerAddress', k.provider_address, 'lastInboundAt', k.last_inbound_at, 'createdAt', k.created_at)
            ORDER BY k.created_at, k.id), '[]')
          FROM contacts k JOIN channels ch ON ch.id = k.channel_id WHERE k.customer_id = c.id),
        'labels', (SELECT coalesce(jsonb_agg(l.name ORDER BY l.name), '[]')
          FROM customer_labels cl JOIN labels l ON l.id = cl.label_id WHERE cl.customer_id = c.id),
        'notes', (SELECT coalesce(jsonb_agg(jsonb_build_object('id', n.id, 'body', n.body, 'author', u.name,
            'createdAt', n.created_at, 'editedAt', n.edited_at) ORDER BY n.created_at, n.id), '[]')
          FROM customer_notes n LEFT JOIN users u ON u.id = n.author_id WHERE n.customer_id = c.id),
        'mergedRecords', (SELECT coalesce(jsonb_agg(jsonb_build_object('customerId', m.merged_customer_id,
            'name', m.merged_name, 'attributes', m.merged_attributes, 'mergedAt', m.created_at)
            ORDER BY m.created_at), '[]')
          FROM customer_merges m WHERE m.customer_id = c.id)
      ) AS doc
      FROM customers c WHERE c.id = ${customerId}`.execute(this.db);
    return rows[0]?.doc ?? {};
  }

  /** A page of the person's conversations, by id after `after`. */
  async chats(customerId: string, after: string, limit: number): Promise<ExportChat[]> {
    const { rows } = await sql<ExportChat>`
      SELECT t.id, t.channel_id, ch.name AS channel_name, t.contact_id, t.status, t.created_at, t.closed_at
      FROM contacts k JOIN chats t ON t.contact_id = k.id JOIN channels ch ON ch.id = t.channel_id
      WHERE k.customer_id = ${customerId} AND t.id > ${after}
      ORDER BY t.id LIMIT ${limit}`.execute(this.db);
    return rows;
  }

  /** A page of a conversation's messages, oldest first, after the (created_at, id) given. */
  async messages(
    chatId: string,
    after: { at: string; id: string } | null,
    limit: number,
  ): Promise<ExportMessage[]> {
    const cursor = after ? sql`AND (m.created_at, m.id) > (${after.at}::timestamptz, ${after.id})` : sql``;
    const { rows } = await sql<ExportMessage>`
      SELECT m.id, m.origin, m.type, m.content, m.status, m.user_id, u.name AS user_name, m.sender_name,
             m.sender_address, m.created_at, m.updated_at, m.created_at::text AS cursor_at
      FROM messages m LEFT JOIN users u ON u.id = m.user_id
      WHERE m.chat_id = ${chatId} ${cursor}
      ORDER BY m.created_at, m.id LIMIT ${limit}`.execute(this.db);
    return rows;
  }

  /** A page of the stored (complete) files of a conversation's messages. */
  async media(chatId: string, after: string, limit: number): Promise<ExportMedia[]> {
    const { rows } = await sql<ExportMedia>`
      SELECT o.message_id, o.filename, o.created_at
      FROM messages m JOIN media_objects o ON o.message_id = m.id
      WHERE m.chat_id = ${chatId} AND o.complete AND o.message_id > ${after}
      ORDER BY o.message_id LIMIT ${limit}`.execute(this.db);
    return rows;
  }

  /** Every conversation id of the person (a list of ids: small next to their messages). */
  async chatIds(db: Db | Tx, customerId: string): Promise<string[]> {
    const { rows } = await sql<{ id: string }>`
      SELECT t.id FROM contacts k JOIN chats t ON t.contact_id = k.id WHERE k.customer_id = ${customerId}`.execute(
      db,
    );
    return rows.map((r) => r.id);
  }
}

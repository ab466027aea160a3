import type { Insertable } from 'kysely';
import type { Db } from '../../db/index.js';
import { Statement } from '../../db/prepared.js';
import { sqlInteger } from '../../db/sql-text.js';
import type { ChatTransfersTable } from '../../db/types.js';
import { DELIVERABLE_EVENTS, EVENT_WRITES_RESULT, eventWritesSql } from '../../events/events.repo.js';
import { keyActiveSql } from '../api-keys/index.js';
import { CHAT_COLUMNS_SQL, type ChatRow } from './chats.repo.js';

/**
 * A chat as a transfer reads it first: whether the actor sees it, whether the target may receive it,
 * and whether the acting API key (if one acts) is not revoked.
 */
export interface TransferView extends ChatRow {
  key_active: boolean;
  visible: boolean;
  target_ok: boolean;
}

// Read by every transfer before it writes (ChatsRepo.transferView).
const transferView = Statement.prepared<TransferView>(`SELECT ${CHAT_COLUMNS_SQL},
 ($8::text IS NULL OR ${keyActiveSql('$8::text')}) AS key_active,
 ($3::text IS NULL OR $4::boolean OR c.user_id = $3::text
   OR EXISTS (SELECT 1 FROM team_members tm WHERE tm.team_id = c.team_id AND tm.user_id = $3::text)) AS visible,
 CASE WHEN $5::text = 'team'
   THEN EXISTS (SELECT 1 FROM teams t WHERE t.id = $6::text AND t.account_id = c.account_id AND t.status = 'active')
   ELSE EXISTS (SELECT 1 FROM users u WHERE u.id = $6::text AND u.account_id = c.account_id AND u.status <> 'cancelled')
 END AS target_ok
FROM chats c JOIN contacts ct ON ct.id = c.contact_id
WHERE c.id = $1::text AND c.account_id = $2::text AND ($7::text[] IS NULL OR c.channel_id = ANY($7::text[]))`);

// Transfers' writes, one transaction (ChatsRepo.applyTransfer, applyTransfers): each chat locked only if
// it is still open at the version read, then moved, its transfer recorded, its notifications and events
// written (\`eventWritesSql\`). \`$3\` is the lock_timeout, set by a filter of the scan, so before any row
// lock is asked for. The lock clause: NOWAIT for a transfer to a user (409 at once when held); none for
// a team transfer (waits up to \`$3\`); SKIP LOCKED for transfers written together, where a held chat is
// left out for its caller to write alone. Chats are locked in id order.
const transferWritesSql = (lock: '' | ' NOWAIT' | ' SKIP LOCKED') => `WITH input AS (
  SELECT * FROM jsonb_to_recordset($1::jsonb) AS i(chat_id text, version int, team_id text, user_id text,
    queue text, transfer jsonb, notifications jsonb, events jsonb)
), lk AS (
  SELECT c.id FROM chats c JOIN input i ON i.chat_id = c.id
  WHERE c.version = i.version AND c.status = 'open'
    AND set_config('lock_timeout', $3::text, true) IS NOT NULL
  ORDER BY c.id
  FOR UPDATE OF c${lock}
), up AS (
  UPDATE chats c SET team_id = i.team_id, user_id = i.user_id, queue = i.queue, version = c.version + 1,
    updated_at = now(), bot_id = NULL, bot_due_at = NULL
  FROM lk JOIN input i ON i.chat_id = lk.id WHERE c.id = lk.id
  RETURNING c.id, c.account_id, c.updated_at
), tr AS (
  INSERT INTO chat_transfers (id, account_id, chat_id, from_team_id, to_team_id, from_user_id, to_user_id,
    reason_code, reason, actor_type, actor_id)
  SELECT r.id, up.account_id, up.id, r.from_team_id, r.to_team_id, r.from_user_id, r.to_user_id,
    r.reason_code, r.reason, r.actor_type, r.actor_id
  FROM up JOIN input i ON i.chat_id = up.id, jsonb_populate_record(NULL::chat_transfers, i.transfer) AS r
  RETURNING 1
), nt AS (
  INSERT INTO notifications (id, account_id, user_id, kind, data)
  SELECT n.id, up.account_id, n.user_id, n.kind, n.data
  FROM up JOIN input i ON i.chat_id = up.id,
    jsonb_to_recordset(i.notifications) AS n(id text, user_id text, kind text, data jsonb)
  RETURNING 1
), ${eventWritesSql({ account: 'up.account_id', events: 'i.events', names: '$2::text[]', gate: 'up JOIN input i ON i.chat_id = up.id' })}
SELECT up.id, up.updated_at, ${EVENT_WRITES_RESULT} FROM up`;
const transferWrites = {
  nowait: Statement.prepared<TransferApplied & { id: string }>(transferWritesSql(' NOWAIT')),
  wait: Statement.prepared<TransferApplied & { id: string }>(transferWritesSql('')),
  skipHeld: Statement.prepared<TransferApplied & { id: string }>(transferWritesSql(' SKIP LOCKED')),
};

/** How long transfers written together wait for a lock other than a chat's (`applyTransfers`). */
const BATCH_LOCK_TIMEOUT = '2s';

/** One transfer's write: the chat as read (its version), where it goes, and what it records. */
export interface TransferChange {
  chatId: string;
  version: number;
  nowait: boolean;
  waitMs: number;
  to: { team_id: string; user_id: string | null; queue: string };
  transfer: Omit<Insertable<ChatTransfersTable>, 'account_id' | 'chat_id'>;
  notifications: readonly { id: string; user_id: string; kind: string; data: Record<string, unknown> }[];
  eventsJson: string;
}

/** What a transfer's write answers: the chat's new updated_at, and the events it wrote. */
export interface TransferApplied {
  updated_at: Date;
  last_seq: number | null;
  deliveries: boolean;
}

/** Transfers: the read that decides one, the one-statement write that makes it, and a chat's history of them. */
export class ChatTransfersRepo {
  constructor(private readonly db: Db) {}

  /**
   * The chat a transfer is about to change (with its contact, as `find` reads it), whether `viewer`
   * may see it (null: an API key, which sees every chat of its channels) and whether the target team
   * (active) or user (not cancelled) is the account's. Undefined when the chat is not the account's or
   * outside `channelIds`. Nothing is locked: the write checks the chat's version.
   */
  async transferView(
    accountId: string,
    chatId: string,
    opts: {
      channelIds: readonly string[] | null;
      viewer: { userId: string; readAll: boolean } | null;
      target: { kind: 'team' | 'user'; id: string };
      /** The acting API key, checked in the same read (`key_active`). */
      keyId: string | null;
    },
  ): Promise<TransferView | undefined> {
    const [row] = await transferView.execute(this.db, [
      chatId,
      accountId,
      opts.viewer?.userId ?? null,
      opts.viewer?.readAll ?? false,
      opts.target.kind,
      opts.target.id,
      opts.channelIds,
      opts.keyId,
    ]);
    return row;
  }

  /**
   * A transfer in one statement, its own transaction: the chat locked (at once or failing with 55P03
   * when `nowait`; else within `waitMs`) if it is still open at `version`, moved, the transfer
   * recorded, the notifications and events written (`eventWritesSql`). Undefined when the chat is no
   * longer at that version (changed or closed since it was read): nothing was written.
   */
  async applyTransfer(change: TransferChange): Promise<TransferApplied | undefined> {
    const statement = change.nowait ? transferWrites.nowait : transferWrites.wait;
    const [applied] = await this.writeTransfers(statement, [change], `${sqlInteger(change.waitMs)}ms`);
    return applied;
  }

  /**
   * Several transfers' writes in one transaction, one answer per change in order: undefined for a
   * chat that was held or had changed (its caller writes it alone). A chat at most once per call.
   */
  async applyTransfers(changes: readonly TransferChange[]): Promise<(TransferApplied | undefined)[]> {
    return this.writeTransfers(transferWrites.skipHeld, changes, BATCH_LOCK_TIMEOUT);
  }

  private async writeTransfers(
    statement: (typeof transferWrites)[keyof typeof transferWrites],
    changes: readonly TransferChange[],
    lockTimeout: string,
  ): Promise<(TransferApplied | undefined)[]> {
    const input = changes.map((c) => ({
      chat_id: c.chatId,
      version: c.version,
      team_id: c.to.team_id,
      user_id: c.to.user_id,
      queue: c.to.queue,
      transfer: c.transfer,
      notifications: c.notifications,
      events: JSON.parse(c.eventsJson) as unknown,
    }));
    const rows = await statement.execute(this.db, [JSON.stringify(input), DELIVERABLE_EVENTS, lockTimeout]);
    const byChat = new Map(rows.map((r) => [r.id, r]));
    return changes.map((c) => byChat.get(c.chatId));
  }

  async transfers(chatId: string) {
    return this.db
      .selectFrom('chat_transfers')
      .selectAll()
      .where('chat_id', '=', chatId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }
}

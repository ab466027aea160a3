import type { Tx } from '../../db/index.js';
import { NOTIFICATION_NEW } from './notifications.schemas.js';
import type { NotificationT } from './notifications.schemas.js';
import type { EventBuffer } from '../../events/events.service.js';
import { targets } from '../../events/rooms.js';
import { notFound } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import type { UserActor } from '../../access/actors.js';
import type { Permission } from '../../access/permissions.js';
import type { NotificationsRepo } from './notifications.repo.js';
import { toNotification } from './notifications.presenter.js';

export type NotificationKind =
  | 'chat.assigned'
  | 'chat.unsnoozed'
  | 'note.mention'
  | 'webhook.disabled'
  | 'channel.unhealthy'
  | 'contact.split'
  | 'sla.breached';

/** What needs a user's attention: stored, and a `notification.new` event in the same transaction. */
export class NotificationsService {
  constructor(private readonly repo: NotificationsRepo) {}

  async notify(
    tx: Tx,
    events: EventBuffer,
    accountId: string,
    userIds: readonly string[],
    kind: NotificationKind,
    data: Record<string, unknown>,
  ): Promise<{ id: string; userId: string }[]> {
    return this.notifyEach(tx, events, kind, [{ accountId, userIds, data }]);
  }

  /** `notify` for several notes of one kind (each its account, users and data), in one statement. */
  async notifyEach(
    tx: Tx,
    events: EventBuffer,
    kind: NotificationKind,
    notes: readonly { accountId: string; userIds: readonly string[]; data: Record<string, unknown> }[],
  ): Promise<{ id: string; userId: string }[]> {
    const wanted = notes.flatMap(({ accountId, userIds, data }) =>
      [...new Set(userIds)].map((user_id) => ({ id: newId(), account_id: accountId, user_id, kind, data })),
    );
    if (wanted.length === 0) return [];
    const accountOf = new Map(wanted.map((w) => [w.id, w.account_id]));
    const rows = await this.repo.insert(tx, wanted);
    for (const row of rows) {
      events.add(
        accountOf.get(row.id) ?? '',
        NOTIFICATION_NEW,
        { notification: toNotification(row) },
        targets.personal(row.user_id),
      );
    }
    return rows.map((r) => ({ id: r.id, userId: r.user_id }));
  }

  /**
   * For a change written in one statement of its own (a transfer): the notification rows to insert
   * with it, their `notification.new` events added to `events`, `createdAt` stamped by that statement
   * with its transaction's time, the time the rows' own default gives them.
   */
  planned(
    events: EventBuffer,
    accountId: string,
    userIds: readonly string[],
    kind: NotificationKind,
    data: Record<string, unknown>,
  ): { id: string; user_id: string; kind: NotificationKind; data: Record<string, unknown> }[] {
    const rows = [...new Set(userIds)].map((user_id) => ({ id: newId(), user_id, kind, data }));
    for (const row of rows) {
      events.add(
        accountId,
        NOTIFICATION_NEW,
        { notification: { id: row.id, kind, data, readAt: null, createdAt: '' } },
        targets.personal(row.user_id),
        ['notification', 'createdAt'],
      );
    }
    return rows;
  }

  /** Notifies every active user whose role holds `permission` (webhook trouble → webhooks:manage). */
  async notifyPermission(
    tx: Tx,
    events: EventBuffer,
    accountId: string,
    permission: Permission,
    kind: NotificationKind,
    data: Record<string, unknown>,
  ): Promise<void> {
    const users = await this.repo.usersWithPermission(tx, accountId, permission);
    await this.notify(tx, events, accountId, users, kind, data);
  }

  async list(actor: UserActor, query: { unreadOnly?: boolean; limit?: number }) {
    const { rows, unread } = await this.repo.page(actor.userId, {
      unreadOnly: query.unreadOnly ?? false,
      limit: query.limit ?? 50,
    });
    return { notifications: rows.map(toNotification), unread };
  }

  async markRead(actor: UserActor, id: string): Promise<NotificationT> {
    const row = await this.repo.markRead(actor.userId, id);
    if (!row) throw notFound();
    return toNotification(row);
  }
}

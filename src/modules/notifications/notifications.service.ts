import type { Tx } from '../../db/index.js';
import type { NotificationT } from '../../events/catalogue.js';
import type { EventBuffer } from '../../events/events.service.js';
import { targets } from '../../events/rooms.js';
import { notFound } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import type { UserActor } from '../../access/actors.js';
import type { Permission } from '../../access/permissions.js';
import type { NotificationRow, NotificationsRepo } from './notifications.repo.js';

export type NotificationKind = 'chat.assigned' | 'webhook.disabled' | 'channel.unhealthy';

export function toNotification(row: NotificationRow): NotificationT {
  return {
    id: row.id,
    kind: row.kind,
    data: row.data,
    readAt: row.read_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
  };
}

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
  ): Promise<void> {
    const rows = await this.repo.insert(
      tx,
      [...new Set(userIds)].map((user_id) => ({ id: newId(), account_id: accountId, user_id, kind, data })),
    );
    for (const row of rows) {
      events.add(
        accountId,
        'notification.new',
        { notification: toNotification(row) },
        targets.personal(row.user_id),
      );
    }
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
    const [rows, unread] = await Promise.all([
      this.repo.list(actor.userId, { unreadOnly: query.unreadOnly ?? false, limit: query.limit ?? 50 }),
      this.repo.unreadCount(actor.userId),
    ]);
    return { notifications: rows.map(toNotification), unread };
  }

  async markRead(actor: UserActor, id: string): Promise<NotificationT> {
    const row = await this.repo.markRead(actor.userId, id);
    if (!row) throw notFound();
    return toNotification(row);
  }
}

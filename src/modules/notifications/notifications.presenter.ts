import type { NotificationT } from './notifications.schemas.js';
import type { NotificationRow } from './notifications.repo.js';

/** A notification row as the API and its event show it. */

export function toNotification(row: NotificationRow): NotificationT {
  return {
    id: row.id,
    kind: row.kind,
    data: row.data,
    readAt: row.read_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
  };
}

import type { ChatListRow } from './chats.repo.js';
import type { ChatSlaT, ChatT, ChatWindowT } from './chats.schemas.js';

/** A chat row as the API shows it, with the customer-service window worked out from the customer's last message. */

/** How long a customer's message keeps the customer-service window open. */
export const CUSTOMER_WINDOW_MS = 24 * 60 * 60 * 1000;

/** The window as of `now`, from when the customer last wrote. */
export function chatWindow(lastInboundAt: Date | null, now = Date.now()): ChatWindowT {
  if (!lastInboundAt) return { open: false, expiresAt: null };
  const expires = lastInboundAt.getTime() + CUSTOMER_WINDOW_MS;
  return { open: now < expires, expiresAt: new Date(expires).toISOString() };
}

/** The conversation's SLA (docs/adr/0088-slas.md): null while it has no due instant. */
export function chatSla(row: ChatListRow): ChatSlaT | null {
  if (!row.sla_started_at || (!row.first_response_due_at && !row.resolution_due_at)) return null;
  return {
    startedAt: row.sla_started_at.toISOString(),
    firstResponseDueAt: row.first_response_due_at?.toISOString() ?? null,
    firstRespondedAt: row.first_responded_at?.toISOString() ?? null,
    firstResponseBreached: row.first_response_breached_at !== null,
    resolutionDueAt: row.resolution_due_at?.toISOString() ?? null,
    resolutionBreached: row.resolution_breached_at !== null,
  };
}

export function toChat(row: ChatListRow): ChatT {
  return {
    id: row.id,
    status: row.status,
    queue: row.queue,
    channelId: row.channel_id,
    teamId: row.team_id,
    userId: row.user_id,
    contact: { id: row.contact_id, name: row.contact_name ?? row.contact_value, value: row.contact_value },
    customerId: row.customer_id,
    unreadMessages: row.unread_messages,
    lastMessage: row.last_message,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    labels: row.labels,
    sla: chatSla(row),
    window: chatWindow(row.contact_last_inbound_at),
    snooze: row.snoozed_at
      ? {
          since: row.snoozed_at.toISOString(),
          until: row.snoozed_until?.toISOString() ?? null,
          by: row.snoozed_by,
        }
      : null,
    botId: row.bot_id,
  };
}

import type { MessageT } from './messages.schemas.js';
import type { MessageRow } from './messages.repo.js';
import { deliveryOf } from './delivery.js';

/** A message row as the API and its events show it. */
export function toMessage(row: MessageRow): MessageT {
  return {
    id: row.id,
    chatId: row.chat_id,
    origin: row.origin,
    type: row.type,
    content: row.content,
    status: row.status,
    providerMessageId: row.provider_message_id,
    error: row.error
      ? {
          code: String(row.error.code),
          message: row.error.message,
          ...(typeof row.error.details === 'string' ? { details: row.error.details } : {}),
        }
      : null,
    ...deliveryOf(row.delivery),
    requestId: row.request_id,
    userId: row.user_id,
    bySupervisor: row.by_supervisor,
    automation: row.automation,
    botId: row.bot_id,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

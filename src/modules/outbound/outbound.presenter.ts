import type { RequestLogT } from './send.schemas.js';
import { deliveryOf } from '../messages/index.js';
import { type RequestLogEntry } from './request-logs.repo.js';

/** A request log row as the Channel API shows it. */

export function toRequestLog(row: RequestLogEntry): RequestLogT {
  return {
    requestId: row.request_id,
    status: row.status,
    attempts: row.attempts,
    flowId: row.flow_id,
    metadata: row.metadata,
    contact: { type: row.contact.type, value: row.contact.value, name: row.contact.name },
    messageType: row.message_type,
    templateName: row.template_name,
    messageId: row.message_id,
    providerMessageId: row.provider_message_id,
    error: row.error
      ? {
          code: row.error.code,
          message: row.error.message,
          ...(row.error.details !== undefined ? { details: row.error.details } : {}),
        }
      : null,
    ...deliveryOf(row.delivery),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

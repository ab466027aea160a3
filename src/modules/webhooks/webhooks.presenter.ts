import type { DeliveryRow, WebhookRow } from './webhooks.repo.js';
import type { DeliveryT, WebhookT } from './webhooks.schemas.js';

/** Webhook endpoints and their deliveries as the API shows them. */

export function toWebhook(row: WebhookRow): WebhookT {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    enabled: row.enabled,
    secretHint: `…${row.secret.slice(-4)}`,
    failingSince: row.failing_since?.toISOString() ?? null,
    lastSuccessAt: row.last_success_at?.toISOString() ?? null,
    disabledAt: row.disabled_at?.toISOString() ?? null,
    disabledReason: row.disabled_reason,
    botId: row.bot_id,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function toDelivery(row: DeliveryRow): DeliveryT {
  return {
    id: row.id,
    webhookId: row.webhook_id,
    eventId: row.event_id,
    event: row.event,
    seq: row.seq,
    status: row.status,
    attempts: row.attempts,
    lastAttemptAt: row.last_attempt_at?.toISOString() ?? null,
    lastResponseStatus: row.last_response_status,
    lastError: row.last_error,
    nextAttemptAt: row.next_attempt_at?.toISOString() ?? null,
    deliveredAt: row.delivered_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

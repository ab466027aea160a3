import { createHmac, timingSafeEqual } from 'node:crypto';
import type {
  DeliveryDetails,
  InboundProviderError,
  InboundProviderStatus,
  ProviderStatus,
  SkippedInbound,
} from '../types.js';
import { list, obj, str, type JsonObject } from '../../lib/json-read.js';
import {
  contactSenders,
  errorsOf,
  parseMessage,
  time,
  timeOrNull,
  type InboundProviderMessage,
} from './webhook-message.js';

export type { InboundProviderMessage };

/**
 * Meta's inbound webhooks (docs/whatsapp.md "Inbound webhooks"): the signature check on the raw body, the
 * subscription handshake, and a parser that reads what it knows and skips everything else, since
 * anyone can post junk to a public URL and Meta adds fields and types over time.
 */

/** `X-Hub-Signature-256: sha256=<hex HMAC-SHA256(appSecret, rawBody)>`, compared in constant time. */
export function verifySignature(appSecret: string, rawBody: Buffer, header: string | undefined): boolean {
  if (typeof appSecret !== 'string' || appSecret === '' || !Buffer.isBuffer(rawBody)) return false;
  if (typeof header !== 'string') return false;
  const m = /^sha256=([0-9a-fA-F]{64})$/.exec(header.trim());
  if (!m?.[1]) return false;
  const given = Buffer.from(m[1], 'hex');
  const expected = createHmac('sha256', appSecret).update(rawBody).digest();
  return timingSafeEqual(given, expected);
}

/**
 * The GET handshake: the challenge to echo with 200 when mode and token match, else null (→ 403).
 */
export function verifySubscription(
  query: Record<string, unknown>,
  verifyToken: string | undefined,
): string | null {
  const mode = query['hub.mode'];
  const token = query['hub.verify_token'];
  const challenge = query['hub.challenge'];
  if (!verifyToken || mode !== 'subscribe' || typeof token !== 'string' || typeof challenge !== 'string') {
    return null;
  }
  const a = Buffer.from(token);
  const b = Buffer.from(verifyToken);
  return a.length === b.length && timingSafeEqual(a, b) ? challenge : null;
}

/** What one delivery of Meta's webhook carries. */
export interface ParsedWebhook {
  messages: InboundProviderMessage[];
  statuses: InboundProviderStatus[];
  /** Webhook-level errors (`value.errors`): nothing to store, but worth a warning. */
  errors: InboundProviderError[];
  skipped: SkippedInbound[];
}

type Obj = JsonObject;

const STATUSES = new Set<ProviderStatus>(['sent', 'delivered', 'read', 'failed']);

/**
 * Messages and statuses of a webhook body; never throws. `now` stands in for a missing or unreadable
 * timestamp (the time the webhook was received). Messages that cannot be read (no id, no sender) and
 * webhook-level errors are returned apart, for the caller to log.
 */
export function parseWebhook(body: unknown, now: Date = new Date()): ParsedWebhook {
  const out: ParsedWebhook = { messages: [], statuses: [], errors: [], skipped: [] };
  for (const entry of list(obj(body)?.entry)) {
    for (const change of list(obj(entry)?.changes)) {
      const c = obj(change);
      if (!c || c.field !== 'messages') continue;
      const value = obj(c.value);
      if (!value) continue;
      const senders = contactSenders(list(value.contacts));
      for (const m of list(value.messages)) {
        const parsed = parseMessage(obj(m), senders, now);
        if ('skipped' in parsed) out.skipped.push(parsed.skipped);
        else out.messages.push(parsed);
      }
      for (const s of list(value.statuses)) {
        const parsed = parseStatus(obj(s), now);
        if (parsed) out.statuses.push(parsed);
      }
      out.errors.push(...errorsOf(value.errors));
    }
  }
  return out;
}

function parseStatus(s: Obj | undefined, now: Date): InboundProviderStatus | null {
  if (!s) return null;
  const id = str(s.id);
  const status = str(s.status);
  if (!id || !status || !STATUSES.has(status as ProviderStatus)) return null;
  const first = obj(list(s.errors)[0]);
  let error: InboundProviderStatus['error'] = null;
  if (first) {
    const code = first.code;
    const message = str(first.message) ?? str(first.title) ?? 'Unknown error';
    const details = str(obj(first.error_data)?.details);
    error = {
      code: typeof code === 'number' || typeof code === 'string' ? String(code) : 'unknown',
      message,
      ...(details && details !== message ? { details } : {}),
    };
  }
  const details = deliveryDetails(s);
  return {
    providerMessageId: id,
    status: status as ProviderStatus,
    timestamp: time(s.timestamp, now),
    recipient: str(s.recipient_id) ?? null,
    error,
    ...(details ? { details } : {}),
  };
}

/** Longest `biz_opaque_callback_data` kept: Meta takes at most 512 characters when sending. */
const MAX_CALLBACK_DATA = 512;

/**
 * What a status says besides the status: `pricing`, `conversation`, `biz_opaque_callback_data` and
 * its `errors`; undefined when it says none of them. Parts that are not objects are ignored.
 */
function deliveryDetails(s: Obj): DeliveryDetails | undefined {
  const out: DeliveryDetails = {};
  const pricing = obj(s.pricing);
  if (pricing) {
    out.pricing = {
      billable: typeof pricing.billable === 'boolean' ? pricing.billable : null,
      pricingModel: str(pricing.pricing_model) ?? null,
      category: str(pricing.category) ?? null,
      type: str(pricing.type) ?? null,
    };
  }
  const conversation = obj(s.conversation);
  if (conversation) {
    out.conversation = {
      id: str(conversation.id) ?? null,
      originType: str(obj(conversation.origin)?.type) ?? null,
      expiresAt: timeOrNull(conversation.expiration_timestamp)?.toISOString() ?? null,
    };
  }
  const callback = str(s.biz_opaque_callback_data);
  if (callback) out.callbackData = callback.slice(0, MAX_CALLBACK_DATA);
  const errors = errorsOf(s.errors);
  if (errors.length > 0) out.errors = errors;
  return Object.keys(out).length > 0 ? out : undefined;
}

import { createHmac, timingSafeEqual } from 'node:crypto';
import type {
  InboundProviderMessage,
  InboundProviderStatus,
  ParsedWebhook,
  ProviderStatus,
} from '../types.js';

/**
 * Meta's inbound webhooks (WHATSAPP.md "Inbound webhooks"): the signature check on the raw body, the
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

type Obj = Record<string, unknown>;

const MEDIA_TYPES = new Set(['image', 'video', 'audio', 'document', 'sticker']);
const STATUSES = new Set<ProviderStatus>(['sent', 'delivered', 'read', 'failed']);

/**
 * Messages and statuses of a webhook body; never throws. `now` stands in for a missing or unreadable
 * timestamp (the time the webhook was received).
 */
export function parseWebhook(body: unknown, now: Date = new Date()): ParsedWebhook {
  const out: ParsedWebhook = { messages: [], statuses: [] };
  for (const entry of list(obj(body)?.entry)) {
    for (const change of list(obj(entry)?.changes)) {
      const c = obj(change);
      if (!c || c.field !== 'messages') continue;
      const value = obj(c.value);
      if (!value) continue;
      const names = contactNames(list(value.contacts));
      for (const m of list(value.messages)) {
        const parsed = parseMessage(obj(m), names, now);
        if (parsed) out.messages.push(parsed);
      }
      for (const s of list(value.statuses)) {
        const parsed = parseStatus(obj(s), now);
        if (parsed) out.statuses.push(parsed);
      }
    }
  }
  return out;
}

function parseMessage(
  m: Obj | undefined,
  names: Map<string, string>,
  now: Date,
): InboundProviderMessage | null {
  if (!m) return null;
  const id = str(m.id);
  const from = str(m.from);
  const type = str(m.type);
  if (!id || !from || !type) return null;
  const base = {
    providerMessageId: id,
    from,
    name: names.get(from) ?? (names.size === 1 ? ([...names.values()][0] ?? null) : null),
    timestamp: time(m.timestamp, now),
    type,
    raw: m,
  };
  const body = obj(m[type]);

  if (MEDIA_TYPES.has(type)) {
    const mediaId = str(body?.id);
    const caption = str(body?.caption);
    const filename = str(body?.filename);
    const sha256 = str(body?.sha256);
    return {
      ...base,
      text: caption ?? null,
      ...(mediaId
        ? {
            media: {
              id: mediaId,
              mimetype: str(body?.mime_type) ?? 'application/octet-stream',
              ...(sha256 ? { sha256 } : {}),
              ...(filename ? { filename } : {}),
              ...(caption ? { caption } : {}),
            },
          }
        : {}),
    };
  }
  const text = summarize(type, body, m);
  return text === undefined ? null : { ...base, text };
}

/** The text shown for a non-media message; undefined for types this adapter does not know. */
function summarize(type: string, body: Obj | undefined, m: Obj): string | null | undefined {
  switch (type) {
    case 'text':
      return str(body?.body) ?? null;
    case 'location': {
      const place = [str(body?.name), str(body?.address)].filter(Boolean).join(', ');
      const lat = num(body?.latitude);
      const long = num(body?.longitude);
      const coords = lat !== undefined && long !== undefined ? `(${lat}, ${long})` : '';
      return ['[location]', place, coords].filter(Boolean).join(' ');
    }
    case 'contacts': {
      const people = list(m.contacts).map((c) => {
        const card = obj(c);
        const name = str(obj(card?.name)?.formatted_name);
        const phones = list(card?.phones)
          .map((p) => str(obj(p)?.phone) ?? str(obj(p)?.wa_id))
          .filter(Boolean);
        return [name, phones.length > 0 ? `(${phones.join(', ')})` : ''].filter(Boolean).join(' ');
      });
      return ['[contacts]', people.filter(Boolean).join('; ')].filter(Boolean).join(' ');
    }
    case 'interactive': {
      const reply = obj(body?.button_reply) ?? obj(body?.list_reply);
      if (reply) return str(reply.title) ?? str(reply.id) ?? '[interactive]';
      const flow = obj(body?.nfm_reply);
      if (flow) return str(flow.body) ?? str(flow.response_json) ?? '[interactive]';
      return '[interactive]';
    }
    case 'button':
      return str(body?.text) ?? str(body?.payload) ?? '[button]';
    case 'reaction': {
      const emoji = str(body?.emoji);
      return emoji ? `[reaction] ${emoji}` : '[reaction removed]';
    }
    case 'system':
      return str(body?.body) ?? '[system]';
    default:
      return undefined;
  }
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
  return {
    providerMessageId: id,
    status: status as ProviderStatus,
    timestamp: time(s.timestamp, now),
    recipient: str(s.recipient_id) ?? null,
    error,
  };
}

function contactNames(contacts: unknown[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const c of contacts) {
    const contact = obj(c);
    const waId = str(contact?.wa_id);
    const name = str(obj(contact?.profile)?.name);
    if (waId && name) names.set(waId, name);
  }
  return names;
}

/** Graph timestamps are Unix seconds as strings. */
function time(v: unknown, now: Date): Date {
  const seconds = typeof v === 'string' && /^\d{1,12}$/.test(v) ? Number(v) : typeof v === 'number' ? v : NaN;
  // Date's own range ends at 8.64e15 ms.
  return Number.isFinite(seconds) && seconds >= 0 && seconds <= 8.64e12 ? new Date(seconds * 1000) : now;
}

function obj(v: unknown): Obj | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined;
}

function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function num(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
}

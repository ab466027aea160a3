import { createHmac } from 'node:crypto';
import type { Db } from '../../src/db/index.js';
import type { ChannelT } from '../../src/modules/channels/channels.schemas.js';
import type { Fixture } from './fixtures.js';

/** A Graph webhook body with one `messages` change (messages, contacts or statuses) for a phone number id. */
export function graphWebhook(phoneNumberId: string, value: Record<string, unknown>) {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550783881', phone_number_id: phoneNumberId },
              ...value,
            },
          },
        ],
      },
    ],
  };
}

/** `X-Hub-Signature-256` of a raw webhook body, as Meta signs it with the app secret. */
export function hubSignature(secret: string, raw: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
}

/** The customer's send time Graph reports in the payloads below (2025-04-11T04:08:16Z). */
export const GRAPH_MESSAGE_TIMESTAMP = '1744344496';
/** The time of a status update in the payloads below. */
export const GRAPH_STATUS_TIMESTAMP = '1744344500';

/** A `messages` change value: one text message from a customer, with the contact's profile name. */
export function customerText(p: { from: string; id: string; body: string; name?: string }) {
  return {
    contacts: [{ profile: { name: p.name ?? 'Maria' }, wa_id: p.from }],
    messages: [
      { from: p.from, id: p.id, timestamp: GRAPH_MESSAGE_TIMESTAMP, type: 'text', text: { body: p.body } },
    ],
  };
}

/** A `messages` change value: one status update (sent, delivered, read, failed…) of a sent message. */
export function statusUpdate(p: {
  id: string;
  status: string;
  timestamp?: string;
  recipientId?: string;
  extra?: Record<string, unknown>;
}) {
  return {
    statuses: [
      {
        id: p.id,
        status: p.status,
        timestamp: p.timestamp ?? GRAPH_STATUS_TIMESTAMP,
        recipient_id: p.recipientId ?? '5511987654321',
        ...p.extra,
      },
    ],
  };
}

/**
 * A Graph webhook delivery as Meta posts it to `/webhooks/whatsapp/:channelId`: the raw body of one
 * change `value` and its headers, signed with the channel's app secret. For `TestApp.request`.
 */
export function signedDelivery(phoneNumberId: string, appSecret: string, value: Record<string, unknown>) {
  const raw = JSON.stringify(graphWebhook(phoneNumberId, value));
  return {
    raw,
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': hubSignature(appSecret, raw) },
  };
}

/**
 * Waits (bounded: `tries` reads `everyMs` apart) until every stored webhook delivery of the channel
 * has been processed by its job; false when some still is not.
 */
export async function deliveriesProcessed(
  db: Db,
  channelId: string,
  bound: { tries: number; everyMs: number },
): Promise<boolean> {
  for (let i = 0; i < bound.tries; i++) {
    const pending = await db
      .selectFrom('inbound_webhook_events')
      .select('id')
      .where('channel_id', '=', channelId)
      .where('processed_at', 'is', null)
      .execute();
    if (pending.length === 0) return true;
    await new Promise((r) => setTimeout(r, bound.everyMs));
  }
  return false;
}

let channelSeq = 0;

export interface WhatsAppChannelOptions {
  name?: string;
  /** Default: a number unique in this process, so channels of one file never share webhooks. */
  phoneNumberId?: string;
  accessToken?: string;
  appSecret?: string;
  verifyToken?: string;
  businessAccountId?: string;
  /** Team of the channel's new conversations; default the fixture's team 0. */
  defaultTeamId?: string;
  queue?: string;
  sendReadReceipts?: boolean;
  /** Also generate the channel's Channel API key (`apiKey`). */
  withApiKey?: boolean;
}

export interface WhatsAppChannel {
  id: string;
  name: string;
  phoneNumberId: string;
  accessToken: string;
  appSecret: string;
  verifyToken: string;
  /** The channel's Channel API key, when `withApiKey` asked for one. */
  apiKey: string;
  /** The channel as the admin API answers it. */
  channel: ChannelT;
}

/**
 * A WhatsApp Cloud channel of the fixture's account, created by its admin through the channels
 * service, with settings a fake Graph server accepts (the tests' only fake).
 */
export async function createWhatsAppChannel(
  f: Pick<Fixture, 'services' | 'admin' | 'teams'>,
  opts: WhatsAppChannelOptions = {},
): Promise<WhatsAppChannel> {
  const n = ++channelSeq;
  const config = {
    phoneNumberId: opts.phoneNumberId ?? `10654035${String(n).padStart(7, '0')}`,
    accessToken: opts.accessToken ?? 'test-token',
    appSecret: opts.appSecret ?? `app-secret-${n}`,
    verifyToken: opts.verifyToken ?? `verify-token-${n}`,
  };
  const channel = await f.services.channels.create(f.admin, {
    name: opts.name ?? `WhatsApp ${n}`,
    provider: 'whatsapp-cloud',
    defaultTeamId: opts.defaultTeamId ?? f.teams[0]!.id,
    ...(opts.queue !== undefined ? { queue: opts.queue } : {}),
    ...(opts.sendReadReceipts !== undefined ? { sendReadReceipts: opts.sendReadReceipts } : {}),
    providerConfig: {
      ...config,
      ...(opts.businessAccountId !== undefined ? { businessAccountId: opts.businessAccountId } : {}),
    },
  });
  const apiKey = opts.withApiKey ? (await f.services.channels.rotateApiKey(f.admin, channel.id)).apiKey : '';
  return { id: channel.id, name: channel.name, ...config, apiKey, channel };
}

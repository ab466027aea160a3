import { createHmac } from 'node:crypto';
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

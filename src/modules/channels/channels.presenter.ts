import type { ChannelRow } from './channels.repo.js';
import type { ChannelT, Provider, PublicProviderConfigT } from './channels.schemas.js';

/** A channel row as the API shows it, its provider secrets left out. */

/** A WhatsApp channel's settings that are secrets: the API says only whether each is set. */
const WHATSAPP_SECRETS = ['accessToken', 'appSecret', 'verifyToken'] as const;

export function toChannel(row: ChannelRow): ChannelT {
  return {
    id: row.id,
    name: row.name,
    provider: row.provider,
    providerConfig: publicProviderConfig(row.provider, row.provider_config),
    apiEnabled: row.api_enabled,
    hasApiKey: row.has_api_key,
    defaultTeamId: row.default_team_id,
    queue: row.queue,
    health: row.health,
    healthReason: row.health_reason
      ? {
          code: row.health_reason.code,
          message: row.health_reason.message,
          ...(row.health_reason.details !== undefined ? { details: row.health_reason.details } : {}),
        }
      : null,
    unhealthySince: row.unhealthy_since?.toISOString() ?? null,
    sendReadReceipts: row.send_read_receipts,
    botId: row.bot_id,
    botHours: row.bot_hours,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** The settings as shown by the API: the phone number id, and only whether each secret is set. */
export function publicProviderConfig(
  provider: Provider,
  config: Record<string, unknown>,
): PublicProviderConfigT {
  if (provider !== 'whatsapp-cloud') return {};
  const phoneNumberId = config.phoneNumberId;
  const out: PublicProviderConfigT = typeof phoneNumberId === 'string' ? { phoneNumberId } : {};
  for (const key of WHATSAPP_SECRETS) {
    const v = config[key];
    out[`${key}Set`] = typeof v === 'string' && v !== '';
  }
  if (typeof config.businessAccountId === 'string') out.businessAccountId = config.businessAccountId;
  return out;
}

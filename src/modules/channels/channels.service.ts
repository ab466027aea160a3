import { inTransaction, type Db } from '../../db/index.js';
import type { AuditService } from '../audit/index.js';
import { badRequest, notFound } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import { newToken } from '../../lib/secrets.js';
import type { UserActor } from '../../access/actors.js';
import { requirePermission } from '../../access/guards.js';
import { type TeamsRepo, TEAM_NOT_FOUND } from '../teams/index.js';
import type { ChannelsRepo } from './channels.repo.js';
import type {
  ChannelT,
  CreateChannelInput,
  Provider,
  ProviderConfigInputT,
  UpdateChannelInput,
} from './channels.schemas.js';
import { en } from '../../http/language.js';
import { toChannel } from './channels.presenter.js';

export const CHANNEL_KEY_PREFIX = 'ck';

const WHATSAPP_FIELDS = ['phoneNumberId', 'accessToken', 'appSecret', 'verifyToken'] as const;
/** Settings a WhatsApp channel may go without (where its templates are listed). */
const WHATSAPP_OPTIONAL = ['businessAccountId'] as const;

/**
 * The provider settings to store: `input` merged over `current` (a change sends only what changes).
 * A sandbox takes none; WhatsApp needs all four once merged. Problems are named like schema failures.
 */
export function checkProviderConfig(
  provider: Provider,
  input: ProviderConfigInputT | undefined,
  current: Record<string, unknown> = {},
): Record<string, unknown> {
  const given = input ?? {};
  if (provider === 'sandbox') {
    const extra = Object.keys(given);
    if (extra.length > 0)
      throw badRequest(
        extra.map((k) =>
          en(
            `property providerConfig.${k} should not exist`,
            `a propriedade providerConfig.${k} não é permitida`,
          ),
        ),
      );
    return {};
  }
  const merged: Record<string, unknown> = { ...current, ...given };
  const missing = WHATSAPP_FIELDS.filter((k) => typeof merged[k] !== 'string' || merged[k] === '');
  if (missing.length > 0)
    throw badRequest(
      missing.map((k) =>
        en(`providerConfig.${k} should not be empty`, `providerConfig.${k} não pode ficar vazio`),
      ),
    );
  return Object.fromEntries(
    [...WHATSAPP_FIELDS, ...WHATSAPP_OPTIONAL]
      .filter((k) => typeof merged[k] === 'string')
      .map((k) => [k, merged[k]]),
  );
}

export class ChannelsService {
  constructor(
    private readonly db: Db,
    private readonly repo: ChannelsRepo,
    private readonly teams: TeamsRepo,
    private readonly audit: AuditService,
  ) {}

  async list(actor: UserActor): Promise<ChannelT[]> {
    return (await this.repo.list(actor.accountId)).map(toChannel);
  }

  async get(actor: UserActor, id: string): Promise<ChannelT> {
    const row = await this.repo.find(actor.accountId, id);
    if (!row) throw notFound();
    return toChannel(row);
  }

  private async checkTeam(accountId: string, teamId: string): Promise<void> {
    if (!(await this.teams.findActive(accountId, teamId))) throw badRequest(TEAM_NOT_FOUND);
  }

  async create(actor: UserActor, input: CreateChannelInput): Promise<ChannelT> {
    requirePermission(actor, 'channels:manage');
    const providerConfig = checkProviderConfig(input.provider, input.providerConfig);
    await this.checkTeam(actor.accountId, input.defaultTeamId);
    const id = newId();
    await inTransaction(this.db, async (tx) => {
      await this.repo.insert(tx, {
        id,
        account_id: actor.accountId,
        name: input.name.trim(),
        provider: input.provider,
        default_team_id: input.defaultTeamId,
        ...(input.queue !== undefined ? { queue: input.queue.trim() } : {}),
        ...(input.apiEnabled !== undefined ? { api_enabled: input.apiEnabled } : {}),
        ...(input.sendReadReceipts !== undefined ? { send_read_receipts: input.sendReadReceipts } : {}),
        provider_config: providerConfig,
      });
      // The provider settings may hold credentials: only the names of the fields given are kept.
      await this.audit.record(tx, actor, {
        action: 'channel.create',
        target: { type: 'channel', id },
        details: {
          name: input.name.trim(),
          provider: input.provider,
          defaultTeamId: input.defaultTeamId,
          providerFields: Object.keys(input.providerConfig ?? {}).sort(),
        },
      });
    });
    return this.get(actor, id);
  }

  async update(actor: UserActor, id: string, input: UpdateChannelInput): Promise<ChannelT> {
    requirePermission(actor, 'channels:manage');
    const current = await this.repo.find(actor.accountId, id);
    if (!current) throw notFound();
    const provider = input.provider ?? current.provider;
    // A new provider starts from empty settings: another provider's secrets are no use to it.
    const providerConfig =
      input.providerConfig !== undefined || provider !== current.provider
        ? checkProviderConfig(
            provider,
            input.providerConfig,
            provider === current.provider ? current.provider_config : {},
          )
        : undefined;
    if (input.defaultTeamId !== undefined) await this.checkTeam(actor.accountId, input.defaultTeamId);
    await inTransaction(this.db, async (tx) => {
      await this.repo.update(tx, actor.accountId, id, {
        ...(input.name !== undefined ? { name: input.name.trim() } : {}),
        ...(input.defaultTeamId !== undefined ? { default_team_id: input.defaultTeamId } : {}),
        ...(input.queue !== undefined ? { queue: input.queue.trim() } : {}),
        ...(input.apiEnabled !== undefined ? { api_enabled: input.apiEnabled } : {}),
        ...(input.sendReadReceipts !== undefined ? { send_read_receipts: input.sendReadReceipts } : {}),
        ...(provider !== current.provider ? { provider } : {}),
        ...(providerConfig !== undefined ? { provider_config: providerConfig } : {}),
        // A new token (or provider) is the fix for a refused one: the next send tries it.
        ...(input.providerConfig?.accessToken !== undefined || provider !== current.provider
          ? { healthy: true as const }
          : {}),
      });
      await this.audit.record(tx, actor, {
        action: 'channel.update',
        target: { type: 'channel', id },
        details: {
          changed: Object.keys(input).sort(),
          ...(input.name !== undefined && { name: input.name.trim() }),
          ...(input.defaultTeamId !== undefined && { defaultTeamId: input.defaultTeamId }),
          ...(input.queue !== undefined && { queue: input.queue.trim() }),
          ...(input.apiEnabled !== undefined && { apiEnabled: input.apiEnabled }),
          ...(input.sendReadReceipts !== undefined && { sendReadReceipts: input.sendReadReceipts }),
          ...(provider !== current.provider && { provider }),
          // Credentials: which fields changed, never their values.
          ...(input.providerConfig !== undefined && {
            providerFields: Object.keys(input.providerConfig).sort(),
          }),
        },
      });
    });
    return this.get(actor, id);
  }

  /** A new channel key, shown once; storing its hash replaces the previous key at once. */
  async rotateApiKey(actor: UserActor, id: string): Promise<{ apiKey: string }> {
    requirePermission(actor, 'channels:manage');
    const { token, hash } = newToken(CHANNEL_KEY_PREFIX, id);
    await inTransaction(this.db, async (tx) => {
      if (!(await this.repo.update(tx, actor.accountId, id, { api_key_hash: hash }))) throw notFound();
      await this.audit.record(tx, actor, { action: 'channel.rotate_key', target: { type: 'channel', id } });
    });
    return { apiKey: token };
  }
}

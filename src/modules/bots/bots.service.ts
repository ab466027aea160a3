import { inTransaction, type Db, type Tx } from '../../db/index.js';
import { type AuditAction, type AuditService, changedFields, urlHost } from '../audit/index.js';
import type { EventBuffer, EventsService } from '../../events/events.service.js';
import { targets } from '../../events/rooms.js';
import { AppError, badRequest, notFound } from '../../http/errors.js';
import { en, type Message, pt } from '../../http/language.js';
import { newId } from '../../lib/ids.js';
import { newToken } from '../../lib/secrets.js';
import type { UserActor } from '../../access/actors.js';
import { requirePermission } from '../../access/guards.js';
import type { ApiKeyScope } from '../../access/permissions.js';
import { ACCOUNT_KEY_PREFIX, type ApiKeysRepo } from '../api-keys/index.js';
import { type ChannelsRepo, toChannel } from '../channels/index.js';
import { canonicalTimeZone, problemsOf } from '../teams/index.js';
import { newSecret, type WebhooksRepo, type WebhooksService } from '../webhooks/index.js';
import type { BotHoldService } from './bot-hold.service.js';
import type { BotRow, BotsRepo } from './bots.repo.js';
import {
  BOT_UPDATE,
  type BotT,
  type CreateBotInput,
  DEFAULT_REPLY_TIMEOUT_S,
  type UpdateBotInput,
  type UpdateChannelBotInput,
} from './bots.schemas.js';

/** Bots per account: each is an endpoint every held conversation's events are delivered to. */
export const MAX_BOTS_PER_ACCOUNT = 20;

/** What a bot's key may do: read and answer conversations, hand them over, list who to hand them to. */
export const BOT_SCOPES: ApiKeyScope[] = [
  'chats:read',
  'chats:write',
  'chats:transfer',
  'users:read',
  'teams:read',
];

/** A bot's endpoint receives every event its room gets (the room is the filter, events.repo.ts). */
const BOT_EVENTS = ['*'];

export const BOT_NAME_TAKEN = pt('Já existe um bot com este nome', 'A bot with this name already exists');
export const BOT_NOT_FOUND = en('botId is not a bot of the account', 'botId não é um bot da conta');

const isUniqueViolation = (err: unknown) => (err as { code?: string }).code === '23505';

export function toBot(row: BotRow): BotT {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    replyTimeoutSeconds: row.reply_timeout_seconds,
    enabled: row.enabled,
    failingSince: row.failing_since?.toISOString() ?? null,
    disabledReason: row.disabled_reason,
    apiKeyId: row.api_key_id,
    webhookId: row.webhook_id,
    secretHint: `…${row.secret.slice(-4)}`,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/**
 * An account's bots (admins: `api_keys:manage` and `webhooks:manage`, as a bot is a key and an
 * endpoint; every user may read them, as the console names the bot holding a conversation) and the
 * channels' routing to them (`channels:manage`).
 */
export class BotsService {
  constructor(
    private readonly db: Db,
    private readonly repo: BotsRepo,
    private readonly apiKeysRepo: ApiKeysRepo,
    private readonly webhooksRepo: WebhooksRepo,
    private readonly webhooks: Pick<WebhooksService, 'checkUrl'>,
    private readonly channels: ChannelsRepo,
    private readonly hold: BotHoldService,
    private readonly events: EventsService,
    private readonly audit: AuditService,
  ) {}

  async list(actor: UserActor): Promise<BotT[]> {
    return (await this.repo.list(actor.accountId)).map(toBot);
  }

  async get(actor: UserActor, id: string): Promise<BotT> {
    return toBot(await this.find(actor, id));
  }

  async create(actor: UserActor, input: CreateBotInput): Promise<BotT & { apiKey: string; secret: string }> {
    this.requireManage(actor);
    const name = input.name.trim();
    if (name === '') throw badRequest([en('name must not be blank', 'name não pode ficar em branco')]);
    const url = await this.webhooks.checkUrl(input.url);
    if ((await this.repo.count(actor.accountId)) >= MAX_BOTS_PER_ACCOUNT)
      throw new AppError(
        409,
        pt(
          `Limite de ${MAX_BOTS_PER_ACCOUNT} bots por conta atingido`,
          `Limit of ${MAX_BOTS_PER_ACCOUNT} bots per account reached`,
        ),
      );
    const id = newId();
    const keyId = newId();
    const { token, hash } = newToken(ACCOUNT_KEY_PREFIX, keyId);
    const secret = newSecret();
    try {
      await this.events.transaction(async (tx, events) => {
        await this.apiKeysRepo.insert(
          {
            id: keyId,
            account_id: actor.accountId,
            name: `Bot: ${name}`,
            token_hash: hash,
            scopes: BOT_SCOPES,
            channel_ids: null,
            created_by: actor.userId,
          },
          tx,
        );
        await this.repo.insert(tx, {
          id,
          account_id: actor.accountId,
          name,
          api_key_id: keyId,
          reply_timeout_seconds: input.replyTimeoutSeconds ?? DEFAULT_REPLY_TIMEOUT_S,
          created_by: actor.userId,
        });
        await this.webhooksRepo.insert(
          {
            id: newId(),
            account_id: actor.accountId,
            url,
            events: BOT_EVENTS,
            secret,
            created_by: actor.userId,
            bot_id: id,
          },
          tx,
        );
        // Its key and secret are shown once to the admin, never kept here; the URL by its host.
        await this.audit.record(tx, actor, {
          action: 'bot.create',
          target: { type: 'bot', id },
          details: {
            name,
            urlHost: urlHost(url),
            replyTimeoutSeconds: input.replyTimeoutSeconds ?? DEFAULT_REPLY_TIMEOUT_S,
            keyId,
          },
        });
        await this.changed(tx, events, actor.accountId, id, false);
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw new AppError(409, BOT_NAME_TAKEN);
      throw err;
    }
    return { ...(await this.get(actor, id)), apiKey: token, secret };
  }

  async update(actor: UserActor, id: string, input: UpdateBotInput): Promise<BotT & { secret?: string }> {
    this.requireManage(actor);
    const name = input.name?.trim();
    if (name === '') throw badRequest([en('name must not be blank', 'name não pode ficar em branco')]);
    const url = input.url === undefined ? undefined : await this.webhooks.checkUrl(input.url);
    const secret = input.rotateSecret === true ? newSecret() : undefined;
    try {
      await this.events.transaction(async (tx, events) => {
        const bot = await this.repo.find(actor.accountId, id, tx);
        if (!bot) throw notFound();
        await this.repo.update(tx, actor.accountId, id, {
          ...(name !== undefined ? { name } : {}),
          ...(input.replyTimeoutSeconds !== undefined
            ? { reply_timeout_seconds: input.replyTimeoutSeconds }
            : {}),
        });
        await this.webhooksRepo.update(tx, actor.accountId, bot.webhook_id, {
          ...(url !== undefined ? { url } : {}),
          ...(secret !== undefined ? { secret } : {}),
          ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
        });
        if (input.enabled === false) await this.webhooksRepo.failPending(tx, bot.webhook_id, new Date());
        for (const line of botAuditLines(id, input, name, url)) await this.audit.record(tx, actor, line);
        await this.changed(tx, events, actor.accountId, id, false);
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw new AppError(409, BOT_NAME_TAKEN);
      throw err;
    }
    return { ...(await this.get(actor, id)), ...(secret !== undefined ? { secret } : {}) };
  }

  /**
   * Deletes a bot: its key is revoked, its endpoint removed, its channels route to no bot, and the
   * conversations it held go to their channels' teams (`chat.bot_released`, `deleted`). The row stays
   * (marked deleted), so the messages it wrote keep naming it.
   */
  async delete(actor: UserActor, id: string): Promise<void> {
    this.requireManage(actor);
    // The key stops at once on every node: a node that remembers it checks it is not revoked
    // (ApiKeysService.authenticate).
    await this.events.transaction(async (tx, events) => {
      const bot = await this.repo.find(actor.accountId, id, tx);
      if (!bot) throw notFound();
      events.add(
        actor.accountId,
        BOT_UPDATE,
        { bot: toBot(bot), deleted: true },
        targets.account(actor.accountId),
      );
      await this.hold.releaseAll(tx, events, id);
      await this.repo.softDelete(tx, actor.accountId, id);
      await this.apiKeysRepo.revoke(actor.accountId, bot.api_key_id, tx);
      await this.webhooksRepo.delete(actor.accountId, bot.webhook_id, tx);
      await this.audit.record(tx, actor, {
        action: 'bot.delete',
        target: { type: 'bot', id },
        details: { name: bot.name, keyId: bot.api_key_id },
      });
    });
  }

  /** `updateChannelBot`: which bot takes the channel's new conversations, and when. */
  async setChannelBot(actor: UserActor, channelId: string, input: UpdateChannelBotInput) {
    requirePermission(actor, 'channels:manage');
    if (!(await this.channels.find(actor.accountId, channelId))) throw notFound();
    const problems: Message[] = [];
    let hours = null;
    if (input.hours) {
      const given = {
        timeZone: input.hours.timeZone,
        weekly: input.hours.weekly,
        holidays: [...new Set(input.hours.holidays ?? [])].sort(),
      };
      // Business hours' sentences, their fields named as this body has them (`hours.weekly.1.0`).
      const named = (m: string) => m.replace(/(^|\s)(timeZone|weekly|holidays)\b/g, '$1hours.$2');
      const found = problemsOf(given).map((p) => en(named(p.en), named(p.pt)));
      problems.push(...found);
      hours = { ...given, timeZone: canonicalTimeZone(given.timeZone) ?? given.timeZone };
    }
    if (input.botId !== null && !(await this.repo.exists(actor.accountId, input.botId)))
      problems.unshift(BOT_NOT_FOUND);
    if (problems.length > 0) throw badRequest(problems);
    await inTransaction(this.db, async (tx) => {
      const routeHours = input.botId ? hours : null;
      if (!(await this.repo.setChannelRoute(actor.accountId, channelId, input.botId, routeHours, tx)))
        throw notFound();
      await this.audit.record(tx, actor, {
        action: 'channel.set_bot',
        target: { type: 'channel', id: channelId },
        details: { botId: input.botId, ...(routeHours && { hours: { timeZone: routeHours.timeZone } }) },
      });
    });
    const row = await this.channels.find(actor.accountId, channelId);
    if (!row) throw notFound();
    return toChannel(row);
  }

  /** `bot.update` to the account: the bots page and the conversations' headers follow it live. */
  private async changed(tx: Tx, events: EventBuffer, accountId: string, id: string, deleted: boolean) {
    const row = await this.repo.find(accountId, id, tx);
    if (row) events.add(accountId, BOT_UPDATE, { bot: toBot(row), deleted }, targets.account(accountId));
  }

  private requireManage(actor: UserActor): void {
    requirePermission(actor, 'api_keys:manage');
    requirePermission(actor, 'webhooks:manage');
  }

  private async find(actor: UserActor, id: string): Promise<BotRow> {
    const row = await this.repo.find(actor.accountId, id);
    if (!row) throw notFound();
    return row;
  }
}

/**
 * The lines one update writes: `bot.rotate_secret` for a new signing secret (never kept),
 * `bot.update` for the rest (the URL by its host).
 */
function botAuditLines(
  id: string,
  input: UpdateBotInput,
  name: string | undefined,
  url: string | undefined,
): AuditAction[] {
  const target = { type: 'bot', id };
  const lines: AuditAction[] = [];
  if (input.rotateSecret === true) lines.push({ action: 'bot.rotate_secret', target });
  const changed = changedFields(input, ['rotateSecret']);
  if (changed.length > 0)
    lines.push({
      action: 'bot.update',
      target,
      details: {
        changed,
        ...(name !== undefined && { name }),
        ...(url !== undefined && { urlHost: urlHost(url) }),
        ...(input.replyTimeoutSeconds !== undefined && { replyTimeoutSeconds: input.replyTimeoutSeconds }),
        ...(input.enabled !== undefined && { enabled: input.enabled }),
      },
    });
  return lines;
}

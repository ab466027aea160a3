import { randomBytes } from 'node:crypto';
import { inTransaction, type Db } from '../../db/index.js';
import { type AuditAction, type AuditService, changedFields, urlHost } from '../audit/index.js';
import { AppError, badRequest, notFound } from '../../http/errors.js';
import { pageInfo } from '../../http/schemas.js';
import { newId } from '../../lib/ids.js';
import type { UserActor } from '../../access/actors.js';
import { requirePermission } from '../../access/guards.js';
import type { WebhookRow, WebhooksRepo } from './webhooks.repo.js';
import type {
  CreateWebhookInput,
  DeliveryQueryT,
  DeliveryT,
  UpdateWebhookInput,
  WebhookT,
} from './webhooks.schemas.js';
import type { WebhookEgress } from './webhooks.egress.js';
import { en, pt } from '../../http/language.js';
import { toWebhook, toDelivery } from './webhooks.presenter.js';

const NOT_HTTP_URL = en(
  'url must be an absolute http or https URL',
  'url deve ser um endereço http ou https completo',
);

const BOT_WEBHOOK = pt(
  'Este webhook é o de um bot: altere-o ou apague-o pelo bot (/api/bots)',
  "This webhook is a bot's: change or delete it through the bot (/api/bots)",
);

/** Subscriptions per account: each one is a delivery per event, so the fan-out stays bounded. */
export const MAX_WEBHOOKS_PER_ACCOUNT = 20;

/** Generated secrets: 32 random bytes, prefixed so they are recognisable in a receiver's settings. */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/** The URL as given, once it is an absolute http(s) URL a delivery can call. */
function parseUrl(raw: string): URL {
  const url = raw.trim();
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw badRequest([NOT_HTTP_URL]);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw badRequest([NOT_HTTP_URL]);
  }
  // Credentials in a URL end up in logs and screens; the signature is how receivers authenticate us.
  if (parsed.username !== '' || parsed.password !== '') {
    throw badRequest([
      en('url must not contain a user name or password', 'url não pode conter nome de usuário nem senha'),
    ]);
  }
  return parsed;
}

/** Outgoing webhook subscriptions of an account and their delivery log (admin, `webhooks:manage`). */
export class WebhooksService {
  constructor(
    private readonly db: Db,
    private readonly repo: WebhooksRepo,
    private readonly egress: WebhookEgress,
    private readonly audit: AuditService,
  ) {}

  /**
   * The URL as stored: an http(s) URL whose host is not (and does not resolve to) a private, loopback,
   * link-local or otherwise non-public address — unless the installation allows private networks.
   * Every delivery checks the resolved address again; this answers the admin early and clearly.
   */
  async checkUrl(raw: string): Promise<string> {
    const url = parseUrl(raw);
    const refusal = await this.egress.refusal(url);
    if (refusal !== null) {
      throw badRequest([
        en(
          `url must point to a public address: ${refusal}`,
          `url deve apontar para um endereço público: ${refusal}`,
        ),
      ]);
    }
    return raw.trim();
  }

  async list(actor: UserActor): Promise<WebhookT[]> {
    requirePermission(actor, 'webhooks:manage');
    return (await this.repo.list(actor.accountId)).map(toWebhook);
  }

  async get(actor: UserActor, id: string): Promise<WebhookT> {
    requirePermission(actor, 'webhooks:manage');
    return toWebhook(await this.find(actor, id));
  }

  async create(actor: UserActor, input: CreateWebhookInput): Promise<WebhookT & { secret: string }> {
    requirePermission(actor, 'webhooks:manage');
    const url = await this.checkUrl(input.url);
    if ((await this.repo.count(actor.accountId)) >= MAX_WEBHOOKS_PER_ACCOUNT) {
      throw new AppError(
        409,
        pt(
          `Limite de ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks por conta atingido`,
          `Limit of ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks per account reached`,
        ),
      );
    }
    const secret = input.secret ?? newSecret();
    const row = await inTransaction(this.db, async (tx) => {
      const inserted = await this.repo.insert(
        {
          id: newId(),
          account_id: actor.accountId,
          url,
          events: input.events,
          secret,
          created_by: actor.userId,
        },
        tx,
      );
      // The URL's host only (its path may hold a token); the secret is never kept.
      await this.audit.record(tx, actor, {
        action: 'webhook.create',
        target: { type: 'webhook', id: inserted.id },
        details: { urlHost: urlHost(url), events: input.events },
      });
      return inserted;
    });
    return { ...toWebhook(row), secret };
  }

  async update(
    actor: UserActor,
    id: string,
    input: UpdateWebhookInput,
  ): Promise<WebhookT & { secret?: string }> {
    requirePermission(actor, 'webhooks:manage');
    if (input.secret !== undefined && input.rotateSecret === true) {
      throw badRequest([
        en(
          'secret and rotateSecret cannot be used together',
          'secret e rotateSecret não podem ser usados juntos',
        ),
      ]);
    }
    // A bot's endpoint receives what its conversations' rooms say, whatever its list of events.
    if (input.events !== undefined && (await this.find(actor, id)).bot_id !== null)
      throw new AppError(409, BOT_WEBHOOK);
    const url = input.url === undefined ? undefined : await this.checkUrl(input.url);
    const secret = input.rotateSecret === true ? newSecret() : input.secret;
    const row = await inTransaction(this.db, async (tx) => {
      const updated = await this.repo.update(tx, actor.accountId, id, {
        ...(url !== undefined ? { url } : {}),
        ...(input.events !== undefined ? { events: input.events } : {}),
        ...(secret !== undefined ? { secret } : {}),
        ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
      });
      if (!updated) throw notFound();
      for (const line of webhookAuditLines(id, input, url)) await this.audit.record(tx, actor, line);
      // Paused: what was still being retried stops (replay it once the endpoint is back on).
      if (input.enabled === false) await this.repo.failPending(tx, id, new Date());
      return updated;
    });
    return { ...toWebhook(row), ...(secret !== undefined ? { secret } : {}) };
  }

  async delete(actor: UserActor, id: string): Promise<void> {
    requirePermission(actor, 'webhooks:manage');
    if ((await this.find(actor, id)).bot_id !== null) throw new AppError(409, BOT_WEBHOOK);
    await inTransaction(this.db, async (tx) => {
      if (!(await this.repo.delete(actor.accountId, id, tx))) throw notFound();
      await this.audit.record(tx, actor, { action: 'webhook.delete', target: { type: 'webhook', id } });
    });
  }

  async deliveries(actor: UserActor, id: string, query: DeliveryQueryT) {
    requirePermission(actor, 'webhooks:manage');
    await this.find(actor, id);
    const page = query.page ?? 1;
    const limit = query.limit ?? 20;
    const { total, rows } = await this.repo.deliveries(id, query.status, page, limit);
    return { ...pageInfo(total, page, limit), items: rows.map(toDelivery) };
  }

  /**
   * Sends a delivery again: a new attempt of the same delivery (same `Atende-Delivery`, same
   * envelope) with a fresh retry window, whatever its status; a pending one is attempted now.
   */
  async replay(actor: UserActor, id: string, deliveryId: string): Promise<DeliveryT> {
    requirePermission(actor, 'webhooks:manage');
    const webhook = await this.find(actor, id);
    if (!webhook.enabled) throw new AppError(409, pt('O webhook está desativado', 'The webhook is disabled'));
    // The answer is the delivery as the replay left it (pending): read after the commit, the attempt
    // could already have run and the answer would depend on how fast the worker was.
    const row = await inTransaction(this.db, async (tx) => {
      const now = new Date();
      const generation = await this.repo.replay(tx, id, deliveryId, now);
      if (generation === undefined) throw notFound();
      await this.audit.record(tx, actor, {
        action: 'webhook.replay',
        target: { type: 'webhook', id },
        details: { deliveryId },
      });
      return this.repo.findDelivery(id, deliveryId, tx);
    });
    if (!row) throw notFound();
    return toDelivery(row);
  }

  private async find(actor: UserActor, id: string): Promise<WebhookRow> {
    const row = await this.repo.find(actor.accountId, id);
    if (!row) throw notFound();
    return row;
  }
}

/**
 * The lines one update writes: `webhook.rotate_secret` for a new secret (given or generated, never
 * kept), `webhook.update` for the rest (the URL's host, the events, whether it is enabled).
 */
function webhookAuditLines(id: string, input: UpdateWebhookInput, url: string | undefined): AuditAction[] {
  const target = { type: 'webhook', id };
  const lines: AuditAction[] = [];
  if (input.secret !== undefined || input.rotateSecret === true)
    lines.push({
      action: 'webhook.rotate_secret',
      target,
      details: { generated: input.rotateSecret === true },
    });
  const changed = changedFields(input, ['secret', 'rotateSecret']);
  if (changed.length > 0)
    lines.push({
      action: 'webhook.update',
      target,
      details: {
        changed,
        ...(url !== undefined && { urlHost: urlHost(url) }),
        ...(input.events !== undefined && { events: input.events }),
        ...(input.enabled !== undefined && { enabled: input.enabled }),
      },
    });
  return lines;
}

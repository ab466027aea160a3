import { AppError, badRequest, notFound, unauthorized } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import { newToken, parseToken, safeEqual, sha256 } from '../../lib/secrets.js';
import type { ApiKeyActor, UserActor } from '../../access/actors.js';
import { requirePermission } from '../../access/guards.js';
import type { ApiKeyScope } from '../../access/permissions.js';
import type { ApiKeyAuthRow, ApiKeysRepo } from './api-keys.repo.js';
import type { ApiKeyT, CreateApiKeyInput } from './api-keys.schemas.js';
import { en, pt } from '../../http/language.js';
import { toApiKey } from './api-keys.presenter.js';
import type { Db } from '../../db/index.js';
import type { AuditService } from '../audit/index.js';

export const ACCOUNT_KEY_PREFIX = 'ak';
const TOUCH_EVERY_MS = 60_000;

/** Keys a node keeps in memory at most (the first remembered go first). */
const KNOWN_KEYS = 10_000;

export class ApiKeysService {
  /** Keys read from the database by this node, by id (token hash included, never the token). */
  private readonly known = new Map<string, ApiKeyAuthRow>();

  constructor(
    private readonly repo: ApiKeysRepo,
    private readonly db: Db,
    private readonly audit: AuditService,
  ) {}

  async list(actor: UserActor): Promise<ApiKeyT[]> {
    requirePermission(actor, 'api_keys:manage');
    return (await this.repo.list(actor.accountId)).map(toApiKey);
  }

  async create(actor: UserActor, input: CreateApiKeyInput) {
    requirePermission(actor, 'api_keys:manage');
    const channelIds = input.channelIds ?? null;
    if (channelIds) {
      const found = await this.repo.channelsOf(actor.accountId, channelIds);
      const missing = channelIds.filter((c) => !found.has(c));
      if (missing.length > 0)
        throw badRequest([
          en(
            `channelIds contains unknown channels: ${missing.join(', ')}`,
            `channelIds contém canais desconhecidos: ${missing.join(', ')}`,
          ),
        ]);
    }
    const id = newId();
    const { token, hash } = newToken(ACCOUNT_KEY_PREFIX, id);
    await this.db.transaction().execute(async (tx) => {
      await this.repo.insert(
        {
          id,
          account_id: actor.accountId,
          name: input.name.trim(),
          token_hash: hash,
          scopes: input.scopes,
          channel_ids: channelIds,
          created_by: actor.userId,
        },
        tx,
      );
      // Name, scopes and channels only: the token and its hash never reach the log.
      await this.audit.record(tx, actor, {
        action: 'apikey.create',
        target: { type: 'api_key', id },
        details: { name: input.name.trim(), scopes: input.scopes, channelIds },
      });
    });
    return { id, name: input.name.trim(), scopes: input.scopes, channelIds, token };
  }

  async revoke(actor: UserActor, id: string): Promise<void> {
    requirePermission(actor, 'api_keys:manage');
    this.forget(id);
    const revoked = await this.db.transaction().execute(async (tx) => {
      if (!(await this.repo.revoke(actor.accountId, id, tx))) return false;
      await this.audit.record(tx, actor, { action: 'apikey.revoke', target: { type: 'api_key', id } });
      return true;
    });
    if (!revoked) {
      if (await this.repo.find(actor.accountId, id))
        throw new AppError(409, pt('A chave já foi revogada', 'The key has already been revoked'));
      throw notFound();
    }
  }

  /**
   * Resolves `Authorization: ApiKey <token>` to an actor, or throws the contract's 401. A key is read
   * from the database once per node and then kept in memory (a key never changes but by revocation),
   * so the actor of a remembered key is unconfirmed: the statement doing the work checks it is not
   * revoked (`keyActiveSql`), or `confirm` looks it up before anything is answered. A revoked key thus
   * stops at once on every node, without a lookup of its own on every request.
   */
  async authenticate(header: string | undefined): Promise<ApiKeyActor> {
    const m = header ? /^ApiKey\s+(\S+)\s*$/i.exec(header) : null;
    const parsed = m?.[1] ? parseToken(ACCOUNT_KEY_PREFIX, m[1]) : null;
    if (!parsed) throw unauthorized();
    let row = this.known.get(parsed.id);
    const confirmed = row === undefined;
    if (!row) {
      row = await this.repo.findActiveWithHash(parsed.id);
      if (row) this.remember(row);
    }
    if (!row || !safeEqual(sha256(parsed.secret), row.token_hash)) throw unauthorized();
    if (!row.last_used_at || Date.now() - row.last_used_at.getTime() > TOUCH_EVERY_MS) {
      // Recorded at most once a minute per key: a write per request would cost more than the request.
      row.last_used_at = new Date();
      void this.repo.touch(row.id).catch(() => undefined);
    }
    return {
      kind: 'api_key',
      accountId: row.account_id,
      keyId: row.id,
      scopes: row.scopes as ApiKeyScope[],
      channelIds: row.channel_ids,
      check: { confirmed },
    };
  }

  /** Looks the key up unless already confirmed for this request: a revoked key is forgotten and 401. */
  async confirm(actor: ApiKeyActor): Promise<void> {
    if (actor.check.confirmed) return;
    if (!(await this.repo.findActiveWithHash(actor.keyId))) {
      this.forget(actor.keyId);
      throw unauthorized();
    }
    actor.check.confirmed = true;
  }

  /** Drops a key from this node's memory (it answered 401). */
  forget(keyId: string): void {
    this.known.delete(keyId);
  }

  private remember(row: ApiKeyAuthRow): void {
    // Oldest first out: a Map iterates in insertion order.
    if (this.known.size >= KNOWN_KEYS) this.known.delete(this.known.keys().next().value as string);
    this.known.set(row.id, row);
  }
}

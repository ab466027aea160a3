import type { Db, Tx } from '../../db/index.js';
import type { Actor } from '../../access/actors.js';
import { requirePermission } from '../../access/guards.js';
import type { UserActor } from '../../access/actors.js';
import type { AuditRepo, AuditRow } from './audit.repo.js';
import type { AuditEntryT, AuditListInput, AuditPageT } from './audit.schemas.js';

/** What one line says was done: `<target>.<verb>`, to what, with which non-secret fields. */
export interface AuditAction {
  action: string;
  target: { type: string; id: string | null };
  details?: Record<string, unknown>;
}

/**
 * Field names never kept in `details`, whatever a caller passes: a safety net behind the rule that
 * callers pass only non-secret fields (docs/adr/0093-audit-log.md). A credential change is recorded
 * as the names of the fields that changed, never their values.
 */
const SECRET = /pass|token|secret|hash|credential|key$|apikey|signing|authorization|cookie/i;

function scrub(value: unknown, depth = 0): unknown {
  if (depth > 4) return null;
  if (Array.isArray(value)) return value.slice(0, 100).map((v) => scrub(v, depth + 1));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (!SECRET.test(k)) out[k] = scrub(v, depth + 1);
    return out;
  }
  if (typeof value === 'string' && value.length > 500) return `${value.slice(0, 500)}…`;
  return value;
}

/**
 * A URL as a line keeps it: its host only. Webhook and bot URLs often carry a token in their path or
 * query (`/hooks/T0/B0/xyz`), so the rest is not kept.
 */
export function urlHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

/** The names of the fields an input gives (those undefined left out), sorted: what a change touched. */
export function changedFields(input: object, leave: readonly string[] = []): string[] {
  return Object.entries(input)
    .filter(([k, v]) => v !== undefined && !leave.includes(k))
    .map(([k]) => k)
    .sort();
}

export class AuditService {
  constructor(private readonly repo: AuditRepo) {}

  /**
   * Writes one line in `tx`, the transaction of the change it records: both commit or neither does.
   * `actor` is who acted, or `{ system, accountId }` for the platform's own jobs.
   */
  async record(
    tx: Tx | Db,
    actor: Actor | { kind: 'system'; accountId: string },
    a: AuditAction,
  ): Promise<void> {
    await this.write(tx, actor, a);
  }

  /**
   * Writes one line on its own, for an action that changes nothing but lets data leave (a CSV
   * download): the caller writes it before the first byte is sent.
   */
  async recordDownload(actor: Actor, a: AuditAction): Promise<void> {
    await this.write(undefined, actor, a);
  }

  private async write(
    tx: Tx | Db | undefined,
    actor: Actor | { kind: 'system'; accountId: string },
    a: AuditAction,
  ): Promise<void> {
    const origin = actor.kind === 'user' ? actor.origin : undefined;
    await this.repo.insert(tx, {
      account_id: actor.accountId,
      actor_type: actor.kind,
      actor_id: actor.kind === 'user' ? actor.userId : actor.kind === 'api_key' ? actor.keyId : null,
      action: a.action,
      target_type: a.target.type,
      target_id: a.target.id,
      details: JSON.stringify(scrub(a.details ?? {})),
      ip: origin?.ip ?? null,
      user_agent: origin?.userAgent ?? null,
    });
  }

  async list(actor: UserActor, q: AuditListInput): Promise<AuditPageT> {
    requirePermission(actor, 'audit:read');
    const limit = q.limit ?? 50;
    const rows = await this.repo.list(
      actor.accountId,
      {
        ...(q.actorId !== undefined && { actorId: q.actorId }),
        ...(q.action !== undefined && { actionPrefix: q.action }),
        ...(q.targetType !== undefined && { targetType: q.targetType }),
        ...(q.targetId !== undefined && { targetId: q.targetId }),
        ...(q.from !== undefined && { from: new Date(q.from) }),
        ...(q.to !== undefined && { to: new Date(q.to) }),
        ...(q.before !== undefined && { before: q.before }),
      },
      limit + 1,
    );
    const page = rows.slice(0, limit);
    return {
      entries: page.map(toEntry),
      nextBefore: rows.length > limit && page.length > 0 ? String(page[page.length - 1]!.id) : null,
    };
  }
}

function toEntry(r: AuditRow): AuditEntryT {
  return {
    id: String(r.id),
    actor: { type: r.actor_type, id: r.actor_id, name: r.actor_name },
    action: r.action,
    target: { type: r.target_type, id: r.target_id },
    details: r.details,
    ip: r.ip,
    userAgent: r.user_agent,
    createdAt: r.created_at.toISOString(),
  };
}

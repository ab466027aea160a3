import { asJsonText, type JsonText } from '../../http/json-text.js';
import type { Db } from '../../db/index.js';
import type { EventsService } from '../../events/events.service.js';
import { AppError, badRequest, notFound } from '../../http/errors.js';
import { toUser } from './users.presenter.js';
import type { UserT } from './users.schemas.js';
import { newId } from '../../lib/ids.js';
import { hashPassword } from '../../lib/secrets.js';
import { SharedReads } from '../../lib/shared-reads.js';
import type { ApiKeyActor, UserActor } from '../../access/actors.js';
import { requirePermission } from '../../access/guards.js';
import { UsersRepo } from './users.repo.js';
import type { CreateUserInput, UpdateUserInput } from './users.schemas.js';
import { en, pt } from '../../http/language.js';
import { keyChecked } from '../api-keys/index.js';
import type { AuditAction, AuditService } from '../audit/index.js';

const EMAIL_TAKEN = en('Email already in use', 'E-mail já está em uso');
const BAD_ROLE = en(
  'role must be one of the following values: admin, supervisor, agent',
  'role deve ser um dos seguintes valores: admin, supervisor, agent',
);
export const OWN_USER = pt(
  'Você não pode cancelar nem rebaixar o próprio usuário',
  'You cannot cancel or demote your own user',
);

export const USER_NOT_FOUND = pt('Usuário não encontrado', 'User not found');

export class UsersService {
  /** Channel API lists asked for at once with the same key share one statement. */
  private readonly apiLists = new SharedReads<{ json: string; keyActive: boolean }>();

  constructor(
    private readonly db: Db,
    private readonly repo: UsersRepo,
    private readonly events: EventsService,
    private readonly audit: AuditService,
  ) {}

  /**
   * Channel API: active and onboarding users; cancelled users are never listed. Answers the response
   * body itself (an array of `UserSchema`), serialized by PostgreSQL.
   */
  async listForApiKey(actor: ApiKeyActor): Promise<JsonText> {
    const { json, keyActive } = await this.apiLists.read(actor.keyId, () =>
      this.repo.listActiveJson(actor.accountId, actor.keyId),
    );
    keyChecked(actor, keyActive);
    return asJsonText(json);
  }

  async list(actor: UserActor): Promise<UserT[]> {
    return (await this.repo.list(actor.accountId)).map(toUser);
  }

  async get(actor: UserActor, id: string): Promise<UserT> {
    const row = await this.repo.find(actor.accountId, id);
    if (!row) throw notFound();
    return toUser(row);
  }

  async create(actor: UserActor, input: CreateUserInput): Promise<UserT> {
    requirePermission(actor, 'users:manage');
    const email = input.email.trim().toLowerCase();
    if (await this.repo.emailTaken(email)) throw new AppError(409, EMAIL_TAKEN);
    const role = await this.repo.roleByName(actor.accountId, input.role);
    if (!role) throw badRequest([BAD_ROLE]);
    const id = newId();
    const passwordHash = await hashPassword(input.password);
    try {
      await this.db.transaction().execute(async (tx) => {
        await this.repo.insert(tx, {
          id,
          account_id: actor.accountId,
          name: input.name.trim(),
          email,
          status: input.status ?? 'active',
          role_id: role.id,
          password_hash: passwordHash,
        });
        // Never the password: only who the user is and their role.
        await this.audit.record(tx, actor, {
          action: 'user.create',
          target: { type: 'user', id },
          details: { name: input.name.trim(), email, role: input.role, status: input.status ?? 'active' },
        });
      });
    } catch (err) {
      if ((err as { code?: string }).code === '23505') throw new AppError(409, EMAIL_TAKEN);
      throw err;
    }
    return this.get(actor, id);
  }

  async update(actor: UserActor, id: string, input: UpdateUserInput): Promise<UserT> {
    requirePermission(actor, 'users:manage');
    const patch: Parameters<UsersRepo['update']>[3] = {};
    if (input.name !== undefined) patch.name = input.name.trim();
    if (input.status !== undefined) patch.status = input.status;
    if (input.password !== undefined) patch.password_hash = await hashPassword(input.password);
    if (input.role !== undefined) {
      const role = await this.repo.roleByName(actor.accountId, input.role);
      if (!role) throw badRequest([BAD_ROLE]);
      patch.role_id = role.id;
    }
    if (id === actor.userId && (patch.status === 'cancelled' || (input.role && input.role !== 'admin'))) {
      // An admin locking themselves out would leave an account nobody can administer.
      throw badRequest(OWN_USER);
    }
    const current = await this.repo.find(actor.accountId, id);
    if (!current) throw notFound();
    // A new password, a cancellation or another role ends the user's sessions: whoever held a token
    // keeps nothing the change meant to take away (docs/adr/0024-sessions-and-logins.md).
    const endSessions =
      patch.password_hash !== undefined ||
      (patch.status === 'cancelled' && current.status !== 'cancelled') ||
      (patch.role_id !== undefined && patch.role_id !== current.role_id);
    await this.events.transaction(async (tx, events) => {
      if (!(await this.repo.update(tx, actor.accountId, id, patch, { endSessions }))) throw notFound();
      for (const line of userAuditLines(id, current, input, patch)) await this.audit.record(tx, actor, line);
      // Ended sessions, a new status or a new role: the gateway re-checks the user's open connections
      // once this commits (disconnected, or out of the rooms they may no longer see).
      if (endSessions || patch.status !== undefined || patch.role_id !== undefined)
        events.accessChanged(actor.accountId, [id]);
    });
    return this.get(actor, id);
  }
}

/**
 * The lines one update writes: `user.role` for a new role, `user.cancel` for a cancellation,
 * `user.update` for the rest (a new password is named in `changed`, never kept).
 */
function userAuditLines(
  id: string,
  current: { status: string; role_id: string },
  input: UpdateUserInput,
  patch: Parameters<UsersRepo['update']>[3],
): AuditAction[] {
  const target = { type: 'user', id };
  const lines: AuditAction[] = [];
  if (patch.role_id !== undefined && patch.role_id !== current.role_id)
    lines.push({ action: 'user.role', target, details: { role: input.role } });
  if (patch.status === 'cancelled' && current.status !== 'cancelled')
    lines.push({ action: 'user.cancel', target, details: { from: current.status } });
  const changed: string[] = [];
  if (patch.name !== undefined) changed.push('name');
  if (patch.status !== undefined && patch.status !== 'cancelled') changed.push('status');
  if (patch.password_hash !== undefined) changed.push('password');
  if (changed.length > 0)
    lines.push({
      action: 'user.update',
      target,
      details: {
        changed,
        ...(patch.name !== undefined && { name: patch.name }),
        ...(patch.status !== undefined && patch.status !== 'cancelled' && { status: patch.status }),
      },
    });
  return lines;
}

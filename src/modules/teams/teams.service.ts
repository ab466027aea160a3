import { inTransaction, type Db, type Tx } from '../../db/index.js';
import type { AuditService } from '../audit/index.js';
import type { EventsService } from '../../events/events.service.js';
import { badRequest, notFound } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import type { ApiKeyActor, UserActor } from '../../access/actors.js';
import { requirePermission } from '../../access/guards.js';
import type { UsersRepo } from '../users/index.js';
import type { TeamsRepo } from './teams.repo.js';
import type { CreateTeamInput, UpdateTeamInput } from './teams.schemas.js';
import { en, pt } from '../../http/language.js';
import { toTeam } from './teams.presenter.js';
import type { TeamT } from './teams.schemas.js';

export const TEAM_NOT_FOUND = pt('Equipe não encontrada', 'Team not found');

export class TeamsService {
  constructor(
    private readonly db: Db,
    private readonly repo: TeamsRepo,
    private readonly users: UsersRepo,
    private readonly events: EventsService,
    private readonly audit: AuditService,
  ) {}

  async listForApiKey(actor: ApiKeyActor): Promise<TeamT[]> {
    return (await this.repo.list(actor.accountId)).map(toTeam);
  }

  async list(actor: UserActor): Promise<TeamT[]> {
    return (await this.repo.list(actor.accountId)).map(toTeam);
  }

  async get(actor: UserActor, id: string): Promise<TeamT> {
    const row = await this.repo.find(actor.accountId, id);
    if (!row) throw notFound();
    return toTeam(row);
  }

  async create(actor: UserActor, input: CreateTeamInput): Promise<TeamT> {
    requirePermission(actor, 'teams:manage');
    const id = newId();
    await inTransaction(this.db, async (tx) => {
      await this.repo.insert(tx, {
        id,
        account_id: actor.accountId,
        name: input.name.trim(),
        description: input.description ?? null,
      });
      if (input.members) await this.setMembers(tx, actor.accountId, id, input.members);
      await this.audit.record(tx, actor, {
        action: 'team.create',
        target: { type: 'team', id },
        details: { name: input.name.trim(), ...(input.members && { members: input.members }) },
      });
    });
    return this.get(actor, id);
  }

  async update(actor: UserActor, id: string, input: UpdateTeamInput): Promise<TeamT> {
    requirePermission(actor, 'teams:manage');
    await this.events.transaction(async (tx, events) => {
      const { members, ...rest } = input;
      const patch = { ...rest, ...(rest.name !== undefined ? { name: rest.name.trim() } : {}) };
      if (!(await this.repo.update(tx, actor.accountId, id, patch))) throw notFound();
      await this.audit.record(tx, actor, {
        action: 'team.update',
        target: { type: 'team', id },
        details: { changed: Object.keys(input).sort(), ...patch, ...(members && { members }) },
      });
      if (!members) return;
      // Users taken out of the team may no longer see its queue: the gateway re-checks their open
      // connections once this commits.
      const removed = await this.setMembers(tx, actor.accountId, id, members);
      events.accessChanged(actor.accountId, removed);
    });
    return this.get(actor, id);
  }

  /** Replaces the team's members; answers those who were members and no longer are. */
  private async setMembers(tx: Tx, accountId: string, teamId: string, members: string[]): Promise<string[]> {
    const found = await this.users.existing(accountId, members, tx);
    const missing = members.filter((m) => !found.has(m));
    if (missing.length > 0)
      throw badRequest([
        en(
          `members contains unknown users: ${missing.join(', ')}`,
          `members contém usuários desconhecidos: ${missing.join(', ')}`,
        ),
      ]);
    return this.repo.setMembers(tx, teamId, members);
  }
}

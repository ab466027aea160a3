import { inTransaction, type Db } from '../../db/index.js';
import { badRequest, notFound } from '../../http/errors.js';
import { pt } from '../../http/language.js';
import { newId } from '../../lib/ids.js';
import type { UserActor } from '../../access/actors.js';
import type { ChatsService } from '../chats/index.js';
import type { ChatViewRow, ChatViewsRepo } from './chat-views.repo.js';
import {
  MAX_VIEWS,
  type ChatViewT,
  type CreateViewInput,
  type UpdateViewInput,
  type ViewCountsT,
  type ViewFiltersT,
} from './chat-views.schemas.js';

export const TOO_MANY_VIEWS = pt(
  `Você já tem ${MAX_VIEWS} visões salvas, o máximo`,
  `You already have ${MAX_VIEWS} saved views, the most you may have`,
);

function toView(row: ChatViewRow): ChatViewT {
  return {
    id: row.id,
    name: row.name,
    filters: row.filters as ViewFiltersT,
    position: row.position,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/**
 * Each user's saved views of the chat list: their own, never another's (another user's view is 404).
 * A view's filters are checked as the list checks them when it is saved (someone else's desk only with
 * `chats:read_all`: 403), and counted as the list counts them.
 */
export class ChatViewsService {
  constructor(
    private readonly db: Db,
    private readonly repo: ChatViewsRepo,
    private readonly chats: ChatsService,
  ) {}

  async list(actor: UserActor): Promise<ChatViewT[]> {
    return (await this.repo.list(actor.userId)).map(toView);
  }

  async create(actor: UserActor, input: CreateViewInput): Promise<ChatViewT> {
    await this.chats.checkAgentFilters(actor, input.filters);
    const id = newId();
    await inTransaction(this.db, async (tx) => {
      await this.repo.lockUser(tx, actor.userId);
      const views = await this.repo.list(actor.userId, tx);
      if (views.length >= MAX_VIEWS) throw badRequest(TOO_MANY_VIEWS);
      await this.repo.insert(tx, {
        id,
        account_id: actor.accountId,
        user_id: actor.userId,
        name: input.name.trim(),
        filters: JSON.stringify(input.filters),
        position: views.length,
      });
    });
    return this.get(actor, id);
  }

  async update(actor: UserActor, id: string, input: UpdateViewInput): Promise<ChatViewT> {
    if (input.filters) await this.chats.checkAgentFilters(actor, input.filters);
    await inTransaction(this.db, async (tx) => {
      await this.repo.lockUser(tx, actor.userId);
      const patch = {
        ...(input.name !== undefined ? { name: input.name.trim() } : {}),
        ...(input.filters !== undefined ? { filters: JSON.stringify(input.filters) } : {}),
      };
      if (!(await this.repo.update(tx, actor.userId, id, patch))) throw notFound();
      if (input.position === undefined) return;
      const ids = (await this.repo.list(actor.userId, tx)).map((v) => v.id).filter((v) => v !== id);
      ids.splice(Math.min(input.position, ids.length), 0, id);
      await this.repo.reorder(tx, actor.userId, ids);
    });
    return this.get(actor, id);
  }

  async delete(actor: UserActor, id: string): Promise<void> {
    await inTransaction(this.db, async (tx) => {
      await this.repo.lockUser(tx, actor.userId);
      if (!(await this.repo.delete(tx, actor.userId, id))) throw notFound();
      await this.repo.reorder(
        tx,
        actor.userId,
        (await this.repo.list(actor.userId, tx)).map((v) => v.id),
      );
    });
  }

  /** Each view's exact count now, in the views' order (null for filters the user may no longer use). */
  async counts(actor: UserActor): Promise<ViewCountsT> {
    const views = await this.repo.list(actor.userId);
    const totals = await this.chats.countsForUser(
      actor,
      views.map((v) => v.filters as ViewFiltersT),
    );
    return { counts: views.map((v, i) => ({ id: v.id, total: totals[i] ?? null })) };
  }

  private async get(actor: UserActor, id: string): Promise<ChatViewT> {
    const row = (await this.repo.list(actor.userId)).find((v) => v.id === id);
    if (!row) throw notFound();
    return toView(row);
  }
}

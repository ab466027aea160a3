import { AppError, badRequest, forbidden, notFound } from '../../http/errors.js';
import { pt } from '../../http/language.js';
import type { UserActor } from '../../access/actors.js';
import {
  snoozeEnd,
  type ChatMovesService,
  type ChatSnoozeService,
  type ChatsRepo,
  type ChatsService,
} from '../chats/index.js';
import type { TeamsRepo } from '../teams/index.js';
import type { ChatLabelChange, LabelsService } from '../labels/index.js';
import type { BulkActionT } from './bulk.schemas.js';

export const BULK_NOT_YOURS = pt(
  'Em massa, somente os seus chats, os da fila das suas equipes ou, para supervisores, os das equipes que supervisiona',
  'In bulk, only your own chats, those waiting in your teams’ queues or, for supervisors, those of the teams you supervise',
);
export const NO_LABEL_CHANGE = pt(
  'Informe ao menos uma etiqueta em add ou remove',
  'Name at least one label in add or remove',
);

/** How many chats of one request are acted on at once: enough to fill a group commit of transfers. */
export const BULK_CONCURRENCY = 16;

/** One chat's outcome; an error is rendered in the request's language by the route. */
export type BulkOutcome = { chatId: string; ok: true } | { chatId: string; ok: false; error: AppError };

/**
 * Bulk actions on a selection of the chat list (docs/adr/0079-supervisors-step-in-and-bulk-actions.md):
 * each chat goes through the single action's own service (its rules, lock, events and counters), and
 * its outcome is reported apart, so one chat's refusal never stops the others. What is read once for
 * the whole selection: the chats (one statement), the user's teams, the labels. Which chats a user may
 * act on in bulk is narrower than what they may see: their own, those waiting without attendant in
 * their teams, and, for supervisors, every chat of the teams they supervise (admins: every chat).
 */
export class BulkService {
  constructor(
    private readonly chatsRepo: ChatsRepo,
    private readonly chats: ChatsService,
    private readonly teams: TeamsRepo,
    private readonly moves: ChatMovesService,
    private readonly labels: LabelsService,
    private readonly snoozes: ChatSnoozeService,
  ) {}

  async apply(actor: UserActor, chatIds: readonly string[], action: BulkActionT): Promise<BulkOutcome[]> {
    const run = await this.plan(actor, action);
    const [rows, myTeams, supervised] = await Promise.all([
      this.chatsRepo.findMany(actor.accountId, chatIds),
      this.teams.teamsOf(actor.userId).then((ids) => new Set(ids)),
      this.chats.supervisedTeams(actor),
    ]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    const readAll = actor.permissions.has('chats:read_all');
    return mapBounded(chatIds, BULK_CONCURRENCY, async (chatId): Promise<BulkOutcome> => {
      const chat = byId.get(chatId);
      try {
        // Another account's chat, or one the user may not see at all: as the single action, 404.
        const visible =
          chat !== undefined && (readAll || chat.user_id === actor.userId || myTeams.has(chat.team_id));
        if (!chat || !visible) throw notFound();
        const reach =
          chat.user_id === actor.userId ||
          (chat.user_id === null && myTeams.has(chat.team_id)) ||
          supervised === 'all' ||
          supervised.has(chat.team_id);
        if (!reach) throw forbidden(BULK_NOT_YOURS);
        await run(chatId);
        return { chatId, ok: true };
      } catch (err) {
        if (err instanceof AppError) return { chatId, ok: false, error: err };
        throw err;
      }
    });
  }

  /** The single action each chat goes through; what holds for every chat is checked here, once (400). */
  private async plan(actor: UserActor, action: BulkActionT): Promise<(chatId: string) => Promise<unknown>> {
    switch (action.type) {
      case 'assign': {
        const { userId, reasonCode, reason } = action;
        const why = {
          ...(reasonCode !== undefined ? { reasonCode } : {}),
          ...(reason !== undefined ? { reason } : {}),
        };
        return (chatId) => this.moves.transferToUser(actor, chatId, { userId, ...why });
      }
      case 'transfer': {
        const { teamId, reasonCode, reason } = action;
        const why = {
          ...(reasonCode !== undefined ? { reasonCode } : {}),
          ...(reason !== undefined ? { reason } : {}),
        };
        return (chatId) => this.moves.transferToTeam(actor, chatId, { teamId, ...why });
      }
      case 'label': {
        const ids = { add: action.add ?? [], remove: action.remove ?? [] };
        if (ids.add.length + ids.remove.length === 0) throw badRequest(NO_LABEL_CHANGE);
        const change: ChatLabelChange = await this.labels.resolveLabels(actor, ids);
        return (chatId) => this.labels.changeChatLabels(actor, chatId, change);
      }
      case 'close':
        return (chatId) => this.moves.close(actor, chatId);
      case 'snooze': {
        const input = {
          ...(action.until !== undefined ? { until: action.until } : {}),
          ...(action.untilCustomerMessage !== undefined
            ? { untilCustomerMessage: action.untilCustomerMessage }
            : {}),
        };
        // A missing, past or too distant end is the same for every chat: refused once, 400.
        snoozeEnd(input, new Date());
        return (chatId) => this.snoozes.snooze(actor, chatId, input);
      }
    }
  }
}

/** `fn` over `items` with at most `limit` running at once; results in the items' order. */
async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

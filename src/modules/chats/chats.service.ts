import { AppError, forbidden, notFound } from '../../http/errors.js';
import { pageJson, type JsonText } from '../../http/json-text.js';
import { pageInfo } from '../../http/schemas.js';
import { SharedReads } from '../../lib/shared-reads.js';
import type { ApiKeyActor, UserActor } from '../../access/actors.js';
import { keyAllowsChannel } from '../../access/guards.js';
import { keyChecked } from '../api-keys/index.js';
import type { TeamsRepo } from '../teams/index.js';
import type { ChatFilter, ChatListsRepo, ChatSearch, ChatSort } from './chat-lists.repo.js';
import { toChat } from './chats.presenter.js';
import { HIDDEN_QUEUE, type ChatsRepo } from './chats.repo.js';
import type { AgentListQueryT, ChatT, ListChatsQueryT } from './chats.schemas.js';

/** One Channel API page as its statement answers it (ChatListsRepo.listApiPageJson). */
type ApiPage = Awaited<ReturnType<ChatListsRepo['listApiPageJson']>>;

/**
 * Reading chats: the Channel API's and the agents' lists, one chat, who may see it, and whether an
 * API key reaches a channel or a chat. What changes a chat is ChatMovesService's (chat-moves.service.ts).
 */
export class ChatsService {
  /** Channel API pages asked for at once with the same key and query share one statement. */
  private readonly apiPages = new SharedReads<ApiPage>();

  constructor(
    private readonly repo: ChatsRepo,
    private readonly lists: ChatListsRepo,
    private readonly teams: TeamsRepo,
  ) {}

  /**
   * Channel API list: open chats the key may reach, `Observação` left out, newest first. Answers the
   * response body itself (`ChatPageSchema`), serialized by PostgreSQL.
   */
  async listForApiKey(actor: ApiKeyActor, query: ListChatsQueryT): Promise<JsonText> {
    if (query.channelId !== undefined && !keyAllowsChannel(actor, query.channelId)) throw notFound();
    const page = query.page ?? 1;
    const limit = query.limit ?? 20;
    // The contract leaves Observação out of this list, even when a client names it.
    const { total, chatsJson, keyActive } =
      query.queue === HIDDEN_QUEUE
        ? { total: 0, chatsJson: '[]', keyActive: null }
        : await this.apiPages.read(
            // The key decides the account and channels (a key never changes but by revocation).
            JSON.stringify([
              actor.keyId,
              query.channelId,
              query.queue,
              query.teamId,
              query.userId,
              query.label,
              page,
              limit,
            ]),
            () =>
              this.lists.listApiPageJson(
                {
                  accountId: actor.accountId,
                  status: 'open',
                  channelIds: actor.channelIds,
                  // The contract's open chats are every open chat: snoozing only organises the
                  // agents' lists (docs/adr/0078-snooze.md).
                  snoozed: 'include',
                  ...pick(query),
                },
                page,
                limit,
                actor.keyId,
              ),
          );
    // The key checked by the page's own statement; without one, the answer hook looks it up.
    if (keyActive !== null) keyChecked(actor, keyActive);
    // Chats matched on the channel prove it is the account's; only an empty answer needs the lookup
    // (another account's channel is 404), so the common case costs no extra query.
    if (total === 0 && query.channelId !== undefined) {
      await this.assertChannelReachable(actor, query.channelId);
    }
    return pageJson(total, page, limit, 'chats', chatsJson);
  }

  /**
   * 404 unless the key may reach the channel: one of its channels or, for a key on every channel, a
   * channel of its account (another account's channel is outside every key's channels).
   */
  async assertChannelReachable(actor: ApiKeyActor, channelId: string): Promise<void> {
    if (!keyAllowsChannel(actor, channelId)) throw notFound();
    if (actor.channelIds === null && !(await this.repo.channelExists(actor.accountId, channelId))) {
      throw notFound();
    }
  }

  /** 404 unless the key may address the chat: an open chat of its account on one of its channels. */
  async assertChatReachable(actor: ApiKeyActor, chatId: string): Promise<void> {
    const chat = await this.repo.findReach(actor.accountId, chatId);
    if (!chat || chat.status !== 'open' || !keyAllowsChannel(actor, chat.channel_id)) throw notFound();
  }

  /**
   * Agent API list: what the user may see (own teams and own chats, or all with chats:read_all),
   * filtered (`AgentListQueryT`: status, assignee, label and the Channel API's filters), optionally
   * searched by the customer's name or number (`q`), in one of three orders, with its exact total.
   */
  async listForUser(actor: UserActor, query: AgentListQueryT) {
    return this.page(await this.agentFilter(actor, query), query, query.sort ?? 'newest');
  }

  /** Throws as the list would (403) when the user may not use these filters (a view being saved). */
  async checkAgentFilters(actor: UserActor, query: AgentListQueryT): Promise<void> {
    await this.agentFilter(actor, query, []);
  }

  /**
   * The exact number of chats each of these agent-list queries matches for the user (saved views'
   * counts), one statement each, run together; null for a query the user may no longer use (403).
   */
  async countsForUser(actor: UserActor, queries: readonly AgentListQueryT[]): Promise<(number | null)[]> {
    const teamIds = actor.permissions.has('chats:read_all') ? [] : await this.teams.teamsOf(actor.userId);
    return Promise.all(
      queries.map(async (q) => {
        let filter: ChatFilter;
        try {
          filter = await this.agentFilter(actor, q, teamIds);
        } catch (err) {
          if (err instanceof AppError && err.statusCode === 403) return null;
          throw err;
        }
        return this.lists.count(filter);
      }),
    );
  }

  /**
   * The filter of an agent list. `open` leaves snoozed chats out; `snoozed` lists only them; `pending`
   * is an open chat that waits in a queue with no attendant, and, meanwhile, a snoozed one
   * (docs/adr/0078-snooze.md); `assignee` is `mine`, `unassigned` or a user's id — someone else's only for users with
   * `chats:read_all` (403 otherwise: an agent sees their teams' queues, not a colleague's desk).
   */
  private async agentFilter(
    actor: UserActor,
    query: AgentListQueryT,
    teamIds?: readonly string[],
  ): Promise<ChatFilter> {
    const status = query.status ?? 'open';
    const filter: ChatFilter = {
      accountId: actor.accountId,
      status: status === 'closed' ? 'closed' : 'open',
      ...pick(query),
    };
    if (status === 'pending') filter.snoozed = 'pending';
    else if (status === 'snoozed') filter.snoozed = 'only';
    const readAll = actor.permissions.has('chats:read_all');
    const assignee = query.assignee;
    if (assignee === 'unassigned') filter.unassigned = true;
    else if (assignee === 'mine') filter.userId = actor.userId;
    else if (assignee !== undefined) {
      if (assignee !== actor.userId && !readAll) throw forbidden();
      filter.userId = assignee;
    }
    const search = query.q === undefined ? undefined : chatSearch(query.q);
    if (search) filter.search = search;
    if (query.sla !== undefined) filter.sla = query.sla;
    if (!readAll) {
      filter.visibleTo = {
        teamIds: teamIds ?? (await this.teams.teamsOf(actor.userId)),
        userId: actor.userId,
      };
    }
    return filter;
  }

  private async page(filter: ChatFilter, query: ListChatsQueryT, sort: ChatSort = 'newest') {
    const page = query.page ?? 1;
    const limit = query.limit ?? 20;
    const { rows, total } = await this.lists.listPage(filter, page, limit, sort);
    return { ...pageInfo(total, page, limit), chats: rows.map(toChat) };
  }

  async getForUser(actor: UserActor, id: string): Promise<ChatT> {
    const row = await this.repo.find(actor.accountId, id);
    if (!row || !(await this.canSee(actor, row))) throw notFound();
    return toChat(row);
  }

  /** Housekeeping: the list totals' counter slots folded back into one row each; how many rows went. */
  async foldCounts(): Promise<number> {
    return this.lists.foldCounts();
  }

  /**
   * Who may step into a conversation another agent attends — reply in it, take it over, act on it in
   * bulk: admins (`chats:supervise`) in any, supervisors (`chats:supervise_team`) in their teams'.
   */
  async canSupervise(actor: UserActor, chat: { team_id: string }): Promise<boolean> {
    if (actor.permissions.has('chats:supervise')) return true;
    if (!actor.permissions.has('chats:supervise_team')) return false;
    return this.teams.isMember(chat.team_id, actor.userId);
  }

  /**
   * The teams whose conversations the user supervises, for judging many chats at once: 'all' for an
   * admin, their own teams for a supervisor, none for anyone else.
   */
  async supervisedTeams(actor: UserActor): Promise<'all' | ReadonlySet<string>> {
    if (actor.permissions.has('chats:supervise')) return 'all';
    if (!actor.permissions.has('chats:supervise_team')) return new Set();
    return new Set(await this.teams.teamsOf(actor.userId));
  }

  /** Who may see a chat: its attendant, members of its team, and users with chats:read_all. */
  async canSee(actor: UserActor, chat: { team_id: string; user_id: string | null }): Promise<boolean> {
    if (actor.permissions.has('chats:read_all') || chat.user_id === actor.userId) return true;
    return this.teams.isMember(chat.team_id, actor.userId);
  }
}

/**
 * What a search means: something written like a phone number (digits with spaces, `+`, `-`, dots or
 * parentheses) looks for those digits in the contact's number, however it was typed; anything else
 * looks in the name (accents and case ignored) and the address. Blank searches for nothing.
 */
export function chatSearch(q: string): ChatSearch | undefined {
  const term = q.trim();
  if (term === '') return undefined;
  if (/^[\d\s+().-]+$/.test(term) && /\d/.test(term))
    return { kind: 'number', digits: term.replace(/\D/g, '') };
  return { kind: 'text', text: term };
}

type Picked = Pick<ChatFilter, 'channelId' | 'queue' | 'teamId' | 'userId' | 'labelId'>;

function pick(q: ListChatsQueryT): Picked {
  const out: Picked = {};
  if (q.channelId !== undefined) out.channelId = q.channelId;
  if (q.queue !== undefined) out.queue = q.queue;
  if (q.teamId !== undefined) out.teamId = q.teamId;
  if (q.userId !== undefined) out.userId = q.userId;
  if (q.label !== undefined) out.labelId = q.label;
  return out;
}

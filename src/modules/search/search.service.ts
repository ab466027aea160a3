import type { UserActor } from '../../access/actors.js';
import { chatSearch } from '../chats/index.js';
import type { HistoryService } from '../history/index.js';
import { highlight, wordsOf } from './highlight.js';
import type { SearchChatRow, SearchFilter, SearchRepo } from './search.repo.js';
import type { ContactHitT, MessageHitT, SearchChatT, SearchQueryT } from './search.schemas.js';

/** A page of results, read one row past its end. */
function paged<R, T>(rows: R[], page: number, limit: number, map: (rows: R[]) => T[]) {
  const hasNextPage = rows.length > limit;
  return {
    page,
    limit,
    hasNextPage,
    nextPage: hasNextPage ? page + 1 : null,
    results: map(rows.slice(0, limit)),
  };
}

/** What of a search the highlight looks for: the words asked for, not those excluded (`-word`). */
const wantedWords = (q: string) => q.replace(/(^|\s)-\S+/g, ' ');

/**
 * The search box: messages by their words, contacts and conversations by the customer. Every result
 * is something the user may open, by the same rule as opening a chat (HistoryService.viewerOf).
 */
export class SearchService {
  constructor(
    private readonly repo: SearchRepo,
    private readonly history: Pick<HistoryService, 'viewerOf'>,
  ) {}

  private async filterOf(actor: UserActor, query: SearchQueryT): Promise<SearchFilter> {
    const f: SearchFilter = { accountId: actor.accountId, viewer: await this.history.viewerOf(actor) };
    if (query.channelId !== undefined) f.channelId = query.channelId;
    if (query.teamId !== undefined) f.teamId = query.teamId;
    if (query.userId !== undefined) f.userId = query.userId;
    if (query.labelId !== undefined) f.labelId = query.labelId;
    if (query.since !== undefined) f.from = new Date(query.since);
    if (query.until !== undefined) f.to = new Date(query.until);
    return f;
  }

  async messages(actor: UserActor, query: SearchQueryT) {
    const { page, limit } = pageOf(query);
    const q = query.q.trim();
    const rows = await this.repo.messages(
      await this.filterOf(actor, query),
      q,
      limit + 1,
      (page - 1) * limit,
    );
    const shown = rows.slice(0, limit);
    const matched = await this.repo.matchingWords(wordsOf(shown.map((r) => r.text)), wantedWords(q));
    return paged(rows, page, limit, (rs) =>
      rs.map((r): MessageHitT => ({
        id: r.id,
        chatId: r.chat_id,
        origin: r.origin,
        type: r.type,
        userId: r.user_id,
        createdAt: r.created_at.toISOString(),
        highlight: highlight(r.text, matched),
        chat: toSearchChat(r),
      })),
    );
  }

  async contacts(actor: UserActor, query: SearchQueryT) {
    const { page, limit } = pageOf(query);
    const search = chatSearch(query.q);
    if (!search) return paged([], page, limit, () => []);
    const rows = await this.repo.contacts(
      await this.filterOf(actor, query),
      search,
      limit + 1,
      (page - 1) * limit,
    );
    return paged(rows, page, limit, (rs) =>
      rs.map((r): ContactHitT => ({
        id: r.id,
        customerId: r.customer_id,
        channelId: r.channel_id,
        name: r.name ?? r.value,
        value: r.value,
        chat: toSearchChat(r),
      })),
    );
  }

  async chats(actor: UserActor, query: SearchQueryT) {
    const { page, limit } = pageOf(query);
    const search = chatSearch(query.q);
    if (!search) return paged([], page, limit, () => []);
    const rows = await this.repo.chats(
      await this.filterOf(actor, query),
      search,
      limit + 1,
      (page - 1) * limit,
    );
    return paged(rows, page, limit, (rs) => rs.map(toSearchChat));
  }
}

const pageOf = (query: SearchQueryT) => ({ page: query.page ?? 1, limit: query.limit ?? 20 });

function toSearchChat(r: SearchChatRow): SearchChatT {
  return {
    id: r.chat_id,
    status: r.chat_status,
    queue: r.chat_queue,
    channelId: r.chat_channel_id,
    teamId: r.chat_team_id,
    userId: r.chat_user_id,
    customerId: r.customer_id,
    contact: { id: r.contact_id, name: r.contact_name ?? r.contact_value, value: r.contact_value },
    createdAt: r.chat_created_at.toISOString(),
    closedAt: r.chat_closed_at?.toISOString() ?? null,
    lastMessage: r.chat_last_message,
  };
}

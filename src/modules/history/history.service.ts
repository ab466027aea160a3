import { notFound } from '../../http/errors.js';
import { pageInfo } from '../../http/schemas.js';
import type { UserActor } from '../../access/actors.js';
import type { TeamsRepo } from '../teams/index.js';
import type { ConversationRow, HistoryRepo, Viewer } from './history.repo.js';
import type { ConversationSummaryT, CustomerChatsQueryT } from './history.schemas.js';

/**
 * A customer's history: their conversations on every channel that the reader may open. Agents see a
 * customer through their chats, so a customer none of whose chats they may open is 404 to them, as
 * another account's is to everyone.
 */
export class HistoryService {
  constructor(
    private readonly repo: HistoryRepo,
    private readonly teams: TeamsRepo,
  ) {}

  /** The agent whose chats and teams bound what the user may read, or null for a reader of every chat. */
  readerOf(actor: UserActor): string | null {
    return actor.permissions.has('chats:read_all') ? null : actor.userId;
  }

  /** Who the user may read, with the reader's teams, as the search's statements take it. */
  async viewerOf(actor: UserActor): Promise<Viewer> {
    const readerId = this.readerOf(actor);
    return readerId === null ? null : { userId: readerId, teamIds: await this.teams.teamsOf(readerId) };
  }

  async customerChats(actor: UserActor, customerId: string, query: CustomerChatsQueryT) {
    const page = query.page ?? 1;
    const limit = query.limit ?? 20;
    // The agent's teams are read by the statement itself.
    const readerId = this.readerOf(actor);
    const rows = await this.repo.customerChats(
      actor.accountId,
      customerId,
      readerId,
      limit,
      (page - 1) * limit,
    );
    const total =
      rows.length > 0
        ? Number(rows[0]!.total)
        : await this.repo.countCustomerChats(actor.accountId, customerId, readerId);
    if (total === 0) {
      // Everyone may know an account's customer exists only through a chat they may open.
      if (readerId !== null || !(await this.repo.customerExists(actor.accountId, customerId)))
        throw notFound();
    }
    return { ...pageInfo(total, page, limit), chats: rows.map(toSummary) };
  }
}

export function toSummary(r: ConversationRow): ConversationSummaryT {
  return {
    id: r.id,
    channelId: r.channel_id,
    status: r.status,
    queue: r.queue,
    teamId: r.team_id,
    userId: r.user_id,
    contact: { id: r.contact_id, name: r.contact_name ?? r.contact_value, value: r.contact_value },
    createdAt: r.created_at.toISOString(),
    closedAt: r.closed_at?.toISOString() ?? null,
    closedBy: r.closed_by,
    attendants: r.attendants,
    transfers: r.transfers,
    lastMessage: r.last_message,
  };
}

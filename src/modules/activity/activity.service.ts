import type { UserActor } from '../../access/actors.js';
import type { ChatT } from '../chats/index.js';
import { ACTIVITY_EVENTS, ACTIVITY_LINES } from './activity.lines.js';
import type { ActivityRepo } from './activity.repo.js';
import type { ActivityT } from './activity.schemas.js';

/**
 * A conversation's activity — captured, transferred (with the reason), moved to a queue, closed… —
 * read from the event log, for everyone who may see the chat: the agent a team transfer reaches reads
 * why it came.
 */
export class ActivityService {
  constructor(
    private readonly repo: ActivityRepo,
    /** The chat as its reader may see it (404 otherwise). */
    private readonly chats: { getForUser(actor: UserActor, chatId: string): Promise<ChatT> },
  ) {}

  async page(
    actor: UserActor,
    chatId: string,
    query: { beforeSeq?: number; limit?: number },
  ): Promise<{ activity: ActivityT[]; nextBeforeSeq: number | null }> {
    await this.chats.getForUser(actor, chatId);
    const limit = query.limit ?? 100;
    const rows = await this.repo.page(
      actor.accountId,
      chatId,
      ACTIVITY_EVENTS,
      query.beforeSeq ?? null,
      limit + 1,
    );
    const page = rows.slice(0, limit);
    const activity: ActivityT[] = [];
    for (const row of page) {
      const read = ACTIVITY_LINES[row.event];
      if (!read) continue;
      activity.push({
        id: row.id,
        seq: Number(row.seq),
        at: row.occurred_at.toISOString(),
        ...read(row.data),
      });
    }
    const last = page.at(-1);
    return { activity, nextBeforeSeq: rows.length > limit && last ? Number(last.seq) : null };
  }
}

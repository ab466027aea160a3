import type { DraftT } from './drafts.schemas.js';
import { DRAFT_UPDATE } from './drafts.schemas.js';
import type { EventsService } from '../../events/events.service.js';
import { targets } from '../../events/rooms.js';
import { notFound } from '../../http/errors.js';
import type { UserActor } from '../../access/actors.js';
import type { ChatsRepo, ChatsService } from '../chats/index.js';
import type { DraftRow, DraftsRepo } from './drafts.repo.js';

const toDraft = (row: DraftRow): DraftT => ({
  chatId: row.chat_id,
  text: row.text,
  updatedAt: row.updated_at.toISOString(),
});

/**
 * A user's unsent text per chat, kept on the server so it follows them between devices: every change
 * is a `draft.update` to the user's own room. An empty text clears the draft.
 */
export class DraftsService {
  constructor(
    private readonly repo: DraftsRepo,
    private readonly chatsRepo: ChatsRepo,
    private readonly chats: ChatsService,
    private readonly events: EventsService,
  ) {}

  async put(actor: UserActor, chatId: string, text: string): Promise<DraftT> {
    const chat = await this.chatsRepo.find(actor.accountId, chatId);
    if (!chat || !(await this.chats.canSee(actor, chat))) throw notFound();
    return this.events.transaction(async (tx, events) => {
      let draft: DraftT;
      if (text === '') {
        await this.repo.delete(tx, actor.userId, chat.id);
        draft = { chatId: chat.id, text: '', updatedAt: new Date().toISOString() };
      } else {
        draft = toDraft(
          await this.repo.upsert(tx, {
            user_id: actor.userId,
            chat_id: chat.id,
            account_id: actor.accountId,
            text,
          }),
        );
      }
      events.add(actor.accountId, DRAFT_UPDATE, { draft }, targets.personal(actor.userId));
      return draft;
    });
  }

  async list(actor: UserActor): Promise<DraftT[]> {
    return (await this.repo.list(actor.userId)).map(toDraft);
  }
}

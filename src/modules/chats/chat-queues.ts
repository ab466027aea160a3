import type { EventBuffer } from '../../events/events.service.js';
import { targets } from '../../events/rooms.js';
import { type BotReleaseReason, CHAT_BOT_RELEASED, type ChatT } from './chats.schemas.js';

/** The queues a chat moves through (besides those an admin names), and the end of a bot's hold. */

export const QUEUE_WAITING = 'Espera';
export const QUEUE_ATTENDING = 'Em Atendimento';
/** Where a bot holds the conversations it attends (docs/adr/0087-bots.md). */
export const QUEUE_AUTOMATION = 'Automação';

/** What a change that takes a chat from its bot clears. */
export const NO_BOT = { bot_id: null, bot_due_at: null } as const;

/**
 * Records that a bot no longer holds `chat` (its state after the change): the bot hears it (its room,
 * its last event of the conversation) and the timeline gets a line. Every change that takes a chat
 * from its bot calls it; `stamp` as `EventBuffer.add`'s.
 */
export function botReleased(
  events: EventBuffer,
  accountId: string,
  chat: ChatT,
  botId: string,
  reason: BotReleaseReason,
  by: { type: 'user' | 'api_key'; id: string } | null,
  stamp?: string[],
): void {
  events.add(
    accountId,
    CHAT_BOT_RELEASED,
    { chat, botId, reason, ...(by ? { by } : {}) },
    targets.botReleased(chat, botId),
    stamp,
  );
}

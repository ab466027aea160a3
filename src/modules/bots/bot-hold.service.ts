import type { Tx } from '../../db/index.js';
import type { EventBuffer, EventsService } from '../../events/events.service.js';
import { targets } from '../../events/rooms.js';
import type { ApiKeyActor } from '../../access/actors.js';
import {
  botReleased,
  CHAT_QUEUE,
  type ChatsRepo,
  QUEUE_AUTOMATION,
  QUEUE_WAITING,
  toChat,
} from '../chats/index.js';
import { isOpenAt } from '../teams/index.js';
import type { BotsRepo, DueChat } from './bots.repo.js';

/**
 * A bot's hold on conversations (docs/adr/0087-bots.md): a new conversation of a channel routed to a
 * bot enters `Automação` held by it; each customer message makes the bot's answer due; the bot's
 * answer through the Channel API clears it; an overdue answer (or a failing endpoint) hands the
 * conversation to the channel's team. The hold's other ends — a hand-off, an agent's take-over, a
 * close — are the chat moves' (ChatMovesService, `botReleased`).
 */
export class BotHoldService {
  private scheduled: ((at: Date) => void) | null = null;

  constructor(
    private readonly repo: BotsRepo,
    private readonly chats: ChatsRepo,
    private readonly events: EventsService,
  ) {}

  /**
   * The inbound entry point, in the transaction that stores the customer's message, before its events
   * are read: a conversation just opened on a channel whose bot is on (and within its hours) is held by
   * the bot; in one a bot already holds, the bot's answer becomes due. Answers whether the bot took
   * the new conversation (then the channel's built-in flow stays out of it: a bot comes first).
   */
  async customerMessage(tx: Tx, channelId: string, chat: { id: string; created: boolean }): Promise<boolean> {
    if (!chat.created) {
      const due = await this.repo.customerWrote(tx, chat.id);
      if (due) this.scheduled?.(due);
      return false;
    }
    const route = await this.repo.channelRoute(tx, channelId);
    if (!route || !isOpenAt(route.bot_hours, new Date())) return false;
    await this.repo.hold(tx, chat.id, QUEUE_AUTOMATION, route.bot_id, route.reply_timeout_seconds);
    this.scheduled?.(new Date(Date.now() + route.reply_timeout_seconds * 1000));
    return true;
  }

  /**
   * A message accepted through the Channel API into `chatId`: when the key is a bot's, the bot answered
   * (nothing is due any more) and the message is the bot's. Answers the bot's id, if the key is one's.
   */
  async apiMessage(actor: ApiKeyActor, chatId: string): Promise<string | null> {
    const botId = await this.repo.botOfKey(actor.keyId);
    if (botId === undefined) return null;
    await this.repo.botAnswered(chatId, botId);
    return botId;
  }

  /**
   * Hands the conversations whose bot's answer is overdue to their channel's team (`Espera`), in one
   * transaction with their events: a crash rolls it back (still due), and two nodes never hand one
   * over twice (SKIP LOCKED). Answers how many.
   */
  async handOverDue(limit: number): Promise<number> {
    return this.events.transaction(async (tx, events) => {
      const due = await this.repo.lockDue(tx, limit);
      await this.handOver(tx, events, due, (d) => (d.failing ? 'failing' : 'timeout'));
      return due.length;
    });
  }

  /** A deleted bot's conversations go to their channels' teams, in the deletion's transaction. */
  async releaseAll(tx: Tx, events: EventBuffer, botId: string): Promise<void> {
    await this.handOver(tx, events, await this.repo.lockHeld(tx, botId), () => 'deleted');
  }

  nextDue(): Promise<Date | undefined> {
    return this.repo.nextDue();
  }

  /** The worker's timer hears of every hold this node makes (BotTimeoutWorker). */
  onScheduled(listener: ((at: Date) => void) | null): void {
    this.scheduled = listener;
  }

  private async handOver(
    tx: Tx,
    events: EventBuffer,
    chats: readonly DueChat[],
    reason: (d: DueChat) => 'timeout' | 'failing' | 'deleted',
  ): Promise<void> {
    for (const d of chats) await this.repo.handOver(tx, d.id, d.default_team_id, QUEUE_WAITING);
    const byAccount = new Map<string, string[]>();
    for (const d of chats) byAccount.set(d.account_id, [...(byAccount.get(d.account_id) ?? []), d.id]);
    const rows = new Map<string, ReturnType<typeof toChat>>();
    for (const [accountId, ids] of byAccount)
      for (const row of await this.chats.findMany(accountId, ids, tx)) rows.set(row.id, toChat(row));
    for (const d of chats) {
      const c = rows.get(d.id);
      if (!c) continue;
      events.add(
        d.account_id,
        CHAT_QUEUE,
        { chat: c, from: QUEUE_AUTOMATION, to: c.queue },
        targets.chatQueue(c, d.team_id),
      );
      botReleased(events, d.account_id, c, d.bot_id, reason(d), null);
    }
  }
}

import type { Tx } from '../../db/index.js';
import type { EventBuffer, EventsService } from '../../events/events.service.js';
import { targets } from '../../events/rooms.js';
import { badRequest, conflict, forbidden, notFound } from '../../http/errors.js';
import { pt } from '../../http/language.js';
import { actorRef, type UserActor } from '../../access/actors.js';
import { requirePermission } from '../../access/guards.js';
import type { NotificationsService } from '../notifications/index.js';
import { isLockUnavailable } from './chat-moves.service.js';
import { CHAT_CLOSED, TEAM_TRANSFER_WAIT_MS } from './chat-moves.messages.js';
import { CHAT_BUSY } from './held-change.js';
import type { ChatSnoozeRepo } from './chat-snooze.repo.js';
import { toChat } from './chats.presenter.js';
import type { ChatsRepo } from './chats.repo.js';
import { CHAT_SNOOZED, CHAT_UNSNOOZED, type ChatT, type SnoozeReason } from './chats.schemas.js';
import type { ChatsService } from './chats.service.js';

/** How far ahead a snooze may go. */
export const MAX_SNOOZE_MS = 365 * 24 * 60 * 60 * 1000;

export const SNOOZE_NEEDS_END = pt(
  'Informe até quando adiar (until) ou adie até o cliente responder (untilCustomerMessage: true)',
  'Say until when to snooze (until) or snooze until the customer replies (untilCustomerMessage: true)',
);
export const SNOOZE_IN_PAST = pt('O horário do adiamento já passou', 'The snooze time is in the past');
export const SNOOZE_TOO_FAR = pt(
  'Um chat pode ser adiado por no máximo um ano',
  'A chat can be snoozed for at most one year',
);
export const SNOOZE_FORBIDDEN = pt(
  'Somente o atendente do chat, a equipe de um chat sem atendente ou um supervisor pode adiá-lo',
  "Only the chat's attendant, the team of a chat without one, or a supervisor can snooze it",
);
export const CHAT_NOT_SNOOZED = pt('O chat não está adiado', 'The chat is not snoozed');

/** What a snooze asks for: a time, the customer's next message, or both (whichever comes first). */
export interface SnoozeInput {
  /** ISO 8601 date-time, in the future and at most a year away. */
  until?: string;
  untilCustomerMessage?: boolean;
}

/** Tells the wake-up loop of this process when a snooze ends, so it need not wait for its poll. */
export type SnoozeScheduled = (until: Date) => void;

/**
 * Snoozing a conversation (docs/adr/0078-snooze.md): it leaves the open lists (the pending view shows
 * it meanwhile) and comes back at its time or at the customer's next message, whichever comes first,
 * or when an agent ends it. Each start and end is one change under the chat's lock with its event
 * (`chat.snoozed`, `chat.unsnoozed`); a return by itself notifies the attendant, or the team's members
 * when it has none. `snooze` is the one entry for every caller (the route, bulk actions).
 */
export class ChatSnoozeService {
  private scheduled: SnoozeScheduled | null = null;

  constructor(
    private readonly repo: ChatsRepo,
    private readonly snoozes: ChatSnoozeRepo,
    private readonly chats: Pick<ChatsService, 'canSee'>,
    private readonly events: EventsService,
    private readonly notifications: NotificationsService,
  ) {}

  /** The wake-up loop of this process listens here (SnoozeWaker). */
  onScheduled(fn: SnoozeScheduled | null): void {
    this.scheduled = fn;
  }

  /**
   * Snoozes an open chat the user may act on: its attendant, anyone who may see it while it has
   * none (its team's members), or a user with `chats:read_all` (`chats:attend` first). A snoozed chat
   * is snoozed again with the new end. 404 for a chat the user may not see (another account's
   * included), 409 for a closed or busy one, 400 for an end in the past or over a year away.
   */
  async snooze(actor: UserActor, chatId: string, input: SnoozeInput, now = new Date()): Promise<ChatT> {
    requirePermission(actor, 'chats:attend');
    const until = snoozeEnd(input, now);
    const chat = await this.held(actor, chatId, async (tx, held) => {
      if (held.status !== 'open') throw conflict(CHAT_CLOSED);
      mayAct(actor, held);
      await this.snoozes.set(tx, held.id, until, actor.userId);
      return (events, c) =>
        events.add(
          actor.accountId,
          CHAT_SNOOZED,
          {
            chat: c,
            until: until?.toISOString() ?? null,
            untilCustomerMessage: until === null,
            by: actorRef(actor),
          },
          targets.chatSnooze(c),
        );
    });
    if (until) this.scheduled?.(until);
    return chat;
  }

  /** Ends a snooze now, for whoever may snooze the chat; 409 when it is not snoozed. */
  async unsnooze(actor: UserActor, chatId: string): Promise<ChatT> {
    requirePermission(actor, 'chats:attend');
    return this.held(actor, chatId, async (tx, held) => {
      if (held.status !== 'open') throw conflict(CHAT_CLOSED);
      mayAct(actor, held);
      if (held.snoozed_at === null) throw conflict(CHAT_NOT_SNOOZED);
      await this.snoozes.clear(tx, held.id);
      return (events, c) =>
        events.add(
          actor.accountId,
          CHAT_UNSNOOZED,
          { chat: c, reason: 'manual', by: actorRef(actor) },
          targets.chatSnooze(c),
        );
    });
  }

  /**
   * Wakes up to `limit` chats whose time has come, in one transaction with their events and
   * notifications (the wake-up loop's claim): answers how many. Run by any number of nodes at once,
   * each snooze ends once (ChatSnoozeRepo.claimDue).
   */
  async wakeDue(limit: number): Promise<number> {
    return this.events.transaction(async (tx, events) => {
      const due = await this.snoozes.claimDue(tx, limit);
      if (due.length === 0) return 0;
      const byAccount = new Map<string, string[]>();
      for (const d of due) byAccount.set(d.account_id, [...(byAccount.get(d.account_id) ?? []), d.id]);
      const chats: { accountId: string; chat: ChatT }[] = [];
      for (const [accountId, ids] of byAccount) {
        for (const row of await this.repo.findMany(accountId, ids, tx))
          chats.push({ accountId, chat: toChat(row) });
      }
      await this.ended(tx, events, chats, 'time');
      return due.length;
    });
  }

  /**
   * The customer wrote in a snoozed chat, whose snooze the inbound message's statement ended
   * (ChatsRepo.recordInbound): its event and notification, in that transaction.
   */
  async customerWrote(tx: Tx, events: EventBuffer, accountId: string, chat: ChatT): Promise<void> {
    await this.ended(tx, events, [{ accountId, chat }], 'customer_message');
  }

  /** The earliest snooze time (ChatSnoozeRepo.nextDue). */
  nextDue(): Promise<Date | null> {
    return this.snoozes.nextDue();
  }

  /** Snoozes that ended by themselves: `chat.unsnoozed`, and the attendant (or the team) notified. */
  private async ended(
    tx: Tx,
    events: EventBuffer,
    chats: readonly { accountId: string; chat: ChatT }[],
    reason: Exclude<SnoozeReason, 'manual'>,
  ): Promise<void> {
    const teams = await this.snoozes.activeMembers(
      tx,
      chats.filter((c) => c.chat.userId === null).map((c) => c.chat.teamId),
    );
    for (const { accountId, chat } of chats) {
      events.add(accountId, CHAT_UNSNOOZED, { chat, reason }, targets.chatSnooze(chat));
    }
    await this.notifications.notifyEach(
      tx,
      events,
      'chat.unsnoozed',
      chats.map(({ accountId, chat }) => ({
        accountId,
        userIds: chat.userId !== null ? [chat.userId] : (teams.get(chat.teamId) ?? []),
        data: { chatId: chat.id, reason, contact: { name: chat.contact.name, value: chat.contact.value } },
      })),
    );
  }

  /**
   * One change of a chat the user may see, under its row lock: a chat another operation holds past
   * TEAM_TRANSFER_WAIT_MS is 409, one the user may not see 404; answers the chat as the change left it.
   */
  private async held(
    actor: UserActor,
    chatId: string,
    apply: (tx: Tx, chat: Held) => Promise<(events: EventBuffer, chat: ChatT) => void>,
  ): Promise<ChatT> {
    let after: ChatT | undefined;
    try {
      after = await this.events.transaction(async (tx, events) => {
        const locked = await this.repo.lock(tx, actor.accountId, chatId, {
          nowait: false,
          waitMs: TEAM_TRANSFER_WAIT_MS,
        });
        if (!locked || !(await this.chats.canSee(actor, locked))) throw notFound();
        const record = await apply(tx, locked);
        const changed = await this.repo.find(actor.accountId, chatId, tx);
        if (!changed) return undefined;
        const c = toChat(changed);
        record(events, c);
        return c;
      });
    } catch (err) {
      if (isLockUnavailable(err)) throw conflict(CHAT_BUSY);
      throw err;
    }
    if (!after) throw notFound();
    return after;
  }
}

type Held = NonNullable<Awaited<ReturnType<ChatsRepo['lock']>>>;

/** Who may snooze a chat or end its snooze: see `snooze`. */
function mayAct(actor: UserActor, chat: { user_id: string | null }): void {
  if (chat.user_id === null || chat.user_id === actor.userId) return;
  if (actor.permissions.has('chats:read_all')) return;
  throw forbidden(SNOOZE_FORBIDDEN);
}

/** The snooze's time (null: until the customer writes), or 400 with the reason. */
export function snoozeEnd(input: SnoozeInput, now: Date): Date | null {
  if (input.until === undefined) {
    if (input.untilCustomerMessage !== true) throw badRequest(SNOOZE_NEEDS_END);
    return null;
  }
  const until = new Date(input.until);
  if (Number.isNaN(until.getTime())) throw badRequest(SNOOZE_NEEDS_END);
  if (until.getTime() <= now.getTime()) throw badRequest(SNOOZE_IN_PAST);
  if (until.getTime() - now.getTime() > MAX_SNOOZE_MS) throw badRequest(SNOOZE_TOO_FAR);
  return until;
}

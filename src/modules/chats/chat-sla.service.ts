import type { Tx } from '../../db/index.js';
import type { EventsService } from '../../events/events.service.js';
import { targets } from '../../events/rooms.js';
import type { NotificationsService } from '../notifications/index.js';
import { slaDue } from '../teams/index.js';
import type { SlaStart } from './chat-sla.js';
import type { ChatSlaRepo } from './chat-sla.repo.js';
import { toChat } from './chats.presenter.js';
import type { ChatsRepo } from './chats.repo.js';
import { SLA_BREACHED, SLA_KINDS, type ChatT } from './chats.schemas.js';

/** Tells the breach loop of this process of a due instant, so it need not wait for its poll. */
export type SlaScheduled = (dueAt: Date) => void;

/**
 * The conversations' SLA clocks (docs/adr/0088-slas.md). The customer's first message starts them
 * (`started`, in the inbound transaction, only when the team has a target); a person's first reply
 * and the close stop them in the statements that record those; `raiseDue` (the worker role's breach
 * loop) marks the conversations past a due instant breached, each once, with `sla.breached` and a
 * notification to the team's supervisors, in one transaction.
 */
export class ChatSlaService {
  private scheduled: SlaScheduled | null = null;

  constructor(
    private readonly repo: ChatsRepo,
    private readonly slas: ChatSlaRepo,
    private readonly events: EventsService,
    private readonly notifications: NotificationsService,
  ) {}

  /** The breach loop of this process listens here (SlaBreachLoop). */
  onScheduled(fn: SlaScheduled | null): void {
    this.scheduled = fn;
  }

  /** The clock started: the due instants in the team's business hours, stored with the message. */
  async started(tx: Tx, chatId: string, start: SlaStart): Promise<void> {
    const due = slaDue(start.targets, start.hours, start.at);
    if (!due.firstResponseDueAt && !due.resolutionDueAt) return;
    await this.slas.setDue(tx, chatId, due);
    for (const d of [due.firstResponseDueAt, due.resolutionDueAt]) if (d) this.scheduled?.(d);
  }

  /**
   * Raises up to `limit` breaches of each kind whose time has come, in one transaction with their
   * events and notifications: answers how many. Run by any number of nodes at once, each breach is
   * raised once (ChatSlaRepo.claim).
   */
  async raiseDue(limit: number): Promise<number> {
    return this.events.transaction(async (tx, events) => {
      const claimed = [];
      for (const kind of SLA_KINDS) claimed.push(...(await this.slas.claim(tx, kind, limit)));
      if (claimed.length === 0) return 0;
      const byAccount = new Map<string, string[]>();
      for (const c of claimed) byAccount.set(c.account_id, [...(byAccount.get(c.account_id) ?? []), c.id]);
      const chats = new Map<string, ChatT>();
      for (const [accountId, ids] of byAccount)
        for (const row of await this.repo.findMany(accountId, [...new Set(ids)], tx))
          chats.set(row.id, toChat(row));
      const supervisors = await this.slas.supervisors(
        tx,
        [...chats.values()].map((c) => c.teamId),
      );
      const notes = [];
      for (const b of claimed) {
        const chat = chats.get(b.id);
        if (!chat) continue;
        const dueAt = b.due_at.toISOString();
        events.add(b.account_id, SLA_BREACHED, { chat, kind: b.kind, dueAt }, targets.slaBreached(chat));
        notes.push({
          accountId: b.account_id,
          userIds: supervisors.get(chat.teamId) ?? [],
          data: {
            chatId: chat.id,
            teamId: chat.teamId,
            kind: b.kind,
            dueAt,
            contact: { name: chat.contact.name, value: chat.contact.value },
          },
        });
      }
      await this.notifications.notifyEach(tx, events, 'sla.breached', notes);
      return claimed.length;
    });
  }

  /** The earliest due instant still able to breach (ChatSlaRepo.nextDue). */
  nextDue(): Promise<Date | null> {
    return this.slas.nextDue();
  }
}

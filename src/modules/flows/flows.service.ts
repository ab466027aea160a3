import type { Tx } from '../../db/index.js';
import type { LastMessage } from '../../db/types.js';
import type { EventBuffer, EventsService } from '../../events/events.service.js';
import { targets } from '../../events/rooms.js';
import { sendOrderingKey } from '../../jobs/payloads.js';
import type { SendQueue } from '../../jobs/send-queue.js';
import { newId } from '../../lib/ids.js';
import {
  CHAT_CLOSE,
  CHAT_TRANSFER,
  QUEUE_AUTOMATION,
  QUEUE_WAITING,
  type ChatsRepo,
  toChat,
} from '../chats/index.js';
import type { MessageEvents, MessagesRepo } from '../messages/index.js';
import {
  answerOf,
  chosenOption,
  csatMessage,
  type FlowMessage,
  menuMessage,
  menuText,
  openingBodies,
  OPTION_PREFIX,
  ratingOf,
} from './flow.js';
import type { ChatFlowRow, FlowChat, FlowsRepo } from './flows.repo.js';
import { CHAT_CSAT, type FlowSettings } from './flows.schemas.js';

/** The customer's 24-hour window: outside it WhatsApp takes only templates, so the flow says nothing. */
const WINDOW_MS = 24 * 3600_000;
/** Numbers other than 1–5 the customer may answer to the rating before the wait ends. */
const RATING_ATTEMPTS = 2;
/** Waits and idle chats handled per transaction of the timer. */
const BATCH = 100;

/** Reason codes of the flow's transfers (the activity line shows them). */
export const FLOW_CHOSE = 'flow.menu';
export const FLOW_TIMEOUT = 'flow.timeout';
export const FLOW_ATTEMPTS = 'flow.attempts';

/** A channel's flow as the runtime reads it, with what it needs of the channel. */
interface ActiveFlow {
  settings: FlowSettings;
  defaultTeamId: string;
  /** Whether the channel shows WhatsApp interactive messages (WhatsApp Cloud, and the sandbox that stands in for it). */
  interactive: boolean;
}

/** The rating a customer's message gives (or tries to) to their closed conversation. */
export interface PendingRating {
  wait: ChatFlowRow;
  score: number | 'out';
}

/**
 * Built-in flows per channel (docs/adr/0086-built-in-flows.md): admins set a channel's flow; the
 * runtime is called by InboundService in the transaction that accepts a customer's message
 * (`entryQueue`, `onCustomerMessage`, `pendingRating`/`rated`), by ChatMovesService when an agent
 * closes a chat (`onClosed`), and by the worker role's timer (`runDue`). Every message the flow sends
 * is stored and queued for sending in the transaction that decided it, with its events.
 */
export class FlowsService {
  private readonly read = new WeakMap<Tx, Map<string, ActiveFlow | null>>();

  constructor(
    private readonly repo: FlowsRepo,
    private readonly chats: ChatsRepo,
    private readonly messages: MessagesRepo,
    private readonly messageEvents: MessageEvents,
    private readonly sendQueue: SendQueue,
    private readonly events: EventsService,
    private readonly businessHours: {
      isOpen(accountId: string, teamId: string, at?: Date): Promise<boolean>;
    },
    private readonly now: () => Date = () => new Date(),
  ) {}

  // ---- Runtime: the customer's messages ----------------------------------------------------------

  /** The queue a new conversation of the channel opens in: `Automação` when its flow is on, else null. */
  async entryQueue(tx: Tx, channelId: string): Promise<string | null> {
    return (await this.active(tx, channelId)) ? QUEUE_AUTOMATION : null;
  }

  /**
   * A customer's message, stored in `chatId` (locked by the caller): a new conversation in `Automação`
   * is greeted and shown the menu; an answer to the menu routes it, or the menu is asked again.
   */
  async onCustomerMessage(
    tx: Tx,
    events: EventBuffer,
    m: { chatId: string; chatCreated: boolean; channelId: string; content: Record<string, unknown> },
  ): Promise<void> {
    const at = this.now();
    if (m.chatCreated) {
      const flow = await this.active(tx, m.channelId);
      if (!flow) return;
      const { menu, greeting } = flow.settings;
      const chat = await this.repo.startMenu(tx, m.chatId, addMinutes(at, menu.timeoutMinutes));
      if (!chat) return;
      const open = openingBodies(greeting, bodyOf(flow));
      const said = [...(open.greeting ? [text(open.greeting)] : []), this.menu(flow, open.menu)];
      await this.send(tx, events, chat, said);
      return;
    }
    const wait = await this.repo.waitOf(tx, m.chatId);
    if (!wait || wait.stage !== 'menu') return;
    const chat = await this.repo.chat(tx, m.chatId);
    if (!chat || !inFlow(chat)) {
      // An agent took it (capture, transfer, queue move) or it closed: the flow has stopped.
      await this.repo.endWait(tx, m.chatId);
      return;
    }
    const flow = await this.active(tx, m.channelId);
    if (!flow) {
      // Turned off while the customer was choosing: their conversation goes where it would have.
      await this.route(tx, events, chat, null, await this.repo.defaultTeam(tx, chat), FLOW_TIMEOUT, null, at);
      return;
    }
    const { menu } = flow.settings;
    const labels = menu.options.map((o) => o.label);
    const chosen = chosenOption(answerOf(m.content), labels);
    if (chosen !== null) {
      const option = menu.options[chosen]!;
      await this.route(tx, events, chat, flow, option.teamId, FLOW_CHOSE, option.label, at);
      return;
    }
    const attempts = wait.attempts + 1;
    if (attempts >= menu.maxAttempts) {
      await this.route(tx, events, chat, flow, flow.defaultTeamId, FLOW_ATTEMPTS, null, at);
      return;
    }
    await this.repo.setAttempts(tx, chat.id, attempts);
    await this.send(tx, events, chat, [text(menu.invalidReply), this.menu(flow)]);
  }

  /**
   * Whether the customer's message answers the rating asked at the close of their last conversation on
   * the channel (still in its window): a score, or another number (asked again). Anything else ends the
   * wait, and the message opens a conversation as usual (null).
   */
  async pendingRating(
    tx: Tx,
    channelId: string,
    contactId: string,
    content: Record<string, unknown>,
  ): Promise<PendingRating | null> {
    // Only a channel whose flow asks the rating has ratings to wait for (read once per transaction).
    const csat = (await this.active(tx, channelId))?.settings.csat;
    if (!csat) return null;
    const wait = await this.repo.pendingRating(tx, channelId, contactId, this.now());
    if (!wait) return null;
    const score = ratingOf(answerOf(content), csat.labels);
    if (score === null) {
      await this.repo.endWait(tx, wait.chat_id);
      return null;
    }
    return { wait, score };
  }

  /** The rating answered (the customer's message stored in the closed conversation): recorded, thanked, or asked again. */
  async rated(tx: Tx, events: EventBuffer, pending: PendingRating): Promise<void> {
    const chat = await this.repo.chat(tx, pending.wait.chat_id);
    const flow = await this.active(tx, pending.wait.channel_id);
    if (!chat) return;
    const csat = flow?.settings.csat ?? null;
    if (pending.score === 'out') {
      const attempts = pending.wait.attempts + 1;
      if (attempts >= RATING_ATTEMPTS || !csat || !flow) {
        await this.repo.endWait(tx, chat.id);
        return;
      }
      await this.repo.setAttempts(tx, chat.id, attempts);
      await this.send(tx, events, chat, [text(csat.invalidReply), csatMessage(csat, flow.interactive)]);
      return;
    }
    await this.repo.endWait(tx, chat.id);
    const row = await this.repo.rate(tx, {
      chat_id: chat.id,
      account_id: chat.account_id,
      channel_id: chat.channel_id,
      team_id: chat.team_id,
      user_id: chat.user_id,
      score: pending.score,
    });
    if (!row) return;
    events.add(
      chat.account_id,
      CHAT_CSAT,
      {
        csat: {
          chatId: chat.id,
          score: row.score,
          teamId: row.team_id,
          userId: row.user_id,
          ratedAt: row.created_at.toISOString(),
        },
        chat: { id: chat.id, teamId: chat.team_id, userId: chat.user_id, channelId: chat.channel_id },
      },
      targets.chatClose({ id: chat.id, teamId: chat.team_id, userId: chat.user_id }),
    );
    if (csat) await this.send(tx, events, chat, [text(csat.thanks)]);
  }

  // ---- Runtime: the close and the timer ----------------------------------------------------------

  /**
   * A conversation just closed (by an agent, or by the flow): the rating question, when the channel's
   * flow asks it and the customer's window is open.
   */
  async onClosed(tx: Tx, events: EventBuffer, chatId: string, at: Date = this.now()): Promise<void> {
    const chat = await this.repo.chat(tx, chatId);
    if (!chat) return;
    const flow = await this.active(tx, chat.channel_id);
    const csat = flow?.settings.csat;
    if (!flow || !csat || !windowOpen(chat, at)) {
      await this.repo.endWait(tx, chatId);
      return;
    }
    await this.repo.wait(tx, { chat, stage: 'csat', dueAt: addMinutes(at, csat.windowHours * 60) });
    await this.send(tx, events, chat, [csatMessage(csat, flow.interactive)]);
  }

  /**
   * One round of the timer as of `at` (the worker passes the clock; tests a later one): menus
   * unanswered in time go to the default team, ratings not given in their window are forgotten, and
   * conversations idle past the flow's hours are closed. Answers how much it handled (a full batch:
   * call again).
   */
  async runDue(at: Date = this.now()): Promise<number> {
    return this.events.transaction(async (tx, events) => {
      const waits = await this.repo.claimDue(tx, at, BATCH);
      for (const wait of waits) {
        if (wait.stage !== 'menu') continue;
        const chat = await this.repo.chat(tx, wait.chat_id);
        if (!chat || !inFlow(chat)) continue;
        const flow = await this.active(tx, chat.channel_id);
        const team = flow?.defaultTeamId ?? (await this.repo.defaultTeam(tx, chat));
        await this.route(tx, events, chat, flow, team, FLOW_TIMEOUT, null, at);
      }
      const idle = await this.repo.claimIdle(tx, at, BATCH);
      for (const { id, channel_id } of idle) {
        const chat = await this.repo.chat(tx, id);
        const flow = await this.active(tx, channel_id);
        const autoClose = flow?.settings.autoClose;
        if (!chat || !autoClose) continue;
        if (windowOpen(chat, at)) await this.send(tx, events, chat, [text(autoClose.message)]);
        await this.chats.update(tx, chat.id, { status: 'closed', closed_at: at, closed_by: null });
        const after = await this.chats.find(chat.account_id, chat.id, tx);
        if (after) {
          const c = toChat(after);
          events.add(chat.account_id, CHAT_CLOSE, { chat: c }, targets.chatClose(c));
        }
        await this.onClosed(tx, events, chat.id, at);
      }
      return waits.length + idle.length;
    });
  }

  /** The earliest wait still to end (for the timer to wake at), null when none. */
  async nextDue(): Promise<Date | null> {
    return this.repo.nextDue();
  }

  // ---- Parts -------------------------------------------------------------------------------------

  /** The channel's flow when enabled; read once per transaction (an inbound message asks twice). */
  private async active(tx: Tx, channelId: string): Promise<ActiveFlow | null> {
    const seen = this.read.get(tx)?.get(channelId);
    if (seen !== undefined) return seen;
    const flow = await this.readActive(tx, channelId);
    this.read.set(tx, (this.read.get(tx) ?? new Map<string, ActiveFlow | null>()).set(channelId, flow));
    return flow;
  }

  private async readActive(tx: Tx, channelId: string): Promise<ActiveFlow | null> {
    const row = await this.repo.activeOf(tx, channelId);
    if (!row?.enabled || !row.settings) return null;
    return {
      settings: row.settings as FlowSettings,
      defaultTeamId: row.default_team_id,
      interactive: row.provider === 'whatsapp-cloud' || row.provider === 'sandbox',
    };
  }

  /** The menu's message, its body `body` (the greeting may open it) or the prompt and options. */
  private menu(flow: ActiveFlow, body = bodyOf(flow)): FlowMessage {
    return menuMessage(body, labelsOf(flow), {
      interactive: flow.settings.menu.interactive && flow.interactive,
      prefix: OPTION_PREFIX,
      listButton: flow.settings.menu.listButton ?? 'Opções',
    });
  }

  /**
   * The flow's routing: a transfer of the chat to the team's `Espera` (its event and activity line,
   * recorded as the flow's), then the out-of-hours message when the team is closed, else the away
   * message when none of its agents is online. A team no longer active gives way to the default one.
   */
  private async route(
    tx: Tx,
    events: EventBuffer,
    chat: FlowChat,
    flow: ActiveFlow | null,
    teamId: string,
    reasonCode: string,
    reason: string | null,
    at: Date,
  ): Promise<void> {
    const usable = (await this.repo.activeTeams(tx, chat.account_id, [teamId])).has(teamId);
    const to = usable ? teamId : (flow?.defaultTeamId ?? chat.team_id);
    await this.repo.route(tx, chat, { teamId: to, queue: QUEUE_WAITING, reasonCode, reason });
    await this.repo.endWait(tx, chat.id);
    const after = await this.chats.find(chat.account_id, chat.id, tx);
    if (after) {
      const c = toChat(after);
      const from = { teamId: chat.team_id, userId: chat.user_id };
      events.add(
        chat.account_id,
        CHAT_TRANSFER,
        { chat: c, from, to: { teamId: to, userId: null }, reasonCode, reason },
        targets.chatTransfer(c, from),
      );
    }
    if (!flow) return;
    const { outOfHoursMessage, awayMessage } = flow.settings;
    const said: FlowMessage[] = [];
    if (!(await this.businessHours.isOpen(chat.account_id, to, at))) {
      if (outOfHoursMessage) said.push(text(outOfHoursMessage));
    } else if (awayMessage && !(await this.repo.anyoneOnline(tx, to))) {
      said.push(text(awayMessage));
    }
    await this.send(tx, events, { ...chat, team_id: to, user_id: null }, said);
  }

  /**
   * The flow's messages into the chat: stored as the platform's (`origin: system`, `automation: flow`),
   * queued for sending in this transaction (the contact's lane, as agents' replies), the last one the
   * chat's last message; with their events.
   */
  private async send(
    tx: Tx,
    events: EventBuffer,
    chat: FlowChat,
    said: readonly FlowMessage[],
  ): Promise<void> {
    if (said.length === 0) return;
    const rows = said.map((m) => ({
      id: newId(),
      account_id: chat.account_id,
      chat_id: chat.id,
      channel_id: chat.channel_id,
      origin: 'system' as const,
      type: m.type,
      content: m.type === 'text' ? { text: m.text } : { text: m.text, interactive: m.interactive },
      status: 'queued' as const,
      automation: 'flow' as const,
    }));
    const stored = await this.messages.insertMany(tx, rows);
    const lane = sendOrderingKey(chat.channel_id, chat.contact_value);
    await this.sendQueue.enqueue(
      tx,
      rows.map((r) => ({ lane, job: { kind: 'agent_message' as const, messageId: r.id } })),
    );
    const lastRow = rows.at(-1)!;
    const last: LastMessage = {
      id: lastRow.id,
      origin: 'system',
      type: lastRow.type,
      content: said.at(-1)!.text,
      createdAt: (stored.at(-1)?.created_at ?? new Date()).toISOString(),
    };
    await this.chats.update(tx, chat.id, { last_message: last });
    await this.messageEvents.storedInChat(
      tx,
      events,
      chat.account_id,
      chat.id,
      rows.map((r) => r.id),
    );
  }
}

const labelsOf = (flow: ActiveFlow) => flow.settings.menu.options.map((o) => o.label);
const bodyOf = (flow: ActiveFlow) => menuText(flow.settings.menu.prompt, labelsOf(flow));
const text = (t: string): FlowMessage => ({ type: 'text', text: t });
const addMinutes = (at: Date, minutes: number) => new Date(at.getTime() + minutes * 60_000);
const inFlow = (chat: FlowChat) =>
  chat.status === 'open' && chat.queue === QUEUE_AUTOMATION && chat.user_id === null;
const windowOpen = (chat: FlowChat, at: Date) =>
  chat.contact_last_inbound_at !== null && at.getTime() - chat.contact_last_inbound_at.getTime() < WINDOW_MS;

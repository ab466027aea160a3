import type { Tx } from '../../db/index.js';
import { Batcher } from '../../db/batcher.js';
import { EventBuffer, type EventsService } from '../../events/events.service.js';
import { targets } from '../../events/rooms.js';
import { badRequest, conflict, forbidden, notFound } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import { actorRef, type Actor, type UserActor } from '../../access/actors.js';
import { requirePermission } from '../../access/guards.js';
import { keyChecked } from '../api-keys/index.js';
import type { NotificationsService } from '../notifications/index.js';
import { TEAM_NOT_FOUND } from '../teams/index.js';
import { USER_NOT_FOUND } from '../users/index.js';
import type { ChatTransfersRepo, TransferApplied, TransferChange } from './chat-transfers.repo.js';
import { toChat } from './chats.presenter.js';
import type { ChatsRepo } from './chats.repo.js';
import { CHAT_BUSY, heldChange, isLockUnavailable } from './held-change.js';

export { CHAT_BUSY, isLockUnavailable };
import {
  CHAT_CAPTURE,
  CHAT_CLOSE,
  CHAT_QUEUE,
  CHAT_REOPEN,
  CHAT_TRANSFER,
  CHAT_UPDATE,
  type ChatT,
} from './chats.schemas.js';
import type { ChatsService } from './chats.service.js';
import { ALREADY_YOURS, TAKEOVER_FORBIDDEN, TAKEOVER_REASON } from './chat-takeover.js';
import { botReleased, NO_BOT, QUEUE_ATTENDING, QUEUE_AUTOMATION, QUEUE_WAITING } from './chat-queues.js';
import {
  CHAT_CAPTURED,
  CHAT_CLOSED,
  CHAT_NOT_CLOSED,
  CHAT_NOT_WAITING,
  CLOSE_FORBIDDEN,
  NO_ATTENDANT_FOR_QUEUE,
  OPEN_ELSEWHERE,
  TEAM_TRANSFER_WAIT_MS,
} from './chat-moves.messages.js';

type CloseListener = { onClosed(tx: Tx, events: EventBuffer, chatId: string): Promise<void> };
/** A chat as held under its row lock (what `ChatsRepo.lock` reads). */
type HeldChat = NonNullable<Awaited<ReturnType<ChatsRepo['lock']>>>;

export interface TransferToTeamInput {
  teamId: string;
  reasonCode?: string;
  reason?: string;
}
export interface TransferToUserInput {
  userId: string;
  reasonCode?: string;
  reason?: string;
}

/** A deadlock or serialization failure: the statement can simply run again. */
const isRetryable = (err: unknown) => ['40P01', '40001'].includes((err as { code?: string }).code ?? '');

/** Reads and writes a transfer tries before a chat that keeps changing answers 409. */
const TRANSFER_ATTEMPTS = 3;

/**
 * What changes a chat: transfers to a team or a user, a move to another queue, capture, close, and
 * reading it. Each is one change under the chat's lock (a transfer: one statement) with its events.
 */
export class ChatMovesService {
  /** Transfers written together: those that arrive while others are being written share a commit. */
  private readonly transferWrites: Batcher<TransferChange, TransferApplied | undefined>;

  constructor(
    private readonly repo: ChatsRepo,
    private readonly transfers: ChatTransfersRepo,
    /** Who may see a chat, and the chat as its reader gets it. */
    private readonly chats: Pick<ChatsService, 'canSee' | 'canSupervise' | 'getForUser'>,
    private readonly events: EventsService,
    private readonly notifications: NotificationsService,
    /** Read receipts to the provider, queued when an agent reads a chat (ReadReceiptsService). */
    private readonly readReceipts: { chatRead(tx: Tx, chatId: string): Promise<void> },
    /** Told of a close in its transaction: the channel's flow asks the rating (FlowsService.onClosed). */
    private readonly closes: CloseListener | null = null,
  ) {
    this.transferWrites = new Batcher({
      run: (changes) => this.writeTransfers(changes),
      // One transaction at a time: under load each carries every transfer that arrived while the one
      // before committed (measured: 2,300/s with one, 1,900–2,000/s with two or four at once).
      concurrency: 1,
      maxItems: 100,
      maxWeight: 100,
      weight: () => 1,
    });
  }

  /** One batch of transfers' writes (`transferWrites`): each chat at most once, the others alone. */
  private async writeTransfers(changes: TransferChange[]): Promise<(TransferApplied | undefined)[]> {
    const seen = new Set<string>();
    const first = changes.map((c) => {
      if (seen.has(c.chatId)) return false;
      seen.add(c.chatId);
      return true;
    });
    const written = await this.transfers.applyTransfers(changes.filter((_, i) => first[i]));
    let next = 0;
    return changes.map((_, i) => (first[i] ? written[next++] : undefined));
  }

  /**
   * Moves an open chat to the `Espera` queue of another team; the attendant is cleared. Waits up to
   * TEAM_TRANSFER_WAIT_MS for a chat held by another operation, then answers 409.
   */
  async transferToTeam(actor: Actor, chatId: string, input: TransferToTeamInput): Promise<ChatT> {
    return this.transfer(actor, chatId, input, { kind: 'team', id: input.teamId });
  }

  /** Gives an open chat to a user (`Em Atendimento`), replacing any attendant; 409 at once if held. */
  async transferToUser(actor: Actor, chatId: string, input: TransferToUserInput): Promise<ChatT> {
    return this.transfer(actor, chatId, input, { kind: 'user', id: input.userId });
  }

  /**
   * A transfer is two statements: a read of the chat, its visibility and the target, then one write
   * (its own transaction) that locks the chat only if it is still at the version read, and makes the
   * whole change with its events. A transfer is the hottest write of a busy account, and on a loaded
   * machine its cost is its round trips (docs/adr/0047-transfers-in-two-statements.md). A chat
   * changed between the two is read again; one that keeps changing answers 409 like a held one.
   */
  private async transfer(
    actor: Actor,
    chatId: string,
    input: { reasonCode?: string; reason?: string },
    target: { kind: 'team' | 'user'; id: string },
  ): Promise<ChatT> {
    if (actor.kind === 'user') requirePermission(actor, 'chats:transfer');
    const ref = actorRef(actor);
    const reasonCode = input.reasonCode ?? null;
    const reason = input.reason ?? null;
    for (let attempt = 1; ; attempt++) {
      const seen = await this.transfers.transferView(actor.accountId, chatId, {
        channelIds: actor.kind === 'api_key' ? actor.channelIds : null,
        viewer:
          actor.kind === 'user'
            ? { userId: actor.userId, readAll: actor.permissions.has('chats:read_all') }
            : null,
        target,
        keyId: actor.kind === 'api_key' ? actor.keyId : null,
      });
      if (seen && actor.kind === 'api_key') keyChecked(actor, seen.key_active);
      if (!seen || seen.status !== 'open' || !seen.visible) throw notFound();
      if (!seen.target_ok) throw badRequest(target.kind === 'team' ? TEAM_NOT_FOUND : USER_NOT_FOUND);
      const to =
        target.kind === 'team'
          ? { team_id: target.id, user_id: null, queue: QUEUE_WAITING }
          : { team_id: seen.team_id, user_id: target.id, queue: QUEUE_ATTENDING };
      // The chat as the write leaves it; its updatedAt is the write's own time, stamped there.
      const c = toChat({ ...seen, ...to, bot_id: null });
      const from = { teamId: seen.team_id, userId: seen.user_id };
      const events = new EventBuffer();
      events.add(
        actor.accountId,
        CHAT_TRANSFER,
        { chat: c, from, to: { teamId: c.teamId, userId: c.userId }, reasonCode, reason, by: ref },
        targets.chatTransfer(c, from),
        ['chat', 'updatedAt'],
      );
      // The write ends a bot's hold: through the Channel API a hand-off, from the console a take-over.
      if (seen.bot_id !== null) {
        const reason = actor.kind === 'api_key' ? 'handoff' : 'agent';
        botReleased(events, actor.accountId, c, seen.bot_id, reason, ref, ['chat', 'updatedAt']);
      }
      // Whoever is handed a chat hears about it, unless they took it themselves; whom the
      // conversation is with and why it came, so the note can say it without a lookup.
      const notices =
        c.userId !== null && !(actor.kind === 'user' && actor.userId === c.userId)
          ? this.notifications.planned(events, actor.accountId, [c.userId], 'chat.assigned', {
              chatId: c.id,
              by: ref,
              contact: { name: c.contact.name, value: c.contact.value },
              reasonCode,
              reason,
            })
          : [];
      let applied: TransferApplied | undefined;
      const change: TransferChange = {
        chatId: seen.id,
        version: seen.version,
        nowait: target.kind === 'user',
        waitMs: TEAM_TRANSFER_WAIT_MS,
        to,
        transfer: {
          id: newId(),
          from_team_id: seen.team_id,
          to_team_id: to.team_id,
          from_user_id: seen.user_id,
          to_user_id: to.user_id,
          reason_code: reasonCode,
          reason,
          actor_type: ref.type,
          actor_id: ref.id,
        },
        notifications: notices,
        eventsJson: events.json(actor.accountId),
      };
      try {
        // Written with the transfers arriving meanwhile; a chat that is held or has changed is left
        // to the one-chat write, which waits for it or answers 409.
        applied = (await this.transferWrites.submit(change)) ?? (await this.transfers.applyTransfer(change));
      } catch (err) {
        if (isLockUnavailable(err)) throw conflict(CHAT_BUSY);
        if (isRetryable(err) && attempt < TRANSFER_ATTEMPTS) continue;
        throw err;
      }
      if (!applied) {
        if (attempt < TRANSFER_ATTEMPTS) continue;
        throw conflict(CHAT_BUSY);
      }
      events.wrote(Number(applied.last_seq), applied.deliveries);
      await this.events.committed(events);
      return { ...c, updatedAt: applied.updated_at.toISOString() };
    }
  }

  /**
   * A supervisor of the chat's team (an admin: of any) takes an open conversation over with one click:
   * a transfer to themself with the reason code `takeover` (chat-takeover.ts), so its event and
   * activity line are a transfer's, and the agent who had it hears of it at once.
   */
  async takeOver(actor: UserActor, chatId: string): Promise<ChatT> {
    const chat = await this.repo.find(actor.accountId, chatId);
    if (!chat || chat.status !== 'open' || !(await this.chats.canSee(actor, chat))) throw notFound();
    if (!(await this.chats.canSupervise(actor, chat))) throw forbidden(TAKEOVER_FORBIDDEN);
    if (chat.user_id === actor.userId) throw conflict(ALREADY_YOURS);
    return this.transfer(actor, chatId, { reasonCode: TAKEOVER_REASON }, { kind: 'user', id: actor.userId });
  }

  /** Moves a chat to another queue of its team (e.g. `Observação`, `Automação`). */
  async moveToQueue(actor: UserActor, chatId: string, queue: string): Promise<ChatT> {
    requirePermission(actor, 'chats:attend');
    const name = queue.trim();
    try {
      await this.events.transaction(async (tx, events) => {
        const chat = await this.repo.lock(tx, actor.accountId, chatId, {
          nowait: false,
          waitMs: TEAM_TRANSFER_WAIT_MS,
        });
        if (!chat || chat.status !== 'open' || !(await this.chats.canSee(actor, chat))) throw notFound();
        if (name === QUEUE_ATTENDING && chat.user_id === null) {
          throw badRequest(NO_ATTENDANT_FOR_QUEUE);
        }
        // Waiting in `Espera` means waiting for an attendant, so it has none. A person moving a bot's
        // conversation takes it from the bot.
        const patch = name === QUEUE_WAITING ? { queue: name, user_id: null } : { queue: name };
        const release = chat.bot_id !== null && chat.queue !== name;
        await this.repo.update(tx, chat.id, release ? { ...patch, ...NO_BOT } : patch);
        const after = await this.repo.find(actor.accountId, chat.id, tx);
        if (after && (chat.queue !== name || chat.user_id !== after.user_id)) {
          const c = toChat(after);
          events.add(
            actor.accountId,
            CHAT_QUEUE,
            { chat: c, from: chat.queue, to: name, by: actorRef(actor) },
            targets.chatQueue(c, chat.team_id),
          );
          if (release && chat.bot_id !== null)
            botReleased(events, actor.accountId, c, chat.bot_id, 'agent', actorRef(actor));
        }
      });
    } catch (err) {
      if (isLockUnavailable(err)) throw conflict(CHAT_BUSY);
      throw err;
    }
    return this.chats.getForUser(actor, chatId);
  }

  /**
   * An agent takes a waiting chat (`Espera`) of a team they belong to, or a bot's (`Automação`: the
   * agent takes over, the bot is told): queue `Em Atendimento`, the caller as attendant. A chat another
   * operation holds answers 409 at once, like a transfer to a user.
   */
  async capture(actor: UserActor, chatId: string): Promise<ChatT> {
    requirePermission(actor, 'chats:attend');
    return this.change(actor, chatId, true, async (tx, chat) => {
      if (chat.status !== 'open') throw conflict(CHAT_CLOSED);
      if (chat.user_id !== null) throw conflict(CHAT_CAPTURED);
      const bot = chat.bot_id;
      // A conversation a bot or the channel's flow holds may be taken at any moment: the automation stops.
      if (chat.queue !== QUEUE_WAITING && chat.queue !== QUEUE_AUTOMATION) throw conflict(CHAT_NOT_WAITING);
      await this.repo.update(tx, chat.id, {
        queue: QUEUE_ATTENDING,
        user_id: actor.userId,
        ...(bot !== null ? NO_BOT : {}),
      });
      return (events, c) => {
        events.add(actor.accountId, CHAT_CAPTURE, { chat: c, by: actorRef(actor) }, targets.chatCapture(c));
        if (bot !== null) botReleased(events, actor.accountId, c, bot, 'agent', actorRef(actor));
      };
    });
  }

  /** Ends the conversation: by its attendant, or by a user who sees every chat (supervisors, admins). */
  async close(actor: UserActor, chatId: string): Promise<ChatT> {
    requirePermission(actor, 'chats:attend');
    return this.change(actor, chatId, false, async (tx, chat) => {
      if (chat.status !== 'open') throw conflict(CHAT_CLOSED);
      if (chat.user_id !== actor.userId && !actor.permissions.has('chats:read_all')) {
        throw forbidden(CLOSE_FORBIDDEN);
      }
      const bot = chat.bot_id;
      await this.repo.update(tx, chat.id, {
        status: 'closed',
        closed_at: new Date(),
        closed_by: actor.userId,
        ...(bot !== null ? NO_BOT : {}),
      });
      return (events, c) => {
        events.add(actor.accountId, CHAT_CLOSE, { chat: c, by: actorRef(actor) }, targets.chatClose(c));
        if (bot !== null) botReleased(events, actor.accountId, c, bot, 'closed', actorRef(actor));
      };
    });
  }

  /**
   * Opens a closed conversation again, for an agent who may see it (`chats:attend`): it goes to
   * `Em Atendimento` of its team with the caller as attendant, who carries on from its history. The
   * 24-hour window is the customer's and stays as it is: outside it only a template reaches them.
   * A customer who has opened another conversation on the channel since keeps that one (409).
   */
  async reopen(actor: UserActor, chatId: string): Promise<ChatT> {
    requirePermission(actor, 'chats:attend');
    try {
      return await this.change(actor, chatId, true, async (tx, chat) => {
        if (chat.status !== 'closed') throw conflict(CHAT_NOT_CLOSED);
        await this.repo.update(tx, chat.id, {
          status: 'open',
          queue: QUEUE_ATTENDING,
          user_id: actor.userId,
          closed_at: null,
          closed_by: null,
        });
        return (events, c) =>
          events.add(actor.accountId, CHAT_REOPEN, { chat: c, by: actor.userId }, targets.chatReopen(c));
      });
    } catch (err) {
      // chats_one_open_per_contact: the customer's newer open conversation on this channel.
      if ((err as { code?: string }).code === '23505') throw conflict(OPEN_ELSEWHERE);
      throw err;
    }
  }

  /**
   * The customer's messages so far are read: the unread counter starts again from zero, and, on a
   * channel that sends read receipts, the provider is told (by a job: reading never waits on it).
   */
  async markRead(actor: UserActor, chatId: string): Promise<ChatT> {
    return this.change(actor, chatId, false, async (tx, chat) => {
      await this.repo.update(tx, chat.id, { unread_messages: 0 });
      await this.readReceipts.chatRead(tx, chat.id);
      return (events, c) => events.add(actor.accountId, CHAT_UPDATE, { chat: c }, targets.chatUpdate(c));
    });
  }

  /**
   * One change of a chat the user may see, under its row lock ("being processed"); `nowait` answers
   * 409 at once when another operation holds it, otherwise after TEAM_TRANSFER_WAIT_MS. The answer is
   * read under the lock, so an operation queued behind this one cannot show in it.
   */
  private async change(
    actor: UserActor,
    chatId: string,
    nowait: boolean,
    /** Makes the change; returns how to record its event from the chat after it. */
    apply: (tx: Tx, chat: HeldChat) => Promise<(events: EventBuffer, chat: ChatT) => void>,
  ): Promise<ChatT> {
    return heldChange(() =>
      this.events.transaction(async (tx, events) => {
        const chat = await this.repo.lock(tx, actor.accountId, chatId, {
          nowait,
          waitMs: TEAM_TRANSFER_WAIT_MS,
        });
        if (!chat || !(await this.chats.canSee(actor, chat))) throw notFound();
        const record = await apply(tx, chat);
        const after = await this.repo.find(actor.accountId, chat.id, tx);
        if (after) record(events, toChat(after));
        if (chat.status === 'open' && after?.status === 'closed')
          await this.closes?.onClosed(tx, events, chat.id);
        return after;
      }),
    );
  }
}

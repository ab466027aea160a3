import type { Logger } from 'pino';
import type { Db, Tx } from '../../db/index.js';
import type { EventBuffer, EventsService } from '../../events/events.service.js';
import type { LastMessage, ProviderErrorInfo } from '../../db/types.js';
import type { SendOutcome } from '../../jobs/send-dispatcher.js';
import type { LeasedJob } from '../../jobs/send-queue.js';
import { Batcher } from '../../db/batcher.js';
import { newId } from '../../lib/ids.js';
import type { PersistOptions } from '../../lib/persist.js';
import { QUEUE_API, type ChatsRepo } from '../chats/index.js';
import { contactKey, type ContactsRepo } from '../contacts/index.js';
import {
  HOLD_RESULTS,
  holdOutcome,
  judgeFailure,
  recordDeliveredOnSend,
  storedFile,
  type DeliveryChannel,
  type Deliverer,
  type DeliveryResult,
} from './deliver.js';
import type { MessageEvents, MessagesRepo } from '../messages/index.js';
import type { RequestLogsRepo, RequestRow } from './request-logs.repo.js';
import type { MediaBlobsRepo } from '../media/index.js';

/** Outcome transactions in flight at once, and requests per transaction at most. */
const OUTCOME_RUNS = 4;
const OUTCOME_GROUP = 100;
/**
 * Requests at the provider or answered and not yet recorded, at most: the messages a crash of this
 * node would send again. Calling the provider faster than outcomes can be recorded only lengthens the
 * queue of answers waiting for a transaction.
 */
export const MAX_UNRECORDED = 200;

/**
 * How long the conversation step waits for a chat another operation holds (a transfer, a capture)
 * before the attempt is given up and retried later.
 */
const CHAT_LOCK_TIMEOUT_MS = 5_000;

type ChannelOf = DeliveryChannel & { account_id: string; default_team_id: string };

/** One request through an attempt: what each step found. */
interface Work {
  req: RequestRow;
  channel: ChannelOf;
  lastAttempt: boolean;
  conversation?: Conversation;
  result?: DeliveryResult;
  error?: ProviderErrorInfo;
  /** The stored message, once recorded as sent. */
  messageId?: string;
}

const notDone = (err: unknown): SendOutcome => ({
  done: false,
  reason: err instanceof Error ? err.message : String(err),
});

interface Conversation {
  chatId: string;
  contactId: string;
  /** The provider address: the `wa_id` the provider last returned, else the normalized value. */
  to: string;
}

interface Deps {
  db: Db;
  requests: RequestLogsRepo;
  /** Files of media requests, until the provider has them. */
  mediaBlobs: MediaBlobsRepo;
  contacts: ContactsRepo;
  chats: ChatsRepo;
  messages: MessagesRepo;
  deliverer: Deliverer;
  /**
   * Delivery statuses a provider webhook reported before the message's provider id was stored
   * (MessageStatusService): applied in the transaction that stores it.
   */
  statuses: {
    catchUpMany(tx: Tx, items: readonly { channelId: string; providerMessageId: string }[]): Promise<void>;
  };
  /** Agents' replies (ReplySender), sent in the same per-contact order as API requests. */
  replies: { process(messageId: string, lastAttempt: boolean): Promise<void> };
  logger: Logger;
  /** The event log: each step's events are written in its transaction (the gateway sends them). */
  events: EventsService;
  messageEvents: MessageEvents;
  /** How long, and how often, an answer the database cannot take yet is retried; default `HOLD_RESULTS`. */
  holdResults?: Omit<PersistOptions, 'onFailure'>;
}

/**
 * The background half of send-message: one send-queue job per accepted request. Per attempt:
 * take the request (unless already settled: no double send), prepare the conversation under the
 * chat's lock, call the provider outside any transaction, then record the outcome in one
 * transaction. Temporary provider failures are retried by the queue with backoff and jitter; permanent
 * ones, and the last attempt, settle the request as `failed` and finish the job, since an unfinished
 * job would hold its contact's lane forever.
 */
export class SendWorker {
  /** Takes requests for an attempt, with their channels. */
  private readonly claims: Batcher<string, Work | null>;
  /** Contacts and chats of requests about to be sent. */
  private readonly conversations: Batcher<Work, Conversation>;
  /** Outcomes of requests sent or failed for good. */
  private readonly outcomes: Batcher<Work, void>;

  /** How a provider's answer is held while the database cannot record it. */
  private readonly hold: Omit<PersistOptions, 'onFailure'>;
  /** Requests between their provider call and their recorded outcome (`MAX_UNRECORDED`). */
  private unrecorded = 0;
  /** Requests waiting for room under `MAX_UNRECORDED`, in arrival order. */
  private readonly waitingForRoom: (() => void)[] = [];

  constructor(private readonly deps: Deps) {
    this.hold = deps.holdResults ?? HOLD_RESULTS;
    // Group commit for each database step: requests arriving while a step's statements run for others
    // go together in the next run, so under load a few statements carry many messages, and an idle
    // worker still handles a lone message at once.
    const group = { concurrency: 2, maxItems: 500, maxWeight: Number.POSITIVE_INFINITY, weight: () => 0 };
    this.claims = new Batcher({ ...group, run: (ids) => this.claim(ids) });
    this.conversations = new Batcher({ ...group, run: (work) => this.conversationsOf(work) });
    // Outcomes in more, smaller groups: an answered request waits for a free run, and until its group
    // commits, a crash of this node would send it again (docs/adr/0013-send-crash-bound.md).
    this.outcomes = new Batcher({
      ...group,
      concurrency: OUTCOME_RUNS,
      maxItems: OUTCOME_GROUP,
      run: (work) => this.record(work),
    });
  }

  /**
   * Runs the jobs of one fetch (`SendDispatcher`), all of different contacts, and answers one outcome
   * per job as soon as that job is settled: Channel API requests each on its way, their database steps
   * grouped with those of the other requests in flight, and agents' replies one by one. A temporary
   * failure answers "not done" and the queue retries that job with backoff; on the last attempt the
   * handlers settle the message as failed themselves.
   */
  handleBatch(jobs: readonly { job: LeasedJob; lastAttempt: boolean }[]): Promise<SendOutcome>[] {
    return jobs.map(({ job, lastAttempt }) =>
      job.job.kind === 'api_request'
        ? this.processRequest(job.job.requestId, lastAttempt)
        : this.processReply(job.job.messageId, lastAttempt),
    );
  }

  private async processReply(messageId: string, lastAttempt: boolean): Promise<SendOutcome> {
    try {
      await this.deps.replies.process(messageId, lastAttempt);
      return { done: true };
    } catch (err) {
      return notDone(err);
    }
  }

  /**
   * One Channel API request: take it (unless already settled: no double send), prepare the
   * conversation, call the provider outside any transaction, record the outcome. A request not taken
   * (settled, or deleted with its channel) is done.
   */
  private async processRequest(requestId: string, lastAttempt: boolean): Promise<SendOutcome> {
    const { requests, deliverer, logger } = this.deps;
    let claimed: Work | null;
    try {
      claimed = await this.claims.submit(requestId);
    } catch (err) {
      logger.warn({ err, requestId }, 'taking a send request failed; will retry');
      return notDone(err);
    }
    if (!claimed) return { done: true };
    const w = claimed;
    w.lastAttempt = lastAttempt;
    let entered = false;
    try {
      w.conversation = await this.conversations.submit(w);
      await this.enterUnrecorded();
      entered = true;
      const blobId = w.req.media_blob_id;
      // An unhealthy channel fails like a refusal: the message is stored failed in the conversation.
      w.result = await deliverer.deliver(
        w.channel,
        w.conversation.to,
        w.req.payload.message,
        blobId
          ? storedFile(
              () => this.deps.mediaBlobs.load(blobId),
              (mediaId) => requests.setUploadedMedia(requestId, mediaId),
            )
          : undefined,
      );
    } catch (err) {
      const verdict = judgeFailure(err, lastAttempt, 'The request could not be processed');
      w.error = verdict.error;
      if (!verdict.byProvider) logger.error({ err, requestId }, 'send request attempt failed');
      if (verdict.retry) {
        logger.warn(
          { requestId, code: w.error.code, attempt: w.req.attempts },
          'send request will be retried',
        );
        // Nothing was sent: should this fail too, the request stays `processing`, which the next
        // attempt takes just the same.
        await requests
          .requeue(requestId, w.error)
          .catch((e: unknown) => logger.warn({ err: e, requestId }, 'requeueing a send request failed'));
        if (entered) this.leaveUnrecorded();
        return notDone(err);
      }
      logger.warn({ requestId, code: w.error.code }, 'send request failed');
    }
    try {
      await this.recordHeld(w);
    } finally {
      if (entered) this.leaveUnrecorded();
    }
    return { done: true };
  }

  /** Waits for room under `MAX_UNRECORDED` before a provider call. */
  private async enterUnrecorded(): Promise<void> {
    if (this.unrecorded < MAX_UNRECORDED) {
      this.unrecorded++;
      return;
    }
    // The room is handed over by `leaveUnrecorded`, the count unchanged.
    await new Promise<void>((resolve) => this.waitingForRoom.push(resolve));
  }

  private leaveUnrecorded(): void {
    const next = this.waitingForRoom.shift();
    if (next) next();
    else this.unrecorded--;
  }

  /**
   * Records a settled request (`holdOutcome`). A try that failed may have committed all the same (the
   * connection lost after COMMIT): later tries first look whether it did.
   */
  private async recordHeld(w: Work): Promise<void> {
    const { requests, logger } = this.deps;
    const requestId = w.req.request_id;
    await holdOutcome(
      async (tryNumber) => {
        if (tryNumber > 1 && (await requests.isSettled(requestId))) return;
        await this.outcomes.submit(w);
      },
      {
        hold: this.hold,
        logger,
        subject: 'send',
        ids: { requestId, providerMessageId: w.result?.providerMessageId ?? null },
        lost: { status: w.result ? 'sent' : 'failed', error: w.error ?? null },
        leftAs: 'the request stays processing',
      },
    );
  }

  /** Requests taken for an attempt, with their channels, in one statement. */
  private async claim(ids: string[]): Promise<(Work | null)[]> {
    const claimed = new Map(
      (await this.deps.requests.claimWithChannels(ids)).map((c) => [c.req.request_id, c]),
    );
    return ids.map((id) => {
      const c = claimed.get(id);
      return c ? { req: c.req, channel: c.channel, lastAttempt: false } : null;
    });
  }

  /**
   * The conversations of requests about to be sent. The common case — a first attempt that does not
   * close the conversation, to a known contact (nothing to add to it) with an open chat — is one read
   * for all of them; the rest are written in one transaction. The chat's lock would be released at
   * that transaction's commit anyway, before the provider call, so reading without it changes nothing.
   */
  private async conversationsOf(work: Work[]): Promise<Conversation[]> {
    const { chats, contacts, events } = this.deps;
    const plain = work.filter((w) => !w.req.chat_id && !w.req.close_conversation);
    const known = await contacts.openConversations(
      plain.map((w) => ({
        channelId: w.req.channel_id,
        type: w.req.contact.type,
        value: w.req.contact.value,
      })),
    );
    const found = new Map<Work, Conversation>();
    for (const w of plain) {
      const c = known.get(contactKey(w.req.channel_id, w.req.contact.type, w.req.contact.value));
      // A name the contact lacks is written by the transaction below.
      if (c && (c.name !== null || w.req.contact.name === null))
        found.set(w, { chatId: c.chatId, contactId: c.contactId, to: c.providerAddress ?? c.value });
    }
    const rest = work.filter((w) => !found.has(w));
    const written =
      rest.length === 0
        ? []
        : await events.transaction(async (tx, out) => {
            await chats.setLockTimeout(tx, CHAT_LOCK_TIMEOUT_MS);
            return this.conversationsIn(tx, out, rest);
          });
    const byWork = new Map(rest.map((w, i) => [w, written[i]!]));
    return work.map((w) => found.get(w) ?? byWork.get(w)!);
  }

  /**
   * `conversationIn` for many requests in a few statements: a first attempt that does not close the
   * conversation — the common case — needs only its contact and the contact's open chat, so those are
   * written for all of them at once; the others go one by one. Answers in `work`'s order.
   */
  private async conversationsIn(tx: Tx, out: EventBuffer, work: readonly Work[]): Promise<Conversation[]> {
    const { contacts, chats, requests, messageEvents } = this.deps;
    // In channel order: opening chats takes the chat counters' rows, and two transactions taking them
    // in the same order cannot deadlock.
    const simple = work
      .filter((w) => !w.req.chat_id && !w.req.close_conversation)
      .sort((a, b) =>
        a.req.channel_id < b.req.channel_id ? -1 : a.req.channel_id > b.req.channel_id ? 1 : 0,
      );
    const found = new Map(
      (
        await contacts.findOrCreateMany(
          tx,
          simple.map((w) => ({
            id: newId(),
            account_id: w.req.account_id,
            channel_id: w.req.channel_id,
            type: w.req.contact.type,
            value: w.req.contact.value,
            name: w.req.contact.name,
          })),
        )
      ).map((c) => [contactKey(c.channel_id, c.type, c.value), c]),
    );
    const contactOf = (w: Work) => {
      const c = found.get(contactKey(w.req.channel_id, w.req.contact.type, w.req.contact.value));
      if (!c) throw new Error(`contact of request ${w.req.request_id} not stored`);
      return c;
    };
    const opened = await chats.openForMany(
      tx,
      simple.map((w) => ({
        id: newId(),
        account_id: w.req.account_id,
        channel_id: w.req.channel_id,
        contact_id: contactOf(w).id,
        team_id: w.channel.default_team_id,
        queue: QUEUE_API,
      })),
    );
    const byRequest = new Map<string, Conversation>();
    const created = new Map<string, string[]>();
    for (const w of simple) {
      const contact = contactOf(w);
      const chat = opened.get(contact.id);
      if (!chat) throw new Error(`chat of request ${w.req.request_id} not opened`);
      byRequest.set(w.req.request_id, {
        chatId: chat.id,
        contactId: contact.id,
        to: contact.provider_address ?? contact.value,
      });
      if (chat.created) created.set(w.req.account_id, [...(created.get(w.req.account_id) ?? []), chat.id]);
    }
    await requests.setChats(
      tx,
      simple.map((w) => ({ requestId: w.req.request_id, chatId: byRequest.get(w.req.request_id)!.chatId })),
    );
    for (const [accountId, chatIds] of created)
      await messageEvents.chatEvents(tx, out, 'chat.new', accountId, chatIds);
    for (const w of work)
      if (!byRequest.has(w.req.request_id))
        byRequest.set(w.req.request_id, await this.conversationIn(tx, out, w.req, w.channel));
    return work.map((w) => byRequest.get(w.req.request_id)!);
  }

  /**
   * The first attempt closes the contact's open chat when asked to, and opens one in queue API for the
   * channel's default team when none is open; later attempts reuse the chat it recorded.
   */
  private async conversationIn(
    tx: Tx,
    out: EventBuffer,
    req: RequestRow,
    channel: ChannelOf,
  ): Promise<Conversation> {
    const { contacts, chats, requests, messageEvents } = this.deps;
    const contact = await contacts.findOrCreate(tx, {
      id: newId(),
      account_id: req.account_id,
      channel_id: req.channel_id,
      type: req.contact.type,
      value: req.contact.value,
      name: req.contact.name,
    });
    const to = contact.provider_address ?? contact.value;
    if (req.chat_id) {
      const held = await chats.lock(tx, req.account_id, req.chat_id, { nowait: false });
      if (held?.status === 'open') return { chatId: held.id, contactId: contact.id, to };
    }
    const open = () =>
      chats.openFor(tx, {
        id: newId(),
        account_id: req.account_id,
        channel_id: req.channel_id,
        contact_id: contact.id,
        team_id: channel.default_team_id,
        queue: QUEUE_API,
      });
    let chat = await open();
    if (req.close_conversation && !req.chat_id && !chat.created) {
      await chats.update(tx, chat.id, { status: 'closed', closed_at: new Date() });
      await messageEvents.chat(tx, out, 'chat.close', req.account_id, chat.id);
      chat = await open();
    }
    if (chat.created) await messageEvents.chat(tx, out, 'chat.new', req.account_id, chat.id);
    await requests.setChat(tx, req.request_id, chat.id);
    return { chatId: chat.id, contactId: contact.id, to };
  }

  /**
   * Sent and failed requests recorded in one transaction (the batcher retries each alone when it
   * fails), then, for a provider that sends no receipts, the delivery it would have reported.
   */
  private async record(work: Work[]): Promise<void[]> {
    await this.deps.events.transaction((tx, out) => this.recordAllIn(tx, out, work));
    await recordDeliveredOnSend(
      this.deps,
      work.flatMap((w) => (w.result?.deliveredOnSend && w.messageId ? [w.messageId] : [])),
    );
    return work.map(() => undefined);
  }

  /**
   * Sent requests recorded together — their messages, the chats' last messages, the request log, the
   * contacts' provider addresses, their events — in a few statements; failed ones one by one.
   */
  private async recordAllIn(tx: Tx, out: EventBuffer, settle: readonly Work[]): Promise<void> {
    const { requests, contacts, chats, messages, statuses, messageEvents, mediaBlobs } = this.deps;
    const sent = settle.filter((w) => w.result);
    const described = sent.map((w) => {
      w.messageId = newId();
      return describe(w.req, w.result!.mediaId);
    });
    const stored = await messages.insertMany(
      tx,
      sent.map((w, i) => ({
        id: w.messageId!,
        account_id: w.req.account_id,
        chat_id: w.conversation!.chatId,
        channel_id: w.req.channel_id,
        origin: 'api' as const,
        type: described[i]!.type,
        content: described[i]!.content,
        status: 'sent' as const,
        provider_message_id: w.result!.providerMessageId,
        request_id: w.req.request_id,
        error: null,
      })),
    );
    const createdAt = new Map(stored.map((m) => [m.id, m.created_at]));
    await chats.setLastMessages(
      tx,
      sent.map((w, i) => ({
        chatId: w.conversation!.chatId,
        last: {
          id: w.messageId!,
          origin: 'api',
          type: described[i]!.type,
          content: described[i]!.summary,
          createdAt: (createdAt.get(w.messageId!) ?? new Date()).toISOString(),
        },
      })),
    );
    await requests.markSentMany(
      tx,
      sent.map((w) => ({
        requestId: w.req.request_id,
        chatId: w.conversation!.chatId,
        messageId: w.messageId!,
        providerMessageId: w.result!.providerMessageId,
      })),
    );
    // After the request is `sent`: a failure reported before the send was stored fails it again.
    await statuses.catchUpMany(
      tx,
      sent.map((w) => ({ channelId: w.req.channel_id, providerMessageId: w.result!.providerMessageId })),
    );
    // After catchUp, so the events show the status that commits.
    for (const [accountId, list] of byAccount(sent))
      await messageEvents.storedMessages(
        tx,
        out,
        accountId,
        list.map((w) => ({ messageId: w.messageId!, chatId: w.conversation!.chatId })),
      );
    await contacts.setProviderAddresses(
      tx,
      sent.flatMap((w) =>
        w.result!.recipientAddress
          ? [{ id: w.conversation!.contactId, address: w.result!.recipientAddress }]
          : [],
      ),
    );
    for (const w of sent) if (w.req.media_blob_id) await mediaBlobs.delete(tx, w.req.media_blob_id);
    for (const w of settle) if (!w.result) await this.recordFailedIn(tx, out, w);
  }

  private async recordFailedIn(tx: Tx, out: EventBuffer, w: Work): Promise<void> {
    const { requests, messageEvents, mediaBlobs } = this.deps;
    const { req } = w;
    const error = w.error ?? { code: 'internal_error', message: 'The request could not be processed' };
    let messageId: string | null = null;
    if (w.conversation) {
      messageId = newId();
      await this.storeFailedMessage(tx, req, w.conversation.chatId, messageId, error);
      await messageEvents.message(tx, out, 'message.upsert', messageId);
      await messageEvents.chat(tx, out, 'chat.update', req.account_id, w.conversation.chatId);
    }
    await requests.markFailed(tx, req.request_id, error, messageId);
    if (req.media_blob_id) await mediaBlobs.delete(tx, req.media_blob_id);
  }

  /**
   * A failed request's message as the conversation shows it, and the chat's last message (sent ones
   * are stored together by `recordAllIn`).
   */
  private async storeFailedMessage(
    tx: Tx,
    req: RequestRow,
    chatId: string,
    id: string,
    error: ProviderErrorInfo,
  ): Promise<void> {
    const { messages, chats } = this.deps;
    const { type, content, summary } = describe(req, undefined);
    const stored = await messages.insert(tx, {
      id,
      account_id: req.account_id,
      chat_id: chatId,
      channel_id: req.channel_id,
      origin: 'api',
      type,
      content,
      status: 'failed',
      provider_message_id: null,
      request_id: req.request_id,
      error,
    });
    const last: LastMessage = {
      id,
      origin: 'api',
      type,
      content: summary,
      createdAt: stored.created_at.toISOString(),
    };
    await chats.update(tx, chatId, { last_message: last });
  }
}

/** Work items grouped by account, each group in the original order. */
function byAccount(work: readonly Work[]): Map<string, Work[]> {
  const out = new Map<string, Work[]>();
  for (const w of work) out.set(w.req.account_id, [...(out.get(w.req.account_id) ?? []), w]);
  return out;
}

/** Stored type, content and one-line summary of a request's message. */
function describe(
  req: RequestRow,
  mediaId: string | undefined,
): { type: string; content: Record<string, unknown>; summary: string } {
  const { message, pushName } = req.payload;
  switch (message.type) {
    case 'text':
      return {
        type: 'text',
        content: { text: message.text, ...(pushName ? { pushName } : {}) },
        summary: message.text,
      };
    case 'template':
      return {
        type: 'template',
        content: { template: message.template },
        summary: `[template] ${message.template.name}`,
      };
    case 'media': {
      const { byteLength: _bytes, ...media } = message.media;
      return {
        type: message.media.kind,
        content: { media: { ...media, ...(mediaId !== undefined ? { mediaId } : {}) } },
        summary: message.media.caption ?? `[${message.media.kind}]`,
      };
    }
  }
}

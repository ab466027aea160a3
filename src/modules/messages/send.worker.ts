import type { Logger } from 'pino';
import type { Db, Tx } from '../../db/index.js';
import type { EventsService } from '../../events/events.service.js';
import type { LastMessage } from '../../db/types.js';
import type { SendOutcome } from '../../jobs/send-dispatcher.js';
import type { LeasedJob } from '../../jobs/send-queue.js';
import { newId } from '../../lib/ids.js';
import { ProviderError } from '../../providers/types.js';
import type { ChatsRepo } from '../chats/chats.repo.js';
import type { ChannelsRepo } from '../channels/channels.repo.js';
import type { ContactsRepo } from '../contacts/contacts.repo.js';
import type { DeliveryChannel, Deliverer, DeliveryResult, OutboundMessage } from './deliver.js';
import type { MessageEvents } from './message-events.js';
import type { MessagesRepo } from './messages.repo.js';
import type { RequestError, RequestLogsRepo, RequestRow } from './send.repo.js';

/** Queue of the conversations the Channel API opens (DESIGN §3). */
export const API_QUEUE = 'API';

/**
 * How long the conversation step waits for a chat another operation holds (a transfer, a capture)
 * before the attempt is given up and retried later.
 */
const CHAT_LOCK_TIMEOUT_MS = 5_000;

interface Conversation {
  chatId: string;
  contactId: string;
  /** The provider address: the `wa_id` the provider last returned, else the normalized value. */
  to: string;
}

interface Deps {
  db: Db;
  requests: RequestLogsRepo;
  channels: ChannelsRepo;
  contacts: ContactsRepo;
  chats: ChatsRepo;
  messages: MessagesRepo;
  deliverer: Deliverer;
  /**
   * Delivery statuses a provider webhook reported before the message's provider id was stored
   * (MessageStatusService): applied in the transaction that stores it.
   */
  statuses: { catchUp(tx: Tx, channelId: string, providerMessageId: string): Promise<unknown> };
  /** Agents' replies (AgentMessageSender), sent in the same per-contact order as API requests. */
  agentMessages: { process(messageId: string, lastAttempt: boolean): Promise<void> };
  logger: Logger;
  /** The event log: each step's events are written in its transaction, published after commit. */
  events: EventsService;
  messageEvents: MessageEvents;
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
  constructor(private readonly deps: Deps) {}

  /**
   * Runs one job of the send queue (`SendDispatcher`): a Channel API request or an agent's reply. A
   * temporary failure answers "not done" and the queue retries the job with backoff; on the last
   * attempt the handlers settle the message as failed themselves.
   */
  async handle(job: LeasedJob, lastAttempt: boolean): Promise<SendOutcome> {
    try {
      switch (job.job.kind) {
        case 'api_request':
          await this.processRequest(job.job.requestId, lastAttempt);
          break;
        case 'agent_message':
          await this.deps.agentMessages.process(job.job.messageId, lastAttempt);
          break;
      }
      return { done: true };
    } catch (err) {
      return { done: false, reason: err instanceof Error ? err.message : String(err) };
    }
  }

  async processRequest(requestId: string, lastAttempt: boolean): Promise<void> {
    const { requests, channels, deliverer, logger } = this.deps;
    const req = await requests.claim(requestId);
    if (!req) return; // settled already (a redelivered job) or deleted with its channel
    const channel = await channels.find(req.account_id, req.channel_id);
    if (!channel) return;

    let conversation: Conversation | undefined;
    try {
      conversation = await this.prepareConversation(req, channel);
      const blobId = req.media_blob_id;
      const result = await deliverer.deliver(
        channel,
        conversation.to,
        req.payload.message as OutboundMessage,
        blobId
          ? {
              load: async () => {
                const blob = await requests.loadBlob(blobId);
                if (!blob)
                  throw new ProviderError('media_missing', 'The media file is no longer stored', false);
                return {
                  bytes: blob.bytes,
                  mimetype: blob.mimetype,
                  ...(blob.filename ? { filename: blob.filename } : {}),
                };
              },
              uploaded: (mediaId) => requests.setUploadedMedia(requestId, mediaId),
            }
          : undefined,
      );
      await this.recordSent(req, conversation, result);
    } catch (err) {
      const providerError = err instanceof ProviderError ? err : null;
      // Anything but a provider's verdict (database trouble, a chat held too long) is worth retrying.
      const temporary = providerError ? providerError.temporary : true;
      const error: RequestError = providerError
        ? {
            code: providerError.code,
            message: providerError.message,
            ...(providerError.details !== undefined ? { details: providerError.details } : {}),
          }
        : { code: 'internal_error', message: 'The request could not be processed' };
      if (!providerError) logger.error({ err, requestId }, 'send request attempt failed');
      if (temporary && !lastAttempt) {
        logger.warn({ requestId, code: error.code, attempt: req.attempts }, 'send request will be retried');
        await requests.requeue(requestId, error);
        throw err;
      }
      await this.recordFailed(req, conversation, error);
    }
  }

  /**
   * Contact and chat, under the chat's row lock: the "being processed" hold every chat change takes.
   * The first attempt closes the contact's open chat when asked to, and opens one in queue API for the
   * channel's default team when none is open; later attempts reuse the chat it recorded.
   */
  private async prepareConversation(
    req: RequestRow,
    channel: DeliveryChannel & { account_id: string; default_team_id: string },
  ): Promise<Conversation> {
    const { contacts, chats, requests, events, messageEvents } = this.deps;
    return events.transaction(async (tx, out) => {
      await chats.setLockTimeout(tx, CHAT_LOCK_TIMEOUT_MS);
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
          queue: API_QUEUE,
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
    });
  }

  private async recordSent(req: RequestRow, conv: Conversation, result: DeliveryResult): Promise<void> {
    const { requests, contacts, messages, statuses, events, messageEvents } = this.deps;
    const messageId = newId();
    await events.transaction(async (tx, out) => {
      await this.storeMessage(tx, req, conv.chatId, messageId, {
        status: 'sent',
        providerMessageId: result.providerMessageId,
        ...(result.mediaId !== undefined ? { mediaId: result.mediaId } : {}),
      });
      await statuses.catchUp(tx, req.channel_id, result.providerMessageId);
      // After catchUp, so the event shows the status that commits.
      await messageEvents.message(tx, out, 'message.upsert', messageId);
      await messageEvents.chat(tx, out, 'chat.update', req.account_id, conv.chatId);
      await requests.markSent(tx, req.request_id, {
        messageId,
        providerMessageId: result.providerMessageId,
      });
      if (result.recipientAddress)
        await contacts.setProviderAddress(tx, conv.contactId, result.recipientAddress);
      if (req.media_blob_id) await requests.deleteBlob(tx, req.media_blob_id);
    });
    // No receipt will come from such a provider: the follow-up step it would have sent, done here.
    if (result.deliveredOnSend) {
      await events.transaction(async (tx, out) => {
        await messages.setStatus(tx, messageId, 'delivered');
        await messageEvents.message(tx, out, 'message.update', messageId);
      });
    }
  }

  private async recordFailed(req: RequestRow, conv: Conversation | undefined, error: RequestError) {
    const { requests, logger, events, messageEvents } = this.deps;
    logger.warn({ requestId: req.request_id, code: error.code }, 'send request failed');
    await events.transaction(async (tx, out) => {
      let messageId: string | null = null;
      if (conv) {
        messageId = newId();
        await this.storeMessage(tx, req, conv.chatId, messageId, { status: 'failed', error });
        await messageEvents.message(tx, out, 'message.upsert', messageId);
        await messageEvents.chat(tx, out, 'chat.update', req.account_id, conv.chatId);
      }
      await requests.markFailed(tx, req.request_id, error, messageId);
      if (req.media_blob_id) await requests.deleteBlob(tx, req.media_blob_id);
    });
  }

  /** The message as the conversation shows it, and the chat's last message. */
  private async storeMessage(
    tx: Tx,
    req: RequestRow,
    chatId: string,
    id: string,
    outcome:
      | { status: 'sent'; providerMessageId: string; mediaId?: string }
      | { status: 'failed'; error: RequestError },
  ): Promise<void> {
    const { messages, chats } = this.deps;
    const { type, content, summary } = describe(req, outcome.status === 'sent' ? outcome.mediaId : undefined);
    const stored = await messages.insert(tx, {
      id,
      account_id: req.account_id,
      chat_id: chatId,
      channel_id: req.channel_id,
      origin: 'api',
      type,
      content,
      status: outcome.status,
      provider_message_id: outcome.status === 'sent' ? outcome.providerMessageId : null,
      request_id: req.request_id,
      error: outcome.status === 'failed' ? outcome.error : null,
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

import type { Logger } from 'pino';
import type { Tx } from '../../db/index.js';
import type { LastMessage, ProviderErrorInfo } from '../../db/types.js';
import type { EventBuffer } from '../../events/events.service.js';
import { newId } from '../../lib/ids.js';
import type { MediaBlobsRepo } from '../media/index.js';
import type { MessagesRepo } from '../messages/index.js';
import { recordDeliveredOnSend, type DeliveryResult } from './deliver.js';
import type { RequestRow } from './request-logs.repo.js';
import type { Conversation, ConversationDeps, ConversationRequest } from './send-conversation.js';

/**
 * The outcome of a Channel API request's attempt, recorded: a sent message stored with its chat's last
 * message, the request log, the contact's provider address and their events; a failed one stored
 * failed in its conversation (when it has one).
 */

/** A request through an attempt: what each step found. */
export interface Attempt extends ConversationRequest {
  conversation?: Conversation;
  result?: DeliveryResult;
  error?: ProviderErrorInfo;
  /** The stored message, once recorded as sent. */
  messageId?: string;
}

/** What recording uses: the conversation's stores, and the messages, files and statuses. */
export interface OutcomeDeps extends ConversationDeps {
  /** Files of media requests, until the provider has them. */
  mediaBlobs: MediaBlobsRepo;
  messages: MessagesRepo;
  /**
   * Delivery statuses a provider webhook reported before the message's provider id was stored
   * (MessageStatusService): applied in the transaction that stores it.
   */
  statuses: {
    catchUpMany(tx: Tx, items: readonly { channelId: string; providerMessageId: string }[]): Promise<void>;
  };
  logger: Logger;
}

export class SendOutcomes {
  constructor(private readonly deps: OutcomeDeps) {}

  /**
   * Sent and failed requests recorded in one transaction (the batcher retries each alone when it
   * fails), then, for a provider that sends no receipts, the delivery it would have reported.
   */
  async record(work: Attempt[]): Promise<void[]> {
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
  private async recordAllIn(tx: Tx, out: EventBuffer, settle: readonly Attempt[]): Promise<void> {
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
        ...(w.req.payload.botId ? { automation: 'bot' as const, bot_id: w.req.payload.botId } : {}),
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

  private async recordFailedIn(tx: Tx, out: EventBuffer, w: Attempt): Promise<void> {
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
      ...(req.payload.botId ? { automation: 'bot' as const, bot_id: req.payload.botId } : {}),
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
function byAccount(work: readonly Attempt[]): Map<string, Attempt[]> {
  const out = new Map<string, Attempt[]>();
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

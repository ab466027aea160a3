import { inTransaction, type Db } from '../../db/index.js';
import { badRequest, notFound } from '../../http/errors.js';
import { pageInfo } from '../../http/schemas.js';
import { Batcher } from '../../db/batcher.js';
import { newId, uuidv7 } from '../../lib/ids.js';
import { sendOrderingKey } from '../../jobs/payloads.js';
import type { QueuedSend, SendQueue } from '../../jobs/send-queue.js';
import type { UserActor } from '../../access/actors.js';
import { requirePermission } from '../../access/guards.js';
import type { ChannelsRepo, ApiChannel } from '../channels/index.js';
import { normalizeContact, type PhoneDefaultCountry } from '../contacts/index.js';
import { prepareMessage, type SendMessage } from '../message-content/index.js';
import type { DecodedBase64 } from '../../lib/base64-stream.js';
import type { MediaBlobsRepo, NewMediaBlob } from '../media/index.js';
import type { ApiKeyActor } from '../../access/actors.js';
import { keyAllowsChannel, requireScope } from '../../access/guards.js';
import type { ChatsRepo } from '../chats/index.js';
import type { ContactType } from '../../db/types.js';
import type {
  RequestLogQueryT,
  RequestLogT,
  SendChatMessageBodyT,
  SendMessageBodyT,
} from './send.schemas.js';
import { keyOf, type NewRequest, type RequestLogsRepo } from './request-logs.repo.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import { toRequestLog } from './outbound.presenter.js';
import type { BotHoldService } from '../bots/index.js';

interface Accepted {
  row: NewRequest;
  blob: NewMediaBlob | null;
  /** Bytes of `blob`, to weigh batches by. */
  blobBytes: number;
  job: QueuedSend;
}

/** Batches above this many media bytes are split; one larger file is written alone. */
const BATCH_MAX_BYTES = 4 * 1024 * 1024;

/**
 * Channel API send-message: request-time checks (docs/channel-api.md), and the durable acceptance —
 * request log row, media bytes and the `send-message` job committed together —
 * before the 201. The background part is `SendWorker`.
 */
export class SendService {
  private readonly batcher: Batcher<Accepted, string>;

  constructor(
    private readonly db: Db,
    private readonly requests: RequestLogsRepo,
    private readonly mediaBlobs: MediaBlobsRepo,
    private readonly channels: ChannelsRepo,
    private readonly sendQueue: SendQueue,
    private readonly providers: ProviderRegistry,
    /** How a phone written without its country code is read (`ATENDE_PHONE_DEFAULT_COUNTRY`). */
    private readonly phoneDefaultCountry: PhoneDefaultCountry,
    private readonly chats: Pick<ChatsRepo, 'findOpenSendTarget'>,
    /** A bot's key answering in a chat: its answer is no longer due, and the message is the bot's. */
    private readonly bots: Pick<BotHoldService, 'apiMessage'>,
  ) {
    // Few transactions in flight, so that under load each carries many requests: the database's work
    // per request, not the number of transactions, is what bounds acceptance (docs/adr/0010-send-acceptance-group-commit.md).
    this.batcher = new Batcher<Accepted, string>({
      run: (items) => this.write(items),
      concurrency: 2,
      maxItems: 200,
      maxWeight: BATCH_MAX_BYTES,
      weight: (a) => a.blobBytes,
    });
  }

  /**
   * Checks the request, then stores and queues it durably; resolves with its requestId. `file` is the
   * media's base64 as the route streamed and decoded it (the body's `media.base64` is then `""`).
   */
  async accept(
    channel: ApiChannel,
    body: SendMessageBodyT,
    idempotencyKey: string | undefined,
    file: DecodedBase64 | null = null,
    traceparent: string | null = null,
  ): Promise<{ requestId: string }> {
    const issues: string[] = [];
    const contactType = body.contact.type ?? 'phone';
    const contact = normalizeContact(contactType, body.contact.value, this.phoneDefaultCountry);
    if (!contact.ok) issues.push(contact.message);
    else if (contactType === 'email' && channel.provider === 'whatsapp-cloud') {
      issues.push('contact.type must be phone on a WhatsApp channel');
    }
    const recipient = contact.ok
      ? { type: contactType, value: contact.value, name: body.contact.name?.trim() || null }
      : null;
    return this.queue(channel, recipient, body, idempotencyKey, file, issues, null, traceparent);
  }

  /**
   * `sendChatMessage`: a message into an open chat the key reaches, by the chat's id — the same
   * request, checks, queue and 201 as `accept`, its recipient the chat's contact on the chat's channel.
   * A chat of another account, outside the key's channels or closed answers 404, as every Channel API
   * route that names a chat.
   */
  async acceptForChat(
    actor: ApiKeyActor,
    chatId: string,
    body: SendChatMessageBodyT,
    idempotencyKey: string | undefined,
    file: DecodedBase64 | null = null,
    traceparent: string | null = null,
  ): Promise<{ requestId: string }> {
    requireScope(actor, 'chats:write');
    const target = await this.chats.findOpenSendTarget(actor.accountId, chatId);
    if (!target || !keyAllowsChannel(actor, target.channel_id)) throw notFound();
    const channel: ApiChannel = {
      id: target.channel_id,
      accountId: actor.accountId,
      provider: target.provider,
    };
    const recipient = { type: target.contact_type, value: target.contact_value, name: target.contact_name };
    const botId = await this.bots.apiMessage(actor, chatId);
    return this.queue(channel, recipient, body, idempotencyKey, file, [], botId, traceparent);
  }

  /** The part of a send both routes share: the message checked, then stored and queued. */
  private async queue(
    channel: ApiChannel,
    recipient: { type: ContactType; value: string; name: string | null } | null,
    body: SendChatMessageBodyT,
    idempotencyKey: string | undefined,
    file: DecodedBase64 | null,
    issues: string[],
    botId: string | null,
    /** The accepting request's span, when traced: the worker's span continues its trace. */
    traceparent: string | null,
  ): Promise<{ requestId: string }> {
    const prepared = prepareMessage(
      body.message as SendMessage,
      this.providers.get(channel.provider).limits,
      { pathPrefix: 'message.', ...(file ? { base64: file } : {}) },
    );
    if (!prepared.ok) issues.push(...prepared.messages);
    if (issues.length > 0 || !recipient || !prepared.ok) throw badRequest(issues);

    const message = prepared.prepared;
    const requestId = uuidv7();
    let blob: Accepted['blob'] = null;
    if (message.type === 'media') {
      // prepareMessage has checked the base64 is strict and within the limit.
      const base64 = body.message.media?.base64 ?? '';
      blob = {
        id: newId(),
        account_id: channel.accountId,
        mimetype: message.media.mimetype,
        filename: message.media.filename ?? null,
        pieces: file && base64 === '' ? file.pieces : [Buffer.from(base64, 'base64')],
      };
    }
    const pushName = body.message.type === 'text' ? body.message.text?.pushName : undefined;
    const accepted: Accepted = {
      row: {
        request_id: requestId,
        account_id: channel.accountId,
        channel_id: channel.id,
        idempotency_key: idempotencyKey ?? null,
        flow_id: body.flowId ?? null,
        metadata: body.metadata ?? {},
        contact: recipient,
        message_type: message.type,
        template_name: message.type === 'template' ? message.template.name : null,
        close_conversation: body.closeConversation ?? false,
        payload: {
          message,
          ...(pushName ? { pushName } : {}),
          ...(botId ? { botId } : {}),
          ...(traceparent ? { traceparent } : {}),
        },
        media_blob_id: blob?.id ?? null,
      },
      blob,
      blobBytes: message.type === 'media' ? message.media.byteLength : 0,
      job: {
        lane: sendOrderingKey(channel.id, recipient.value),
        job: { kind: 'api_request', requestId },
      },
    };
    return { requestId: await this.batcher.submit(accepted) };
  }

  /** One transaction for a batch of accepted requests; the request id each one answers with. */
  private async write(items: Accepted[]): Promise<string[]> {
    // The common case — no idempotency key, no media bytes — cannot conflict: request rows and jobs go
    // as one prepared statement, a single round trip instead of five.
    if (items.every((a) => a.row.idempotency_key === null && a.blob === null)) {
      await this.requests.insertQueued(
        items.map((a) => a.row),
        items.map((a) => a.job),
      );
      return items.map((a) => a.row.request_id);
    }
    const keys = items.flatMap((a) =>
      a.row.idempotency_key === null ? [] : [{ channelId: a.row.channel_id, key: a.row.idempotency_key }],
    );
    return inTransaction(this.db, async (tx) => {
      await this.requests.clearExpiredKeys(tx, keys);
      const inserted = await this.requests.insertMany(
        tx,
        items.map((a) => a.row),
      );
      // Repeats of a key still in its window (earlier, concurrent, or in this very batch) are not
      // stored again: they answer with the request that holds the key.
      const repeated = items.filter((a) => !inserted.has(a.row.request_id));
      const holders = await this.requests.findByKeys(
        tx,
        repeated.map((a) => ({ channelId: a.row.channel_id, key: a.row.idempotency_key ?? '' })),
      );
      const fresh = items.filter((a) => inserted.has(a.row.request_id));
      await this.mediaBlobs.insert(
        tx,
        fresh.flatMap((a) => (a.blob ? [a.blob] : [])),
      );
      await this.sendQueue.enqueue(
        tx,
        fresh.map((a) => a.job),
      );
      return items.map((a) => {
        if (inserted.has(a.row.request_id)) return a.row.request_id;
        const holder = holders.get(keyOf(a.row.channel_id, a.row.idempotency_key ?? ''));
        if (!holder) throw new Error('an idempotency key conflicted but no request holds it');
        return holder;
      });
    });
  }

  /** A request of this channel, for `GET /channel-api/messages/requests/:requestId`. */
  async getRequest(channel: ApiChannel, requestId: string): Promise<RequestLogT> {
    const row = await this.requests.find(channel.id, requestId);
    if (!row) throw notFound();
    return toRequestLog(row);
  }

  /** The channel's API tab: its request log, newest first. */
  async listRequestLogs(actor: UserActor, channelId: string, query: RequestLogQueryT) {
    requirePermission(actor, 'channels:manage');
    if (!(await this.channels.find(actor.accountId, channelId))) throw notFound();
    const page = query.page ?? 1;
    const limit = query.limit ?? 20;
    const { total, rows } = await this.requests.list(
      {
        channelId,
        ...(query.requestId !== undefined ? { requestId: query.requestId } : {}),
        ...(query.status !== undefined ? { status: query.status } : {}),
        ...(query.flowId !== undefined ? { flowId: query.flowId } : {}),
      },
      page,
      limit,
    );
    return { ...pageInfo(total, page, limit), items: rows.map(toRequestLog) };
  }
}

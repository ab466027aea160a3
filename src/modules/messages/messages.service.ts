import type { Db } from '../../db/index.js';
import type { EventsService } from '../../events/events.service.js';
import type { LastMessage } from '../../db/types.js';
import { badRequest, conflict, forbidden, notFound } from '../../http/errors.js';
import { sendOrderingKey } from '../../jobs/payloads.js';
import type { SendQueue } from '../../jobs/send-queue.js';
import { newId } from '../../lib/ids.js';
import type { UserActor } from '../../access/actors.js';
import { requirePermission } from '../../access/guards.js';
import {
  chatWindow,
  type ChatsRepo,
  CHAT_BUSY,
  CHAT_CLOSED,
  isLockUnavailable,
  TEAM_TRANSFER_WAIT_MS,
  type ChatsService,
} from '../chats/index.js';
import type { ChannelsRepo } from '../channels/index.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import type { OutboundLimits } from '../../providers/types.js';
import type { MessageEvents } from './message-events.js';
import { toMessage } from './messages.presenter.js';
import { type MessageRow, type StoredMedia } from './messages.repo.js';
import type { MessagesRepo } from './messages.repo.js';
import type { MediaStore } from '../media/index.js';
import type { DecodedBase64 } from '../../lib/base64-stream.js';
import {
  DEFAULT_HISTORY_LIMIT,
  type AgentReplyBodyT,
  type MessageHistoryQueryT,
  type MessageT,
} from './messages.schemas.js';
import { prepareMessage, type SendMessage } from '../message-content/index.js';
import { en, pt } from '../../http/language.js';

export const ONLY_ATTENDANT_REPLIES = pt(
  'Somente o atendente do chat pode enviar mensagens; capture ou transfira o chat primeiro',
  "Only the chat's attendant can send messages; capture or transfer the chat first",
);
export const NO_ATTENDANT_TO_SUPERVISE = pt(
  'O chat não tem atendente; capture ou assuma o chat para responder',
  'The chat has no attendant; capture or take it over to reply',
);
export const UNKNOWN_CURSOR = en(
  'before must be the id of a message of this chat',
  'before deve ser o id de uma mensagem desta conversa',
);
export const UNKNOWN_AFTER = en(
  'after must be the id of a message of this chat',
  'after deve ser o id de uma mensagem desta conversa',
);
export const UNKNOWN_AROUND = en(
  'around must be the id of a message of this chat',
  'around deve ser o id de uma mensagem desta conversa',
);
export const ONE_CURSOR = en(
  'at most one of before, after or around may be given',
  'informe no máximo um de before, after ou around',
);
export const EXACTLY_ONE_CONTENT = en(
  'exactly one of text, media or template must be given',
  'informe exatamente um de text, media ou template',
);
/**
 * Free text or media outside the customer's 24-hour window: WhatsApp would refuse it (131047), so it
 * is refused here, before it is stored, with what to do instead.
 */
export const WINDOW_CLOSED = pt(
  'A janela de 24 horas está fechada: o cliente não escreveu nas últimas 24 horas; envie um modelo (template) aprovado',
  'The 24-hour window is closed: the customer has not written in the last 24 hours; send an approved template',
);

/**
 * The agents' side of a conversation: its history, and replies. A reply is stored at once as
 * `queued` with its send-queue job (FIFO per contact, shared with the Channel API's sends) in the
 * same transaction; `ReplySender` delivers it in the background.
 */
export class MessagesService {
  constructor(
    private readonly db: Db,
    private readonly messages: MessagesRepo,
    private readonly chatsRepo: ChatsRepo,
    private readonly chats: ChatsService,
    private readonly sendQueue: SendQueue,
    private readonly events: EventsService,
    private readonly messageEvents: MessageEvents,
    private readonly mediaStore: MediaStore,
    private readonly channels: ChannelsRepo,
    private readonly providers: ProviderRegistry,
  ) {}

  /**
   * A page of the chat's messages, newest first: the newest ones, those `before` or `after` a message,
   * or those `around` one (it, half the page older, the rest newer). `nextBefore` continues with older
   * ones, `nextAfter` with newer ones.
   */
  async history(
    actor: UserActor,
    chatId: string,
    query: MessageHistoryQueryT,
  ): Promise<{ messages: MessageT[]; nextBefore: string | null; nextAfter: string | null }> {
    const chat = await this.chatsRepo.find(actor.accountId, chatId);
    if (!chat || !(await this.chats.canSee(actor, chat))) throw notFound();
    const limit = query.limit ?? DEFAULT_HISTORY_LIMIT;
    const cursors = [query.before, query.after, query.around].filter((c) => c !== undefined);
    if (cursors.length > 1) throw badRequest([ONE_CURSOR]);
    // A cursor from elsewhere would silently give an empty or wrong page; say so instead.
    for (const [id, unknown] of [
      [query.before, UNKNOWN_CURSOR],
      [query.after, UNKNOWN_AFTER],
      [query.around, UNKNOWN_AROUND],
    ] as const) {
      if (id !== undefined && !(await this.messages.existsInChat(this.db, chat.id, id))) {
        throw badRequest([unknown]);
      }
    }
    let older: MessageRow[] = [];
    let newer: MessageRow[] = [];
    let olderLimit = limit;
    let newerLimit = 0;
    if (query.after !== undefined) {
      olderLimit = 0;
      newerLimit = limit;
      newer = await this.messages.pageFrom(
        this.db,
        chat.id,
        { id: query.after, side: 'newer', inclusive: false },
        limit + 1,
      );
    } else if (query.around !== undefined) {
      newerLimit = Math.floor((limit - 1) / 2);
      olderLimit = limit - newerLimit;
      const at = { id: query.around, inclusive: true };
      [older, newer] = await Promise.all([
        this.messages.pageFrom(this.db, chat.id, { ...at, side: 'older' }, olderLimit + 1),
        this.messages.pageFrom(this.db, chat.id, { ...at, side: 'newer' }, newerLimit + 1),
      ]);
    } else {
      older = await this.messages.page(this.db, chat.id, query.before, limit + 1);
    }
    const olderPage = older.slice(0, olderLimit);
    const newerPage = newer.slice(0, newerLimit);
    const page = [...newerPage.reverse(), ...olderPage];
    // Before a message, the newer ones begin with it.
    const newerExists = newer.length > newerLimit || (query.before !== undefined && page.length > 0);
    return {
      messages: page.map(toMessage),
      nextBefore:
        older.length > olderLimit || (query.after !== undefined && page.length > 0)
          ? (page.at(-1)?.id ?? null)
          : null,
      nextAfter: newerExists ? (page[0]?.id ?? null) : null,
    };
  }

  /**
   * Whether this user may reply on this chat now, judged before the reply's body is read (a 100 MB
   * attachment from someone who may not send is refused at its first bytes). The same answers as
   * `reply`, which judges again under the chat's lock.
   */
  async checkMayReply(actor: UserActor, chatId: string): Promise<void> {
    requirePermission(actor, 'chats:attend');
    const chat = await this.chatsRepo.find(actor.accountId, chatId);
    if (!chat || !(await this.chats.canSee(actor, chat))) throw notFound();
    if (chat.status !== 'open') throw conflict(CHAT_CLOSED);
    await this.replyingAs(actor, chat);
  }

  /**
   * Who may reply on an open chat: its attendant, or a supervisor of its team (an admin: of any team)
   * stepping into a conversation another agent attends — their reply is marked as theirs
   * (`bySupervisor`). A chat with no attendant is captured or taken over first, so a conversation
   * always has an attendant. Answers whether the reply is a supervisor's.
   */
  private async replyingAs(
    actor: UserActor,
    chat: { team_id: string; user_id: string | null },
  ): Promise<{ bySupervisor: boolean }> {
    if (chat.user_id === actor.userId) return { bySupervisor: false };
    if (!(await this.chats.canSupervise(actor, chat))) throw forbidden(ONLY_ATTENDANT_REPLIES);
    if (chat.user_id === null) throw forbidden(NO_ATTENDANT_TO_SUPERVISE);
    return { bySupervisor: true };
  }

  /**
   * An attendant's (or a supervisor's, `replyingAs`) reply, stored and queued; checked with the Channel
   * API's own rules. `file` is the media's base64 as the route streamed and
   * decoded it (the body's `media.base64` is then `""`).
   */
  async reply(
    actor: UserActor,
    chatId: string,
    body: AgentReplyBodyT,
    file: DecodedBase64 | null = null,
  ): Promise<MessageT> {
    requirePermission(actor, 'chats:attend');
    // Judged against the limits of the chat's provider, before anything is locked.
    const provider = await this.channels.providerOfChat(actor.accountId, chatId);
    if (!provider) throw notFound();
    const content = this.prepare(body, this.providers.get(provider).limits, file);
    const id = newId();
    try {
      const row = await this.events.transaction(async (tx, events) => {
        const held = await this.chatsRepo.lock(tx, actor.accountId, chatId, {
          nowait: false,
          waitMs: TEAM_TRANSFER_WAIT_MS,
        });
        if (!held || !(await this.chats.canSee(actor, held))) throw notFound();
        if (held.status !== 'open') throw conflict(CHAT_CLOSED);
        const { bySupervisor } = await this.replyingAs(actor, held);
        const chat = await this.chatsRepo.find(actor.accountId, held.id, tx);
        if (!chat) throw notFound();
        // Only a template may open a conversation again; read under the lock, with the inbound that
        // a customer's message records on the same chat.
        if (content.type !== 'template' && !chatWindow(chat.contact_last_inbound_at).open) {
          throw conflict(WINDOW_CLOSED);
        }

        const stored = await this.messages.insert(tx, {
          id,
          account_id: actor.accountId,
          chat_id: chat.id,
          channel_id: chat.channel_id,
          origin: 'user',
          type: content.type,
          content: content.content,
          status: 'queued',
          user_id: actor.userId,
          by_supervisor: bySupervisor,
        });
        // The file is kept in the media store under the message's id: the worker uploads it from
        // there, and agents open it there (GET /api/messages/:id/media) for as long as the message exists.
        if (content.blob) {
          const { pieces, ...stored } = content.blob;
          await this.mediaStore.put(tx, { key: id, accountId: actor.accountId, ...stored }, pieces);
        }
        const last: LastMessage = {
          id,
          origin: 'user',
          type: content.type,
          content: content.summary,
          createdAt: stored.created_at.toISOString(),
          userId: actor.userId,
        };
        await this.chatsRepo.update(tx, chat.id, { last_message: last }, { byPerson: true });
        await this.sendQueue.enqueue(tx, [
          {
            lane: sendOrderingKey(chat.channel_id, chat.contact_value),
            job: { kind: 'agent_message', messageId: id },
          },
        ]);
        await this.messageEvents.message(tx, events, 'message.upsert', id);
        await this.messageEvents.chat(tx, events, 'chat.update', actor.accountId, chat.id);
        return this.messages.find(tx, id);
      });
      if (!row) throw notFound();
      return toMessage(row);
    } catch (err) {
      if (isLockUnavailable(err)) throw conflict(CHAT_BUSY);
      throw err;
    }
  }

  /** The reply as it will be stored, or the Channel API's 400 sentences for it. */
  private prepare(
    body: AgentReplyBodyT,
    limits: OutboundLimits,
    file: DecodedBase64 | null,
  ): {
    type: string;
    content: Record<string, unknown>;
    summary: string;
    blob: { mimetype: string; filename: string | null; pieces: readonly Uint8Array[] } | null;
  } {
    const given = [body.text, body.media, body.template].filter((v) => v !== undefined).length;
    if (given !== 1) throw badRequest([EXACTLY_ONE_CONTENT]);
    // prepareMessage judges the JSON whatever its static type, as for the Channel API's body.
    const message = (
      body.text !== undefined
        ? { type: 'text', text: { value: body.text } }
        : body.media !== undefined
          ? { type: 'media', media: body.media }
          : { type: 'template', template: body.template }
    ) as SendMessage;
    const result = prepareMessage(message, limits, file ? { base64: file } : {});
    // The Channel API nests the text in `text.value`; here it is `text` itself.
    if (!result.ok) throw badRequest(result.messages.map((m) => m.replace(/^text\.value /, 'text ')));
    const prepared = result.prepared;
    switch (prepared.type) {
      case 'text':
        return { type: 'text', content: { text: prepared.text }, summary: prepared.text, blob: null };
      case 'template':
        // Stored as the Channel API stores a template it sends: the resolved, sendable template.
        return {
          type: 'template',
          content: { template: prepared.template },
          summary: `[template] ${prepared.template.name}`,
          blob: null,
        };
      case 'media': {
        const { kind, mimetype, filename, caption, byteLength } = prepared.media;
        const media: StoredMedia = {
          kind,
          mimetype,
          ...(filename !== undefined ? { filename } : {}),
          ...(caption !== undefined ? { caption } : {}),
          status: 'ready',
          size: byteLength,
        };
        return {
          type: kind,
          content: { media },
          summary: caption ?? `[${kind}]`,
          // prepareMessage has checked the base64 is strict and within the provider's limit.
          blob: {
            mimetype,
            filename: filename ?? null,
            pieces:
              file && body.media?.base64 === ''
                ? file.pieces
                : [Buffer.from(body.media?.base64 ?? '', 'base64')],
          },
        };
      }
    }
  }
}

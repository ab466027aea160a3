import type { Logger } from 'pino';
import type { Tx } from '../../db/index.js';
import type { EventBuffer } from '../../events/events.service.js';
import type { InboundTargetAction } from '../../providers/types.js';
import type { ContactsRepo } from '../contacts/index.js';
import type { MessageEvents, MessagesRepo } from '../messages/index.js';

/** The links of an inbound message to other messages and to its contact, besides its content. */
export interface InboundLinks {
  /** The message it replies to (`content.context`). */
  replyTo?: string | null;
  /** An edit, revoke or reaction, applied to the message it names (`content[kind]`). */
  action?: InboundTargetAction;
  /** The customer changed their number: the contact follows (canonical value and provider address). */
  numberChange?: { value: string; providerAddress: string };
}

/** Earlier versions kept on an edited message, at most. */
const MAX_EDITS = 20;

type Content = Record<string, unknown>;
const obj = (v: unknown): Content | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Content) : undefined;

/**
 * The part of receiving a customer's message that reaches beyond it: replies, edits, revokes and
 * reactions resolved to the stored message they name, and a number change moving the contact. Runs in
 * the transaction that stores the message, and only when it is stored (not a redelivery), so nothing
 * is applied twice.
 */
export class InboundActions {
  constructor(
    private readonly messages: MessagesRepo,
    private readonly contacts: ContactsRepo,
    private readonly messageEvents: MessageEvents,
    private readonly logger: Logger,
  ) {}

  /**
   * The content to store: the messages it names (by provider id) get our ids, `messageId`, or null
   * when they are not stored (sent before the channel existed, or not arrived yet).
   */
  async resolve(
    tx: Tx,
    channelId: string,
    content: Content,
    links: InboundLinks | undefined,
  ): Promise<Content> {
    if (!links) return content;
    const named = [links.replyTo, links.action?.providerMessageId].filter((v): v is string => !!v);
    if (named.length === 0) return content;
    const found = new Map(
      (await this.messages.findByProviderIds(tx, channelId, named)).map((r) => [r.provider_message_id, r.id]),
    );
    const out = { ...content };
    const fill = (key: string, providerMessageId: string) => {
      const current = obj(out[key]) ?? {};
      out[key] = { ...current, providerMessageId, messageId: found.get(providerMessageId) ?? null };
    };
    if (links.replyTo) fill('context', links.replyTo);
    if (links.action) fill(links.action.kind, links.action.providerMessageId);
    return out;
  }

  /** After the message is stored: applies its action to the message it names, moves the contact. */
  async apply(
    tx: Tx,
    events: EventBuffer,
    at: {
      channelId: string;
      contactId: string;
      messageId: string;
      providerMessageId: string | null;
      /** When the customer did it (orders edits and reactions that arrive out of order). */
      sentAt: string;
    },
    links: InboundLinks | undefined,
  ): Promise<void> {
    if (links?.action) await this.applyToTarget(tx, events, at, links.action);
    if (links?.numberChange) await this.changeNumber(tx, at, links.numberChange);
  }

  private async applyToTarget(
    tx: Tx,
    events: EventBuffer,
    at: { channelId: string; messageId: string; providerMessageId: string | null; sentAt: string },
    action: InboundTargetAction,
  ): Promise<void> {
    const target = await this.messages.lockByProviderId(tx, at.channelId, action.providerMessageId);
    const log = this.logger.child({
      channelId: at.channelId,
      providerMessageId: at.providerMessageId,
      target: action.providerMessageId,
    });
    if (!target) {
      // Kept as its own message (with `messageId: null`), so nothing the customer did is lost.
      log.warn(
        { action: action.kind },
        'inbound %s names a message not stored; kept on its own',
        action.kind,
      );
      return;
    }
    if (action.kind !== 'reaction' && target.origin !== 'contact') {
      log.warn(
        { action: action.kind },
        'inbound %s names a message the customer did not send; not applied',
        action.kind,
      );
      return;
    }
    const content = target.content;
    let next: Content;
    if (action.kind === 'reaction') {
      const current = obj(content.reaction);
      // A reaction older than the one shown arrived late: the newer one stays.
      if (typeof current?.at === 'string' && current.at > at.sentAt) return;
      next = { ...content };
      if (action.emoji === null) delete next.reaction;
      else next.reaction = { emoji: action.emoji, at: at.sentAt, messageId: at.messageId };
    } else if (action.kind === 'revoke') {
      // The text stays for the agents (the conversation's record); the console marks it deleted.
      next = { ...content, revokedAt: at.sentAt };
    } else {
      const previous = {
        text: typeof content.text === 'string' ? content.text : null,
        at: content.editedAt ?? content.sentAt ?? null,
      };
      const edits = Array.isArray(content.edits) ? (content.edits as unknown[]) : [];
      const media = obj(content.media);
      next = {
        ...content,
        ...(action.text !== null ? { text: action.text } : {}),
        ...(media && action.text !== null ? { media: { ...media, caption: action.text } } : {}),
        edits: [...edits, previous].slice(-MAX_EDITS),
        editedAt: at.sentAt,
      };
    }
    await this.messages.setContent(tx, target.id, next);
    await this.messageEvents.message(tx, events, 'message.update', target.id);
  }

  private async changeNumber(
    tx: Tx,
    at: { channelId: string; contactId: string; providerMessageId: string | null },
    change: { value: string; providerAddress: string },
  ): Promise<void> {
    const moved = await this.contacts.changeNumber(tx, at.contactId, change.value, change.providerAddress);
    if (!moved) {
      // Another contact already has the new number: both stay (merging histories is an agent's call),
      // and replies to this contact go to the new number.
      this.logger.warn(
        { channelId: at.channelId, contactId: at.contactId, providerMessageId: at.providerMessageId },
        'customer changed to a number another contact has; only the reply address moved',
      );
    }
  }
}

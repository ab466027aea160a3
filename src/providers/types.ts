import type { Context } from '@opentelemetry/api';
import type { DeliveryDetails, InboundProviderError } from '../db/types.js';

// Stored with messages and request logs, so the database's types declare them (src/db/types.ts).
export type {
  DeliveryConversation,
  DeliveryDetails,
  DeliveryPricing,
  InboundProviderError,
} from '../db/types.js';

/**
 * What the send pipeline hands to a provider: a message already validated and normalized at request
 * time (amounts in integers, template variables resolved to components), so a provider only maps it
 * to its wire format.
 */

export interface ProviderAmount {
  value: number; // integer, smallest currency unit
  offset: number; // 100 = two decimal places
}

/** One placeholder value; `parameterName` set for named template parameters. */
export interface TemplateParam {
  text: string;
  parameterName?: string;
}

export interface PreparedOrderDetails {
  referenceId: string;
  type: string;
  paymentType: string;
  currency: string;
  totalAmount: ProviderAmount;
  paymentSettings: Array<{
    type: 'pix_dynamic_code';
    pixDynamicCode: { code: string; merchantName: string; key: string; keyType: string };
  }>;
  order: {
    status: string;
    items: Array<{ retailerId: string; name: string; amount: ProviderAmount; quantity: number }>;
    subtotal: ProviderAmount;
    /** Always present: the provider is sent a zero tax when the request had none. */
    tax: ProviderAmount & { description?: string };
  };
}

export interface PreparedTemplate {
  name: string;
  language: string; // default pt_BR
  header: TemplateParam[];
  body: TemplateParam[];
  /** `url` button parameters, by button index. */
  urlButtons: Array<{ index: number; params: TemplateParam[] }>;
  mediaHeader?: { format: 'image' | 'video' | 'document'; link?: string; fileId?: string; filename?: string };
  orderDetails: Array<{ index: number; orderDetails: PreparedOrderDetails }>;
}

export type MediaKind = 'image' | 'video' | 'audio' | 'document' | 'sticker';

export interface PreparedMedia {
  kind: MediaKind;
  mimetype: string;
  /** Id of the uploaded file at the provider (uploaded by the pipeline before sending). */
  mediaId: string;
  filename?: string;
  caption?: string;
}

/**
 * A message the customer answers by tapping (WhatsApp interactive): up to three reply buttons, or one
 * list of up to ten rows behind a button. Sent by the platform's own flows (modules/flows); the body
 * carries the options as text too, so a channel that shows only text still reads as a menu.
 */
export interface PreparedInteractive {
  kind: 'button' | 'list';
  body: string;
  /** The text of the button that opens the list (`list`), at most 20 characters. */
  button?: string;
  /** The reply's id comes back in the customer's `interactive` answer. */
  options: Array<{ id: string; title: string; description?: string }>;
}

export type PreparedMessage =
  | { type: 'text'; text: string }
  | { type: 'interactive'; interactive: PreparedInteractive }
  | { type: 'template'; template: PreparedTemplate }
  | { type: 'media'; media: PreparedMedia };

/** A channel's provider settings as stored (secrets included; never returned by the API). */
export interface ProviderContext {
  channelId: string;
  config: Record<string, unknown>;
  /** The span the call is part of (the worker's send), when traced: the provider's spans are its children. */
  trace?: Context;
}

export interface SendResult {
  providerMessageId: string;
  /** The address the provider says it delivered to (WhatsApp's `wa_id`), to keep for later sends. */
  recipientAddress: string | null;
}

/**
 * An approved template as a provider describes it, for an agent to pick and fill in: its texts with
 * their `{{…}}` placeholders, and the placeholders each component takes, in the order values go.
 */
export interface ProviderTemplate {
  name: string;
  language: string;
  category: string | null;
  /** `format` in lower case: `text`, `image`, `video`, `document` or `location`; `text` only for text. */
  header: { format: string; text: string | null } | null;
  body: string | null;
  footer: string | null;
  buttons: Array<{ type: string; text: string; url: string | null }>;
  /** Placeholder names per component: `1`, `2`… for positional templates, names for named ones. */
  parameters: { header: string[]; body: string[]; buttons: Array<{ index: number; names: string[] }> };
  /** Values go by name (`key`) rather than by position. */
  named: boolean;
}

/**
 * A file to upload, read from storage a chunk at a time as the upload goes: never whole in memory,
 * and each chunk a step of its own for the event loop.
 */
export interface OutboundFile {
  mimetype: string;
  filename?: string;
  /** Bytes of the file. */
  size: number;
  /** The bytes in order; each call reads the file afresh. */
  chunks(): AsyncIterable<Uint8Array>;
}

export interface MessagingProvider {
  readonly name: 'whatsapp-cloud' | 'sandbox';
  /** What an outbound message may carry on this provider, judged before a send is accepted. */
  readonly limits: OutboundLimits;
  /** Its inbound webhooks; absent on a provider whose customers reach Atende otherwise (the sandbox). */
  readonly webhooks?: ProviderWebhooks;
  /**
   * Set by a provider that sends no delivery receipts (the sandbox): the pipeline marks a message
   * `delivered` itself, right after storing it as `sent`.
   */
  readonly deliveredOnSend?: boolean;
  uploadMedia(ctx: ProviderContext, file: OutboundFile): Promise<{ mediaId: string }>;
  send(ctx: ProviderContext, to: string, message: PreparedMessage): Promise<SendResult>;
  /**
   * Tells the provider an agent read the customer's messages up to this one (WhatsApp: the blue
   * ticks); with `typing`, also that an agent is typing a reply (WhatsApp shows "typing…" until the
   * reply or for about 25 seconds). A provider without such receipts does nothing.
   */
  markRead(ctx: ProviderContext, providerMessageId: string, opts?: { typing?: boolean }): Promise<void>;
  /**
   * The file of a customer's media message, by the provider's media id. Refuses (ProviderError
   * `media_too_large`, permanent) a file over `maxBytes`, by its declared size first and by counting
   * the bytes as they stream. Absent when the provider's customers send no files (the sandbox).
   */
  downloadMedia?(ctx: ProviderContext, mediaId: string, opts: { maxBytes: number }): Promise<DownloadedMedia>;
  /**
   * The channel's approved templates; null when its settings do not say where they live. Absent on a
   * provider without templates of its own (the sandbox), where agents type the template by hand.
   */
  listTemplates?(ctx: ProviderContext): Promise<ProviderTemplate[] | null>;
}

/** A file being downloaded from a provider: read `body` to the end (or stop early) once. */
export interface DownloadedMedia {
  mimetype: string | null;
  /** As the provider declared it. */
  size: number | null;
  /** As the provider declared it (hex or base64), to check the bytes against. */
  sha256: string | null;
  body: AsyncIterable<Uint8Array>;
}

/**
 * Told of every provider call that failed because the channel's credentials were refused (WhatsApp's
 * Graph error 190: the access token expired or was revoked), whichever call it was. The channel
 * cannot work until an admin fixes them; the observer marks it so. It must not throw.
 */
export interface ProviderObserver {
  credentialsRefused(ctx: ProviderContext, error: ProviderError): Promise<void>;
}

/** A provider's refusal or a transport failure. `temporary` failures are retried with backoff. */
export class ProviderError extends Error {
  constructor(
    public readonly code: string,
    message: string,
    public readonly temporary: boolean,
    public readonly details?: string,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

/** The parts a customer's message may carry, kept in its content as received (provider-neutral). */
export interface InboundMedia {
  id: string;
  mimetype: string;
  sha256?: string;
  filename?: string;
  caption?: string;
  /** An audio recorded as a voice note (push-to-talk), not a shared file. */
  voice?: true;
  /** A sticker's kind, when the provider says: static stickers have a smaller size limit. */
  animated?: boolean;
}

export interface InboundContext {
  /** Null for a forwarded message, which quotes nothing. */
  providerMessageId: string | null;
  forwarded?: true;
  frequentlyForwarded?: true;
  /** A product the customer asked about from a catalog message. */
  product?: { catalogId: string | null; productRetailerId: string | null };
}

export interface InboundReferral {
  sourceType: string | null;
  sourceId: string | null;
  sourceUrl: string | null;
  headline: string | null;
  body: string | null;
  mediaType: string | null;
  mediaUrl: string | null;
  /** Click id of a click-to-WhatsApp ad, for attribution. */
  ctwaClid: string | null;
}

export interface InboundInteractive {
  kind: 'button_reply' | 'list_reply' | 'nfm_reply' | 'other';
  id: string | null;
  title: string | null;
  description?: string;
  /** Flow answers (`nfm_reply`): the parsed response, or the text as sent when it is not JSON. */
  response?: unknown;
  /** Flow name and the text the customer saw (`nfm_reply`). */
  name?: string;
  body?: string;
}

export interface InboundOrder {
  catalogId: string | null;
  text: string | null;
  items: Array<{
    productRetailerId: string | null;
    quantity: number | null;
    itemPrice: number | null;
    currency: string | null;
  }>;
}

export interface InboundLocation {
  latitude: number | null;
  longitude: number | null;
  name?: string;
  address?: string;
  url?: string;
}

export interface InboundContactCard {
  name: string | null;
  phones: Array<{ phone: string | null; waId: string | null; type: string | null }>;
  emails: Array<{ email: string | null; type: string | null }>;
  organization?: { company: string | null; title: string | null };
}

export interface InboundSystem {
  /** `user_changed_number`, or what the provider says. */
  kind: string | null;
  body: string | null;
  /** For a number change: the customer's new address. */
  newAddress?: string;
}

/** A message of a webhook that could not be read as one (no id, no sender), to log. */
export interface SkippedInbound {
  providerMessageId: string | null;
  type: string | null;
  reason: string;
}

export type ProviderStatus = 'sent' | 'delivered' | 'read' | 'failed';

export interface InboundProviderStatus {
  providerMessageId: string;
  status: ProviderStatus;
  timestamp: Date;
  recipient: string | null;
  /** The provider's reason for a failure; `details` is its longer explanation, when it gave one. */
  error: { code: string; message: string; details?: string } | null;
  /** What the provider said with the status about cost and the conversation (WhatsApp), when it did. */
  details?: DeliveryDetails;
}

/** The provider's limits on outbound messages: the Channel API's and agents' sends are checked against them. */
export interface OutboundLimits {
  /** Media types the provider takes, by kind; the order is the one error messages list them in. */
  mediaTypes: Readonly<Record<string, MediaKind>>;
  /** Largest file per kind. */
  mediaMaxBytes: Readonly<Record<MediaKind, number>>;
  /** Largest file of a customer's static sticker, downloaded (an animated one has `mediaMaxBytes.sticker`). */
  staticStickerMaxBytes: number;
  textMaxLength: number;
  captionMaxLength: number;
}

/**
 * A provider's inbound webhooks: the subscription handshake, the signature over the raw bytes, and a
 * stored delivery read into the platform's terms. Settings (secrets, the provider's account ids) come
 * from the channel's config in `ctx`.
 */
export interface ProviderWebhooks {
  /** The request header that carries a delivery's signature. */
  readonly signatureHeader: string;
  /** The challenge to echo for a subscription handshake, or null when it is refused (403). */
  verifySubscription(ctx: ProviderContext, query: Record<string, unknown>): string | null;
  /** Whether the raw bytes of a delivery carry the channel's signature. */
  verifySignature(ctx: ProviderContext, rawBody: Buffer, signature: string): boolean;
  parse(ctx: ProviderContext, body: unknown, receivedAt: Date): InboundDelivery;
}

/** What a stored webhook delivery carries for one channel. */
export interface InboundDelivery {
  messages: ReceivedMessage[];
  statuses: InboundProviderStatus[];
  /** Webhook-level errors: nothing to store, but worth a warning. */
  errors: InboundProviderError[];
  skipped: SkippedInbound[];
  /** Changes addressed to another of the provider's accounts (another phone number), left out. */
  foreign: number;
}

/**
 * What a customer's message does to an earlier message of the channel (named by the provider's id):
 * edits and revokes change the customer's own message, a reaction sits on any message.
 */
export type InboundTargetAction =
  | { kind: 'edit'; providerMessageId: string; text: string | null }
  | { kind: 'revoke'; providerMessageId: string }
  | { kind: 'reaction'; providerMessageId: string; emoji: string | null };

/**
 * A customer's message as the provider's webhook brought it, provider-neutral: its content is kept
 * as stored (see the README's table of inbound types); `summary` is the one line a chat list shows.
 */
export interface ReceivedMessage {
  /**
   * The sender: a phone address (the provider's own spelling, e.g. WhatsApp's `wa_id`), or a
   * business-scoped user id for a customer without a number. Null when neither is usable.
   */
  sender: { type: 'phone' | 'user_id'; address: string; name: string | null } | null;
  type: string;
  content: Record<string, unknown>;
  summary: string;
  providerMessageId: string;
  /** When the customer sent it (the provider's timestamp; arrival time when it has none). */
  sentAt: Date;
  /** The message it replies to, by the provider's id. */
  replyTo?: string;
  /** An edit, revoke or reaction, applied to the message it names. */
  action?: InboundTargetAction;
  /** The customer's new phone address, when they changed their number. */
  newAddress?: string;
}

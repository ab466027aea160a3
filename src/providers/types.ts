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

export type PreparedMessage =
  | { type: 'text'; text: string }
  | { type: 'template'; template: PreparedTemplate }
  | { type: 'media'; media: PreparedMedia };

/** A channel's provider settings as stored (secrets included; never returned by the API). */
export interface ProviderContext {
  channelId: string;
  config: Record<string, unknown>;
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

export interface MessagingProvider {
  readonly name: 'whatsapp-cloud' | 'sandbox';
  /**
   * Set by a provider that sends no delivery receipts (the sandbox): the pipeline marks a message
   * `delivered` itself, right after storing it as `sent`.
   */
  readonly deliveredOnSend?: boolean;
  uploadMedia(
    ctx: ProviderContext,
    file: { bytes: Buffer; mimetype: string; filename?: string },
  ): Promise<{ mediaId: string }>;
  send(ctx: ProviderContext, to: string, message: PreparedMessage): Promise<SendResult>;
  /**
   * The channel's approved templates; null when its settings do not say where they live. Absent on a
   * provider without templates of its own (the sandbox), where agents type the template by hand.
   */
  listTemplates?(ctx: ProviderContext): Promise<ProviderTemplate[] | null>;
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

/** Inbound events a provider's webhook carries, in the platform's terms. */
export interface InboundProviderMessage {
  providerMessageId: string;
  from: string; // provider address (wa_id)
  name: string | null;
  timestamp: Date;
  type: string; // text, image, video, audio, document, sticker, location, ...
  text: string | null; // body, caption, or a summary
  media?: { id: string; mimetype: string; sha256?: string; filename?: string; caption?: string };
  raw: Record<string, unknown>;
}

export type ProviderStatus = 'sent' | 'delivered' | 'read' | 'failed';

export interface InboundProviderStatus {
  providerMessageId: string;
  status: ProviderStatus;
  timestamp: Date;
  recipient: string | null;
  error: { code: string; message: string } | null;
}

export interface ParsedWebhook {
  messages: InboundProviderMessage[];
  statuses: InboundProviderStatus[];
}

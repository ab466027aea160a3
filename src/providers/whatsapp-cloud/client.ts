import {
  ProviderError,
  type OutboundFile,
  type DownloadedMedia,
  type MessagingProvider,
  type PreparedMessage,
  type ProviderContext,
  type ProviderTemplate,
  type ProviderObserver,
  type SendResult,
} from '../types.js';
import { whatsappWebhooks } from './inbound.js';
import { WHATSAPP_LIMITS } from './limits.js';
import { classifyGraphError, classifyTransportError, isTokenRefused } from './errors.js';
import { parseJson, postStream, postText } from './http.js';
import { multipartBody } from './multipart.js';
import { downloadWhatsAppMedia } from './media.js';
import { buildGraphMessage } from './payloads.js';
import { readGraphTemplate } from './templates.js';
import { isJsonObject } from '../../lib/json-read.js';
import { failed, type Tracing } from '../../lib/tracing.js';
import { SpanKind, type Span } from '@opentelemetry/api';

/** Templates asked for per page, and pages followed at most (a business has a few hundred at most). */
const TEMPLATE_PAGE_SIZE = 100;
const TEMPLATE_MAX_PAGES = 10;

export interface WhatsAppCloudOptions {
  /** Installation-wide Graph base URL, e.g. `https://graph.facebook.com` (a fake server in tests). */
  baseUrl: string;
  /** Graph API version, e.g. `v23.0`. */
  version: string;
  /** Per request, answer included. */
  timeoutMs: number;
  fetch?: typeof fetch;
  /** Told when a call fails because the channel's access token was refused (Graph error 190). */
  observer?: ProviderObserver;
  /** A client span per POST to the Graph API, when traced (src/lib/tracing.ts). */
  tracing?: Tracing;
}

/** The channel settings this provider reads from `ProviderContext.config`. */
export interface WhatsAppChannelConfig {
  phoneNumberId: string;
  accessToken: string;
  /** Used by the inbound webhook: signature check and subscription handshake. */
  appSecret?: string;
  verifyToken?: string;
  /** The WhatsApp Business Account id: where the channel's message templates are listed. */
  businessAccountId?: string;
}

/** Reads a channel's WhatsApp settings; a missing one is a permanent failure until it is fixed. */
export function whatsAppChannelConfig(config: Record<string, unknown>): WhatsAppChannelConfig {
  const str = (key: string): string | undefined => {
    const v = config[key];
    return typeof v === 'string' && v !== '' ? v : undefined;
  };
  const phoneNumberId = str('phoneNumberId');
  const accessToken = str('accessToken');
  if (!phoneNumberId || !accessToken) {
    const missing = [!phoneNumberId && 'phoneNumberId', !accessToken && 'accessToken'].filter(Boolean);
    throw new ProviderError(
      'invalid_config',
      `The channel's WhatsApp settings lack ${missing.join(' and ')}`,
      false,
    );
  }
  const appSecret = str('appSecret');
  const verifyToken = str('verifyToken');
  const businessAccountId = str('businessAccountId');
  return {
    phoneNumberId,
    accessToken,
    ...(appSecret ? { appSecret } : {}),
    ...(verifyToken ? { verifyToken } : {}),
    ...(businessAccountId ? { businessAccountId } : {}),
  };
}

/** Meta's WhatsApp Cloud API over the Graph API (docs/whatsapp.md). */
export class WhatsAppCloudProvider implements MessagingProvider {
  readonly name = 'whatsapp-cloud' as const;
  readonly limits = WHATSAPP_LIMITS;
  readonly webhooks = whatsappWebhooks;
  private readonly baseUrl: string;
  private readonly fetch: typeof fetch;
  /** The Graph API's host name, for client spans. */
  private readonly host: string;

  constructor(private readonly options: WhatsAppCloudOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.host = new URL(this.baseUrl).hostname;
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  async send(ctx: ProviderContext, to: string, message: PreparedMessage): Promise<SendResult> {
    const config = whatsAppChannelConfig(ctx.config);
    const body = await this.call(ctx, config, 'messages', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(buildGraphMessage(to, message)),
    });
    const id = pick(body, 'messages', 'id');
    if (typeof id !== 'string' || id === '') throw invalidResponse('a message id');
    const waId = pick(body, 'contacts', 'wa_id');
    return { providerMessageId: id, recipientAddress: typeof waId === 'string' && waId !== '' ? waId : null };
  }

  async uploadMedia(ctx: ProviderContext, file: OutboundFile): Promise<{ mediaId: string }> {
    const config = whatsAppChannelConfig(ctx.config);
    const form = multipartBody(
      { messaging_product: 'whatsapp', type: file.mimetype },
      { name: 'file', content: file },
    );
    const body = await this.call(ctx, config, 'media', {
      headers: { 'content-type': form.contentType },
      body: form,
    });
    const id = typeof body === 'object' && body !== null ? (body as { id?: unknown }).id : undefined;
    if (typeof id !== 'string' || id === '') throw invalidResponse('a media id');
    return { mediaId: id };
  }

  async downloadMedia(
    ctx: ProviderContext,
    mediaId: string,
    opts: { maxBytes: number },
  ): Promise<DownloadedMedia> {
    const config = whatsAppChannelConfig(ctx.config);
    return this.observed(ctx, () =>
      downloadWhatsAppMedia(mediaId, {
        baseUrl: this.baseUrl,
        version: this.options.version,
        accessToken: config.accessToken,
        timeoutMs: this.options.timeoutMs,
        maxBytes: opts.maxBytes,
      }),
    );
  }

  /**
   * The approved templates of the channel's WhatsApp Business Account, every page (bounded); null
   * when the channel's settings have no business account id.
   */
  async listTemplates(ctx: ProviderContext): Promise<ProviderTemplate[] | null> {
    const config = whatsAppChannelConfig(ctx.config);
    if (!config.businessAccountId) return null;
    const out: ProviderTemplate[] = [];
    let after: string | null = null;
    for (let page = 0; page < TEMPLATE_MAX_PAGES; page++) {
      const query = new URLSearchParams({
        fields: 'name,language,status,category,parameter_format,components',
        status: 'APPROVED',
        limit: String(TEMPLATE_PAGE_SIZE),
        ...(after ? { after } : {}),
      });
      const body = await this.get(
        ctx,
        config,
        `${this.baseUrl}/${this.options.version}/${encodeURIComponent(config.businessAccountId)}/message_templates?${query}`,
      );
      const list = isJsonObject(body) && Array.isArray(body.data) ? body.data : null;
      if (!list) throw invalidResponse('a template list');
      for (const t of list) {
        const template = readGraphTemplate(t);
        if (template) out.push(template);
      }
      const paging = isJsonObject(body) && isJsonObject(body.paging) ? body.paging : {};
      const cursor = isJsonObject(paging.cursors) ? paging.cursors.after : undefined;
      // Graph gives `next` only while another page exists.
      if (typeof paging.next !== 'string' || typeof cursor !== 'string' || cursor === '') break;
      after = cursor;
    }
    return out;
  }

  /** GET a Graph URL with the channel's token; the parsed 2xx body, or a ProviderError. */
  private get(ctx: ProviderContext, config: WhatsAppChannelConfig, url: string): Promise<unknown> {
    return this.observed(ctx, async () => {
      let res: Response;
      let text: string;
      try {
        res = await this.fetch(url, {
          headers: { authorization: `Bearer ${config.accessToken}` },
          signal: AbortSignal.timeout(this.options.timeoutMs),
        });
        text = await res.text();
      } catch (err) {
        throw classifyTransportError(err);
      }
      return graphAnswer(res.status, text);
    });
  }

  /**
   * `{"status":"read","message_id":…}` on the messages edge: the customer sees blue ticks; with
   * `typing_indicator` also "typing…", until the reply or for about 25 seconds.
   */
  async markRead(
    ctx: ProviderContext,
    providerMessageId: string,
    opts: { typing?: boolean } = {},
  ): Promise<void> {
    const config = whatsAppChannelConfig(ctx.config);
    await this.call(ctx, config, 'messages', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        messaging_product: 'whatsapp',
        status: 'read',
        message_id: providerMessageId,
        ...(opts.typing ? { typing_indicator: { type: 'text' } } : {}),
      }),
    });
  }

  /** POST to `{base}/{version}/{phoneNumberId}/{edge}`; the parsed 2xx body, or a ProviderError. */
  private call(
    ctx: ProviderContext,
    config: WhatsAppChannelConfig,
    edge: string,
    init: { headers?: Record<string, string>; body: string | ReturnType<typeof multipartBody> },
  ): Promise<unknown> {
    const url = `${this.baseUrl}/${this.options.version}/${encodeURIComponent(config.phoneNumberId)}/${edge}`;
    const headers = { authorization: `Bearer ${config.accessToken}`, ...init.headers };
    const span = this.options.tracing?.enabled ? this.clientSpan(this.options.tracing, ctx, edge) : undefined;
    return this.observed(ctx, async () => {
      let status: number;
      let text: string;
      try {
        const { body } = init;
        if (typeof body !== 'string') {
          // A file upload, written as it is read.
          ({ status, text } = await postStream(url, headers, body.body, body.length, this.options.timeoutMs));
        } else if (this.fetch === globalThis.fetch) {
          ({ status, text } = await postText(url, headers, body, this.options.timeoutMs));
        } else {
          // A fetch given by the caller.
          const res = await this.fetch(url, {
            method: 'POST',
            headers,
            body,
            signal: AbortSignal.timeout(this.options.timeoutMs),
          });
          status = res.status;
          text = await res.text();
        }
      } catch (err) {
        const error = classifyTransportError(err);
        failed(span, error.message);
        span?.end();
        throw error;
      }
      if (span) {
        span.setAttribute('http.response.status_code', status);
        if (status < 200 || status >= 300) failed(span, `HTTP ${status}`);
        span.end();
      }
      return graphAnswer(status, text);
    });
  }

  /** The client span of a POST, in the caller's trace; the route's shape, not its URL (no phone number id). */
  private clientSpan(tracing: Tracing, ctx: ProviderContext, edge: string): Span | undefined {
    return tracing.span(
      `POST graph /${edge}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'http.request.method': 'POST',
          'url.template': `/{version}/{phone-number-id}/${edge}`,
          'server.address': this.host,
          'atende.channel_id': ctx.channelId,
        },
      },
      ctx.trace,
    );
  }

  /**
   * Runs one Graph call. A refused token (error 190) is the channel's problem, not this call's: it is
   * reported to the observer first, whatever the call was, then thrown as any refusal.
   */
  private async observed<T>(ctx: ProviderContext, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof ProviderError && isTokenRefused(error)) {
        await this.options.observer?.credentialsRefused(ctx, error);
      }
      throw error;
    }
  }
}

/** A Graph answer: its parsed body when 2xx, else the ProviderError its status and body mean. */
function graphAnswer(status: number, text: string): unknown {
  const body = parseJson(text);
  if (status < 200 || status >= 300) throw classifyGraphError(status, body);
  return body;
}

/** `body[list][0][key]` of a Graph answer, if there. */
function pick(body: unknown, list: string, key: string): unknown {
  if (typeof body !== 'object' || body === null) return undefined;
  const arr = (body as Record<string, unknown>)[list];
  if (!Array.isArray(arr)) return undefined;
  const first: unknown = arr[0];
  return typeof first === 'object' && first !== null ? (first as Record<string, unknown>)[key] : undefined;
}

/**
 * A 2xx the adapter cannot read. Not retried: the provider may have accepted the message, and a retry
 * could deliver it twice.
 */
function invalidResponse(what: string): ProviderError {
  return new ProviderError('invalid_response', `WhatsApp Cloud API answered without ${what}`, false);
}

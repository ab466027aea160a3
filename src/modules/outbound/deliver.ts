import type { ProviderName } from '../../db/types.js';
import type { Metrics } from '../../metrics/metrics.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import type { PreparedMedia, PreparedMessage, SendResult } from '../../providers/types.js';

/** What delivery needs of a channel: its provider and that provider's settings. */
export interface DeliveryChannel {
  id: string;
  provider: ProviderName;
  provider_config: Record<string, unknown>;
}

/** A media message whose file may not be at the provider yet (`mediaId` unset: upload first). */
export type OutboundMedia = Omit<PreparedMedia, 'mediaId'> & { mediaId?: string };
export type OutboundMessage =
  Exclude<PreparedMessage, { type: 'media' }> | { type: 'media'; media: OutboundMedia };

/** Where the bytes of a not-yet-uploaded media come from, and who remembers the uploaded id. */
export interface MediaSource {
  load(): Promise<{ bytes: Buffer; mimetype: string; filename?: string }>;
  /** Called once the upload succeeded, before sending, so a retried send need not upload again. */
  uploaded?(mediaId: string): Promise<void>;
}

export interface DeliveryResult extends SendResult {
  /** Whether the provider will send no receipt, so the message counts as delivered once stored. */
  deliveredOnSend: boolean;
  /** The provider's id of the media sent (uploaded now or earlier). */
  mediaId?: string;
}

/**
 * The provider call of every outbound message (Channel API requests, agents' replies): uploads the
 * media when needed, then sends by id. Throws the provider's `ProviderError`; no database work, so
 * callers keep their own transactions around it.
 */
export class Deliverer {
  constructor(
    private readonly providers: ProviderRegistry,
    private readonly metrics: Metrics,
  ) {}

  /** `send`, counted in the metrics: accepted, or failed by error class. */
  async deliver(
    channel: DeliveryChannel,
    to: string,
    message: OutboundMessage,
    media?: MediaSource,
  ): Promise<DeliveryResult> {
    try {
      const result = await this.send(channel, to, message, media);
      this.metrics.sendSucceeded(channel.provider);
      return result;
    } catch (err) {
      this.metrics.sendFailedWith(channel.provider, err);
      throw err;
    }
  }

  private async send(
    channel: DeliveryChannel,
    to: string,
    message: OutboundMessage,
    media?: MediaSource,
  ): Promise<DeliveryResult> {
    const provider = this.providers.get(channel.provider);
    const ctx = { channelId: channel.id, config: channel.provider_config };
    let prepared: PreparedMessage;
    let sentMediaId: string | undefined;
    if (message.type === 'media') {
      let mediaId = message.media.mediaId;
      if (mediaId === undefined) {
        if (!media) throw new Error('a media message without an uploaded id needs its file');
        const file = await media.load();
        mediaId = (await provider.uploadMedia(ctx, file)).mediaId;
        await media.uploaded?.(mediaId);
      }
      prepared = { type: 'media', media: { ...message.media, mediaId } };
      sentMediaId = mediaId;
    } else {
      prepared = message;
    }
    const result = await provider.send(ctx, to, prepared);
    return {
      ...result,
      deliveredOnSend: provider.deliveredOnSend === true,
      ...(sentMediaId !== undefined ? { mediaId: sentMediaId } : {}),
    };
  }
}

import type { Context } from '@opentelemetry/api';
import type { Logger } from 'pino';
import type { ChannelHealth, ProviderErrorInfo, ProviderName } from '../../db/types.js';
import type { EventsService } from '../../events/events.service.js';
import { persist, type PersistOptions } from '../../lib/persist.js';
import type { Metrics } from '../../metrics/metrics.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import {
  type OutboundFile,
  ProviderError,
  type PreparedMedia,
  type PreparedMessage,
  type SendResult,
} from '../../providers/types.js';
import { channelUnhealthyError } from '../channels/index.js';
import type { MessageEvents, MessagesRepo } from '../messages/index.js';

/**
 * The one delivery path of every outbound message — Channel API requests (`SendWorker`) and agents'
 * replies (`ReplySender`): the provider call (`Deliverer`), the retry policy (`judgeFailure`), where
 * a file waits until the provider has it (`storedFile`), how an answer is held through a database
 * outage (`holdOutcome`), and the delivery a provider without receipts would have reported
 * (`recordDeliveredOnSend`).
 */

/** What delivery needs of a channel: its provider, that provider's settings, and its health. */
export interface DeliveryChannel {
  id: string;
  provider: ProviderName;
  provider_config: Record<string, unknown>;
  health: ChannelHealth;
}

/** A media message whose file may not be at the provider yet (`mediaId` unset: upload first). */
export type OutboundMedia = Omit<PreparedMedia, 'mediaId'> & { mediaId?: string };
export type OutboundMessage =
  Exclude<PreparedMessage, { type: 'media' }> | { type: 'media'; media: OutboundMedia };

/** Where the bytes of a not-yet-uploaded media come from, and who remembers the uploaded id. */
export interface MediaSource {
  load(): Promise<OutboundFile>;
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

  /**
   * `send`, counted in the metrics: accepted, or failed by error class. A channel whose token was
   * refused is not called (the provider would refuse this too): it fails like a refusal, with a
   * reason that says so. `trace`: the span the provider's calls belong to, when traced.
   */
  async deliver(
    channel: DeliveryChannel,
    to: string,
    message: OutboundMessage,
    media?: MediaSource,
    trace?: Context,
  ): Promise<DeliveryResult> {
    if (channel.health === 'unhealthy') throw channelUnhealthyError();
    try {
      const result = await this.send(channel, to, message, media, trace);
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
    media: MediaSource | undefined,
    trace: Context | undefined,
  ): Promise<DeliveryResult> {
    const provider = this.providers.get(channel.provider);
    const ctx = { channelId: channel.id, config: channel.provider_config, ...(trace ? { trace } : {}) };
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

/**
 * The retry policy of every outbound message: a provider's temporary failure — and anything that is
 * not a provider's verdict (the database, a chat held too long) — is tried again unless this was the
 * last attempt; otherwise the message fails, with the provider's reason or `internal_error`.
 */
export function judgeFailure(
  err: unknown,
  lastAttempt: boolean,
  internalMessage: string,
): { retry: boolean; error: ProviderErrorInfo; byProvider: boolean } {
  if (!(err instanceof ProviderError)) {
    return {
      retry: !lastAttempt,
      error: { code: 'internal_error', message: internalMessage },
      byProvider: false,
    };
  }
  return {
    retry: err.temporary && !lastAttempt,
    error: {
      code: err.code,
      message: err.message,
      ...(err.details !== undefined ? { details: err.details } : {}),
    },
    byProvider: true,
  };
}

/** A file kept by Atende until the provider has it: read when the upload is due; gone, a permanent failure. */
export function storedFile(
  find: () => Promise<
    | { mimetype: string; filename: string | null; size: number; chunks(): AsyncIterable<Uint8Array> }
    | undefined
  >,
  uploaded: (mediaId: string) => Promise<void>,
): MediaSource {
  return {
    load: async () => {
      const file = await find();
      if (!file) throw new ProviderError('media_missing', 'The media file is no longer stored', false);
      return {
        size: file.size,
        chunks: () => file.chunks(),
        mimetype: file.mimetype,
        ...(file.filename ? { filename: file.filename } : {}),
      };
    },
    uploaded,
  };
}

/**
 * A provider's answer is retried for up to an hour while the database is out of reach, at least once
 * a second (well within the lease grace of `SendDispatcher`, so that it lands first when the database
 * returns); an error of the database's own is tried three times.
 */
export const HOLD_RESULTS: Omit<PersistOptions, 'onFailure'> = {
  unavailableForMs: 3_600_000,
  refusedAttempts: 3,
  baseDelayMs: 100,
  maxDelayMs: 1_000,
};

/**
 * Records a provider's verdict, retrying while the database is out of reach with the answer held
 * here (and the job's lane held by the dispatcher), so that a message the provider accepted is never
 * sent again. `record` gets the try's number (from 1): a try that failed may have committed all the
 * same, which later tries can look for. Given up, the job still ends (no second send) and the loss is
 * logged with what is needed to repair it by hand.
 */
export async function holdOutcome(
  record: (tryNumber: number) => Promise<void>,
  opts: {
    hold: Omit<PersistOptions, 'onFailure'>;
    logger: Logger;
    /** `send` or `agent message`, for the log lines. */
    subject: string;
    /** What names the message in every log line. */
    ids: Record<string, unknown>;
    /** Further fields of the loss's log line. */
    lost: Record<string, unknown>;
    /** What became of the message, when lost: `the request stays processing`. */
    leftAs: string;
  },
): Promise<void> {
  const { logger, subject, ids } = opts;
  let tries = 0;
  const recorded = await persist(() => record(++tries), {
    ...opts.hold,
    onFailure: (err, attempt) => {
      if (attempt === 1)
        logger.error({ err, ...ids }, `recording a ${subject} outcome failed; holding it and retrying`);
    },
  });
  if (recorded.ok) {
    if (tries > 1) logger.warn({ ...ids, tries }, `${subject} outcome recorded after retrying`);
    return;
  }
  logger.error(
    { err: recorded.err, ...ids, ...opts.lost, attempts: recorded.attempts },
    `SEND OUTCOME LOST: the provider answered but the outcome could not be recorded; ${opts.leftAs} and is not sent again`,
  );
}

/**
 * No receipt will come from a provider that delivers on send (the sandbox): the step it would have
 * reported, done once the messages are stored as `sent`. Only a status step: should it fail, the
 * messages stay `sent`.
 */
export async function recordDeliveredOnSend(
  deps: { events: EventsService; messages: MessagesRepo; messageEvents: MessageEvents; logger: Logger },
  messageIds: readonly string[],
): Promise<void> {
  if (messageIds.length === 0) return;
  await deps.events
    .transaction(async (tx, out) => {
      await deps.messages.setStatuses(tx, messageIds, 'delivered');
      await deps.messageEvents.messageEvents(tx, out, 'message.update', messageIds);
    })
    .catch((err: unknown) => deps.logger.error({ err }, 'recording deliveries without receipts failed'));
}

import type { Logger } from 'pino';
import type { Db, Tx } from '../../db/index.js';
import type { EventBuffer, EventsService } from '../../events/events.service.js';
import { AppError, notFound } from '../../http/errors.js';
import type { MediaDownloadJob } from '../../jobs/payloads.js';
import { QUEUES, type JobQueue } from '../../jobs/queue.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import { ProviderError, type MediaKind, type OutboundLimits } from '../../providers/types.js';
import type { UserActor } from '../../access/actors.js';
import type { ChatsService } from '../chats/index.js';
import { MediaStoreError, type MediaFile, type MediaStore } from './media-store.js';
import type { MediaRepo, MediaState } from './media.repo.js';

/** The provider's id of a customer's file in a message's content, if it has one to download. */
export function providerMediaId(content: Record<string, unknown>): string | null {
  const media = content.media;
  if (typeof media !== 'object' || media === null) return null;
  const id = (media as { id?: unknown }).id;
  return typeof id === 'string' && id !== '' ? id : null;
}

/** Largest file accepted for a message of this type (the provider's limits; unknown types as documents). */
export function maxBytesFor(limits: OutboundLimits, type: string, media: Record<string, unknown>): number {
  if (type === 'sticker' && media.animated === false) return limits.staticStickerMaxBytes;
  return limits.mediaMaxBytes[type as MediaKind] ?? limits.mediaMaxBytes.document;
}

/**
 * Queues the download of a customer's file in the transaction that stores its message, so the job
 * exists exactly when the message does (and survives restarts).
 */
export class MediaDownloads {
  constructor(private readonly jobs: JobQueue) {}

  async queue(tx: Tx, messageId: string, content: Record<string, unknown>): Promise<void> {
    if (providerMediaId(content) === null) return;
    await this.jobs.insertInTransaction<MediaDownloadJob>(tx, QUEUES.mediaDownload, [
      { data: { messageId } },
    ]);
  }
}

/**
 * Tells the message's watchers its file's outcome (`message.update`): the messages module's
 * MessageEvents, given by the wiring, since messages store their files here.
 */
export interface MessageUpdates {
  message(tx: Tx, events: EventBuffer, event: 'message.update', messageId: string): Promise<void>;
}

/**
 * The `media-download` job: asks the channel's provider for the file and streams it into the media
 * store, then records the outcome in `content.media` (`status` `ready` with `size`, or `failed` with
 * `error`) and publishes `message.update`. A temporary failure is thrown for pg-boss to retry with
 * backoff; a permanent one, or the last attempt, marks the file failed.
 */
export class MediaDownloader {
  constructor(
    private readonly db: Db,
    private readonly repo: MediaRepo,
    private readonly store: MediaStore,
    private readonly providers: ProviderRegistry,
    private readonly events: EventsService,
    private readonly messageEvents: MessageUpdates,
    private readonly logger: Logger,
  ) {}

  async process(messageId: string, lastAttempt: boolean): Promise<void> {
    const m = await this.repo.findForDownload(this.db, messageId);
    const mediaId = m ? providerMediaId(m.content) : null;
    if (!m || mediaId === null) return;
    const media = m.content.media as Record<string, unknown>;
    // Settled by an earlier run of this job.
    if (media.status === 'ready' || media.status === 'failed') return;
    const log = this.logger.child({ messageId, channelId: m.channel_id });
    const provider = this.providers.get(m.provider);
    const maxBytes = maxBytesFor(provider.limits, m.type, media);
    let state: MediaState;
    try {
      if (!provider.downloadMedia) {
        throw new ProviderError('unsupported', 'This channel cannot download media', false);
      }
      const download = await provider.downloadMedia(
        { channelId: m.channel_id, config: m.provider_config },
        mediaId,
        { maxBytes },
      );
      const declared = typeof media.mimetype === 'string' && media.mimetype !== '' ? media.mimetype : null;
      const mimetype = declared ?? download.mimetype ?? 'application/octet-stream';
      const expected =
        download.sha256 ?? (typeof media.sha256 === 'string' && media.sha256 !== '' ? media.sha256 : null);
      const file = await this.store.put(
        this.db,
        {
          key: m.id,
          accountId: m.account_id,
          mimetype,
          filename: typeof media.filename === 'string' ? media.filename : null,
        },
        download.body,
        { maxBytes, ...(expected ? { sha256: expected } : {}) },
      );
      state = { status: 'ready', size: file.size, ...(declared ? {} : { mimetype }) };
    } catch (err) {
      const failure = failureOf(err);
      if (failure.temporary && !lastAttempt) {
        log.warn({ err, code: failure.code }, 'media download failed; will retry');
        throw err;
      }
      log.warn({ err, code: failure.code }, 'media download failed for good');
      state = { status: 'failed', error: { code: failure.code, message: failure.message } };
    }
    await this.events.transaction(async (tx, events) => {
      if (await this.repo.settle(tx, m.id, state))
        await this.messageEvents.message(tx, events, 'message.update', m.id);
    });
  }
}

function failureOf(err: unknown): { code: string; message: string; temporary: boolean } {
  if (err instanceof ProviderError) return { code: err.code, message: err.message, temporary: err.temporary };
  if (err instanceof MediaStoreError) {
    return err.code === 'too_large'
      ? { code: 'media_too_large', message: err.message, temporary: false }
      : { code: 'media_checksum_mismatch', message: err.message, temporary: false };
  }
  // The database, most likely: worth another attempt.
  return { code: 'internal_error', message: 'The media file could not be stored', temporary: true };
}

/** Types a browser may show inline from this origin: pictures, sound and video, never active content. */
const INLINE_TYPES = new Set([
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
  'video/mp4',
  'video/3gpp',
  'video/webm',
  'audio/aac',
  'audio/amr',
  'audio/mpeg',
  'audio/mp4',
  'audio/ogg',
  'audio/opus',
  'audio/webm',
  'audio/wav',
]);
/** Types a browser could run as a page or script even when downloaded and reopened: sent as bytes. */
const ACTIVE_TYPE = /html|xml|svg|javascript|ecmascript|x-sh|x-msdownload/i;
const MIME =
  /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+(?:\s*;\s*[a-z0-9!#$&^_.+-]+=(?:[a-z0-9!#$&^_.+-]+|"[^"\\\r\n]*"))*$/i;

export interface MediaAnswer {
  file: MediaFile;
  contentType: string;
  disposition: string;
}

/** Serving a message's file to agents: same visibility as the chat's messages. */
export class MediaService {
  constructor(
    private readonly db: Db,
    private readonly repo: MediaRepo,
    private readonly store: MediaStore,
    private readonly chats: ChatsService,
  ) {}

  /** The stored file of a message the agent may see, with its answer headers; else 404. */
  async open(actor: UserActor, messageId: string): Promise<MediaAnswer> {
    const m = await this.repo.findForServing(this.db, actor.accountId, messageId);
    if (!m || !(await this.chats.canSee(actor, { team_id: m.chat_team_id, user_id: m.chat_user_id }))) {
      throw notFound();
    }
    const file = await this.store.stat(this.db, m.id);
    if (!file) throw notFound();
    const mimetype = MIME.test(file.mimetype) ? file.mimetype : 'application/octet-stream';
    const base = mimetype.split(';')[0]!.trim().toLowerCase();
    const inline = INLINE_TYPES.has(base);
    const contentType = !inline && ACTIVE_TYPE.test(base) ? 'application/octet-stream' : mimetype;
    const name = file.filename ?? defaultName(m.type, m.id);
    return { file, contentType, disposition: contentDisposition(inline ? 'inline' : 'attachment', name) };
  }

  read(file: MediaFile, range?: { start: number; end: number }): AsyncIterable<Buffer> {
    return this.store.read(file, range);
  }
}

function defaultName(type: string, id: string): string {
  return `${type}-${id}`;
}

/**
 * `inline` or `attachment` with the file name: an ASCII fallback (quotes, backslashes, controls and
 * path separators replaced) and the exact name in RFC 5987 encoding for browsers that read it.
 */
export function contentDisposition(kind: 'inline' | 'attachment', filename: string): string {
  // eslint-disable-next-line no-control-regex
  const cleaned = filename.replace(/[\u0000-\u001f\u007f/\\]/g, '_').slice(0, 255) || 'file';
  const ascii = cleaned.replace(/[^\x20-\x7e]/g, '_').replace(/["%;]/g, '_');
  const encoded = encodeURIComponent(cleaned).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/**
 * A single `bytes=` range of a file of `size` bytes: the inclusive span, null to answer the whole
 * file (no header, several ranges, another unit), or a 416 AppError when it cannot be satisfied.
 */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | null {
  if (header === undefined) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  let start: number;
  let end: number;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    start = Math.max(size - suffix, 0);
    end = size - 1;
    if (suffix === 0) throw unsatisfiable(size);
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (!Number.isSafeInteger(start) || start >= size || end < start) throw unsatisfiable(size);
  return { start, end };
}

function unsatisfiable(size: number): AppError {
  return new AppError(416, 'The requested range is outside the file', { 'Content-Range': `bytes */${size}` });
}

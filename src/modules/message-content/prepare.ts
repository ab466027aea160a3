import type { MediaKind, OutboundLimits, PreparedMedia, PreparedMessage } from '../../providers/types.js';
import type { DecodedBase64 } from '../../lib/base64-stream.js';
import { isJsonObject } from '../../lib/json-read.js';
import { Issues, optionalString, requireObject, requireString } from './field-checks.js';
import { prepareTemplate } from './prepare-template.js';
import type { SendMessage } from './content.types.js';

/**
 * Request-time checks of a send-message `message` (docs/channel-api.md) against the limits of the
 * channel's provider: everything that can be judged before answering 201 is judged here, so that only what the provider alone knows (template approved,
 * 24-hour window) can fail in the background. Pure: no I/O, no clock.
 */

/** A media message as judged at request time: the upload to the provider happens later. */
export type RequestMedia = Omit<PreparedMedia, 'mediaId'> & {
  /** Size of the decoded file; the base64 itself stays with the caller. */
  byteLength: number;
  mediaType?: string;
};

export type RequestMessage =
  | Exclude<PreparedMessage, { type: 'media' } | { type: 'interactive' }>
  | { type: 'media'; media: RequestMedia };

export type PrepareResult = { ok: true; prepared: RequestMessage } | { ok: false; messages: string[] };

export interface PrepareOptions {
  /** Put before every property path, e.g. `message.` when the route reports body paths. */
  pathPrefix?: string;
  /**
   * The media's base64 as the request body streamed it (src/http/json-body.ts): its text never reached
   * the message, whose `media.base64` is then `""`.
   */
  base64?: Base64Text;
}

/** What is judged of a base64 text streamed rather than held (a `DecodedBase64` without its bytes). */
export type Base64Text = Pick<DecodedBase64, 'length' | 'decodedLength' | 'dataPrefix'>;

export function prepareMessage(
  message: SendMessage,
  limits: OutboundLimits,
  options: PrepareOptions = {},
): PrepareResult {
  const prefix = options.pathPrefix ?? '';
  const issues = new Issues(prefix);
  const m: unknown = message;
  if (!isJsonObject(m)) {
    return { ok: false, messages: [`${prefix ? prefix.replace(/\.$/, '') : 'message'} must be an object`] };
  }
  let prepared: RequestMessage | undefined;
  switch (m.type) {
    case 'text': {
      const text = prepareText(m.text, limits, issues);
      if (text !== undefined) prepared = { type: 'text', text };
      break;
    }
    case 'media': {
      const media = prepareMedia(m.media, limits, issues, options.base64);
      if (media) prepared = { type: 'media', media };
      break;
    }
    case 'template': {
      const template = prepareTemplate(m.template, issues);
      if (template) prepared = { type: 'template', template };
      break;
    }
    case undefined:
    case null:
      issues.add('type', 'should not be empty');
      break;
    default:
      issues.add('type', 'must be one of the following values: text, template, media');
  }
  if (issues.list.length > 0 || !prepared) return { ok: false, messages: issues.list };
  return { ok: true, prepared };
}

// ---------------------------------------------------------------- text

function prepareText(v: unknown, limits: OutboundLimits, issues: Issues): string | undefined {
  const obj = requireObject(v, 'text', issues);
  if (!obj) return undefined;
  const value = requireString(obj.value, 'text.value', issues, limits.textMaxLength);
  optionalString(obj.pushName, 'text.pushName', issues);
  return value;
}

// ---------------------------------------------------------------- media

/** A size as people write it: `5 MB` for whole megabytes (of 1,048,576 bytes), else `500 KB`. */
function sizeLabel(bytes: number): string {
  const MB = 1024 * 1024;
  return bytes % MB === 0 ? `${bytes / MB} MB` : `${bytes / 1024} KB`;
}

function prepareMedia(
  v: unknown,
  limits: OutboundLimits,
  issues: Issues,
  streamed: Base64Text | undefined,
): RequestMedia | undefined {
  const { mediaTypes, mediaMaxBytes } = limits;
  const obj = requireObject(v, 'media', issues);
  if (!obj) return undefined;
  const before = issues.list.length;

  if (obj.mediaUrl !== undefined && obj.mediaUrl !== null && obj.mediaUrl !== '') {
    issues.add('media.mediaUrl', 'is not accepted; send media.base64');
  }

  let byteLength: number | null = null;
  const base64 = obj.base64;
  if (streamed && base64 === '') {
    if (streamed.length === 0) issues.exact('Base64 payload is required');
    else if (streamed.dataPrefix) issues.add('media.base64', 'must not have a data: prefix');
    else if (streamed.decodedLength === null) issues.add('media.base64', 'must be base64 encoded');
    else byteLength = streamed.decodedLength;
  } else if (base64 === undefined || base64 === null || base64 === '') {
    issues.exact('Base64 payload is required');
  } else if (typeof base64 !== 'string') {
    issues.add('media.base64', 'must be a string');
  } else if (/^data:/i.test(base64)) {
    issues.add('media.base64', 'must not have a data: prefix');
  } else {
    byteLength = base64DecodedLength(base64);
    if (byteLength === null) issues.add('media.base64', 'must be base64 encoded');
  }

  let kind: MediaKind | undefined;
  let mimetype: string | undefined;
  const rawMime = requireString(obj.mimetype, 'media.mimetype', issues);
  if (rawMime !== undefined) {
    // Parameters such as `; codecs=opus` do not change the kind; the provider gets the bare type.
    mimetype = (rawMime.split(';')[0] ?? '').trim().toLowerCase();
    kind = Object.hasOwn(mediaTypes, mimetype) ? mediaTypes[mimetype] : undefined;
    if (!kind) {
      issues.add(
        'media.mimetype',
        `must be one of the following values: ${Object.keys(mediaTypes).join(', ')}`,
      );
    }
  }

  if (kind && byteLength !== null && byteLength > mediaMaxBytes[kind]) {
    issues.add(
      'media.base64',
      `must decode to at most ${sizeLabel(mediaMaxBytes[kind])} (${mediaMaxBytes[kind]} bytes) for ${kind}, got ${byteLength} bytes`,
    );
  }

  const caption = optionalString(obj.caption, 'media.caption', issues, limits.captionMaxLength);
  if (caption && (kind === 'audio' || kind === 'sticker')) {
    issues.add('media.caption', `is not allowed for ${kind}`);
  }
  const filename = optionalString(obj.filename, 'media.filename', issues);
  const mediaType = optionalString(obj.mediaType, 'media.mediaType', issues);

  if (issues.list.length > before || !kind || !mimetype || byteLength === null) return undefined;
  return {
    kind,
    mimetype,
    byteLength,
    ...(filename ? { filename } : {}),
    ...(caption ? { caption } : {}),
    ...(mediaType ? { mediaType } : {}),
  };
}

/**
 * Decoded size of strict base64 (standard alphabet, `=` padding to a multiple of 4, no whitespace,
 * zero unused bits), or null when it is not that. Counted, not decoded: payloads reach 100 MB.
 */
export function base64DecodedLength(s: string): number | null {
  if (s.length === 0 || s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(s)) return null;
  const pad = s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0;
  if (pad > 0) {
    const sextet = BASE64_ALPHABET.indexOf(s.charAt(s.length - pad - 1));
    if ((pad === 2 && (sextet & 0x0f) !== 0) || (pad === 1 && (sextet & 0x03) !== 0)) return null;
  }
  return (s.length / 4) * 3 - pad;
}
const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

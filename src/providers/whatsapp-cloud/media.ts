import http from 'node:http';
import https from 'node:https';
import { ProviderError, type DownloadedMedia } from '../types.js';
import { classifyGraphError, classifyTransportError } from './errors.js';
import { parseJson } from './http.js';

/**
 * Inbound media: `GET {base}/{version}/{mediaId}` with the channel's Bearer token answers the file's
 * metadata and a short-lived URL, which is fetched with the same token. The bytes are handed on as a
 * stream, never held whole: a document may be 100 MB.
 */

const MAX_REDIRECTS = 3;
/** The metadata answer is a few hundred bytes; anything far larger is not it. */
const MAX_METADATA_BYTES = 64 * 1024;

export interface MediaDownloadOptions {
  baseUrl: string;
  version: string;
  accessToken: string;
  /** Per request without progress: the whole answer for metadata, between two pieces for bytes. */
  timeoutMs: number;
  maxBytes: number;
}

export async function downloadWhatsAppMedia(
  mediaId: string,
  opts: MediaDownloadOptions,
): Promise<DownloadedMedia> {
  const auth = { authorization: `Bearer ${opts.accessToken}` };
  const metaUrl = `${opts.baseUrl}/${opts.version}/${encodeURIComponent(mediaId)}`;
  const meta = await get(metaUrl, auth, opts.timeoutMs);
  const text = await readAll(meta, MAX_METADATA_BYTES, opts.timeoutMs).catch((err: unknown) => {
    throw classifyTransportError(err);
  });
  const body = parseJson(text);
  if (meta.statusCode === undefined || meta.statusCode < 200 || meta.statusCode >= 300) {
    throw classifyGraphError(meta.statusCode ?? 0, body);
  }
  const info = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const url = typeof info.url === 'string' ? info.url : '';
  if (!isFetchable(url, opts.baseUrl)) {
    throw new ProviderError('invalid_response', 'WhatsApp Cloud API answered without a media URL', false);
  }
  const declared = Number(info.file_size);
  const size = Number.isFinite(declared) && declared >= 0 ? declared : null;
  if (size !== null && size > opts.maxBytes) throw tooLarge(opts.maxBytes);

  let res = await get(url, auth, opts.timeoutMs);
  for (let hops = 0; isRedirect(res.statusCode) && hops < MAX_REDIRECTS; hops++) {
    res.resume();
    const next = new URL(res.headers.location ?? '', url);
    // The token goes only where Graph itself pointed, never to another origin a redirect names.
    const sameOrigin = next.origin === new URL(url).origin;
    if (!isFetchable(next.href, opts.baseUrl)) break;
    res = await get(next.href, sameOrigin ? auth : {}, opts.timeoutMs);
  }
  const status = res.statusCode ?? 0;
  if (status < 200 || status >= 300) {
    const errText = await readAll(res, MAX_METADATA_BYTES, opts.timeoutMs).catch(() => '');
    // The URL lives 5 minutes: an expired one (404) is worth a new attempt, which asks Graph again.
    if (status === 404 || status === 403) {
      throw new ProviderError(`http_${status}`, `The media URL answered HTTP ${status}`, true);
    }
    throw classifyGraphError(status, parseJson(errText));
  }
  const length = Number(res.headers['content-length']);
  if (Number.isFinite(length) && length > opts.maxBytes) {
    res.destroy();
    throw tooLarge(opts.maxBytes);
  }
  const mimetype = typeof info.mime_type === 'string' && info.mime_type !== '' ? info.mime_type : null;
  const sha256 = typeof info.sha256 === 'string' && info.sha256 !== '' ? info.sha256 : null;
  return { mimetype, size, sha256, body: counted(res, opts.maxBytes) };
}

function tooLarge(maxBytes: number): ProviderError {
  return new ProviderError('media_too_large', `The media file is larger than ${maxBytes} bytes`, false);
}

/** Only http(s), and plain http only when Graph itself is reached over it (a local test server). */
function isFetchable(url: string, baseUrl: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || (u.protocol === 'http:' && baseUrl.startsWith('http:'));
  } catch {
    return false;
  }
}

function isRedirect(status: number | undefined): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}

/** The answer's head; the body stays unread. A socket idle for `timeoutMs` fails as a timeout. */
function get(url: string, headers: Record<string, string>, timeoutMs: number): Promise<http.IncomingMessage> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = (target.protocol === 'https:' ? https : http).get(target, { headers }, resolve);
    req.setTimeout(timeoutMs, () => req.destroy(timeoutError()));
    req.on('error', (err) => reject(classifyTransportError(err)));
  });
}

function timeoutError(): Error {
  const err = new Error('The operation timed out');
  err.name = 'TimeoutError';
  return err;
}

async function readAll(res: http.IncomingMessage, max: number, timeoutMs: number): Promise<string> {
  res.setTimeout(timeoutMs, () => res.destroy(timeoutError()));
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const chunk of res) {
    n += (chunk as Buffer).length;
    if (n > max) {
      res.destroy();
      throw new Error('answer too large');
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The bytes, refused past `maxBytes` whatever the headers said; transport trouble as ProviderError. */
async function* counted(res: http.IncomingMessage, maxBytes: number): AsyncIterable<Uint8Array> {
  let n = 0;
  try {
    for await (const chunk of res) {
      const piece = chunk as Buffer;
      n += piece.length;
      if (n > maxBytes) throw tooLarge(maxBytes);
      yield piece;
    }
    if (!res.complete) throw classifyTransportError(new Error('the media download was cut short'));
  } catch (err) {
    if (err instanceof ProviderError) throw err;
    throw classifyTransportError(err);
  } finally {
    // A consumer that stops early (or a refusal) must not leave the socket half read.
    if (!res.complete) res.destroy();
  }
}

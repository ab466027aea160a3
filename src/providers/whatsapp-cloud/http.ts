import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * Keep-alive connections to the Graph API, shared by every channel of the process. `node:http`
 * rather than `fetch`: a message is one small JSON POST, and fetch's streams and request cloning cost
 * several times the call itself in CPU (bench/README.md, send-drain profile).
 */
const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 128 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 128 }),
};

/**
 * POSTs `body` and resolves with the answer's status and text. Fails as `fetch` does: an error named
 * `TimeoutError` when no whole answer came within `timeoutMs`, else the connection's own error.
 */
export function postText(
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<{ status: number; text: string }> {
  const target = new URL(url);
  const secure = target.protocol === 'https:';
  return new Promise((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined = undefined;
    const fail = (err: Error) => {
      clearTimeout(timer);
      reject(err);
    };
    const req = (secure ? https : http).request(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        agent: agents[secure ? 'https:' : 'http:'],
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', fail);
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
        });
      },
    );
    timer = setTimeout(() => {
      const err = new Error('The operation timed out');
      err.name = 'TimeoutError';
      req.destroy(err);
    }, timeoutMs);
    req.on('error', fail);
    req.end(body);
  });
}

/**
 * POSTs a body produced as it is sent (`length` bytes in all) and resolves as `postText` does. Each
 * piece is written once the connection has taken the one before, so the body is never held whole.
 */
export function postStream(
  url: string,
  headers: Record<string, string>,
  body: AsyncIterable<Uint8Array>,
  length: number,
  timeoutMs: number,
): Promise<{ status: number; text: string }> {
  const target = new URL(url);
  const secure = target.protocol === 'https:';
  return new Promise((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined = undefined;
    const fail = (err: Error) => {
      clearTimeout(timer);
      reject(err);
    };
    const req = (secure ? https : http).request(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(length) },
        agent: agents[secure ? 'https:' : 'http:'],
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', fail);
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
        });
      },
    );
    timer = setTimeout(() => {
      const err = new Error('The operation timed out');
      err.name = 'TimeoutError';
      req.destroy(err);
    }, timeoutMs);
    req.on('error', fail);
    pipeline(Readable.from(body, { objectMode: false }), req).catch((err: Error) => {
      req.destroy(err);
      fail(err);
    });
  });
}

/** A Graph answer's text as JSON; undefined when empty or not JSON (the status then speaks). */
export function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

import { randomBytes } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { OutboundFile } from '../types.js';

/**
 * A `multipart/form-data` body of text fields and one file, written as it is sent: the file's chunks
 * are read from storage as the upload goes, and the body yields to the event loop after each one, so
 * that a 100 MB upload over a fast connection never runs as one long chain of writes.
 */
export function multipartBody(
  fields: Record<string, string>,
  file: { name: string; content: OutboundFile },
): { contentType: string; length: number; body: AsyncIterable<Uint8Array> } {
  const boundary = `----atende${randomBytes(12).toString('hex')}`;
  const head = Buffer.from(
    Object.entries(fields)
      .map(
        ([name, value]) =>
          `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"\r\n\r\n${value}\r\n`,
      )
      .join('') +
      `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(file.name)}"; ` +
      `filename="${quoted(file.content.filename ?? 'file')}"\r\nContent-Type: ${file.content.mimetype}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  async function* body(): AsyncGenerator<Uint8Array> {
    yield head;
    for await (const chunk of file.content.chunks()) {
      yield chunk;
      await nextTurn();
    }
    yield tail;
  }
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    length: head.length + file.content.size + tail.length,
    body: body(),
  };
}

/** A name or file name as the HTML form encoding writes it inside quotes. */
function quoted(text: string): string {
  return text.replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22');
}

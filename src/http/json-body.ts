import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Base64Decoder, type DecodedBase64 } from '../lib/base64-stream.js';
import { AppError, badRequest } from './errors.js';

/**
 * Reading JSON bodies as they arrive, under bounds checked byte by byte: nesting depth, members of
 * one object or array, and the size of everything but one streamed value. A body past a bound is
 * refused the moment the reader reaches it — before the rest arrives, let alone is parsed — so no
 * body, however large or odd, costs more than its first bytes up to the bound. One route value may be
 * streamed instead of parsed (the base64 of a media message): its text goes, a slice at a time, to a
 * decoder, and the rest of the body (the "envelope", small) is parsed with the ordinary JSON parser.
 * See docs/adr/0060-request-bodies-read-as-they-arrive.md for why and what it costs.
 */

/** Deepest nesting of arrays and objects a JSON body may have. Nothing the API takes comes close. */
export const MAX_JSON_DEPTH = 64;
/**
 * Most members (keys or items) of one object or array in a body, unless the route says fewer. Above
 * any list the API takes, so that a list a little too long gets its schema's sentence.
 */
export const MAX_JSON_MEMBERS = 10_000;

export const tooDeep = () => badRequest(`JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`);

/** Whether arrays and objects in `root` nest deeper than `max`; walked without recursion. */
export function nestedDeeperThan(root: unknown, max: number): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value: root, depth: 0 }];
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth + 1 > max) return true;
    for (const child of Array.isArray(value) ? value : Object.values(value)) {
      if (child !== null && typeof child === 'object') stack.push({ value: child, depth: depth + 1 });
    }
  }
  return false;
}
const tooManyMembers = (max: number) =>
  badRequest(`JSON body has an object or array with more than ${max} members`);
const malformed = () => badRequest('Malformed JSON body');

/** How a route's JSON body is read, beyond the defaults. */
export interface JsonBodyOptions {
  /**
   * Keys from the body's root to a string value streamed to a base64 decoder instead of parsed, e.g.
   * `['message', 'media', 'base64']`; the route reads it with `streamedBase64Of`.
   */
  streamBase64At?: readonly string[];
  /** Most bytes of the body outside the streamed value (default: the route's body limit). */
  envelopeLimit?: number;
  /** Most members of one object or array (default MAX_JSON_MEMBERS). */
  maxMembers?: number;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    jsonBody?: JsonBodyOptions;
  }
  interface FastifyRequest {
    /** The decoded streamed value of the route's `streamedBase64`, when the body had it as a string. */
    streamedBase64: DecodedBase64 | null;
  }
}

/** The streamed value of a request, for a route declaring `config.streamedBase64`. */
export function streamedBase64Of(request: FastifyRequest): DecodedBase64 | null {
  return request.streamedBase64;
}

/**
 * The JSON parser of every route. Bodies are scanned as they arrive (`JsonScanner`); the envelope is
 * then parsed by Fastify's own parser (which refuses `__proto__` and `constructor` keys). An empty
 * body is no body: routes that take none accept the `Content-Type` many clients send anyway, and
 * routes that need one say so through their schema.
 */
export function installJsonParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.decorateRequest('streamedBase64', null);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', (request, payload, done) => {
    const limit = request.routeOptions.bodyLimit;
    const declared = Number(request.headers['content-length']);
    if (declared > limit) {
      done(tooLarge(), undefined);
      return;
    }
    const options = request.routeOptions.config.jsonBody ?? {};
    const decoder = options.streamBase64At ? new Base64Decoder() : null;
    const scanner = new JsonScanner({
      envelopeLimit: Math.min(options.envelopeLimit ?? limit, limit),
      maxMembers: options.maxMembers ?? MAX_JSON_MEMBERS,
      path: options.streamBase64At ?? null,
      sink: decoder,
    });
    let received = 0;
    let finished = false;
    const finish = (err: Error | null, body?: unknown) => {
      if (finished) return;
      finished = true;
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', onError);
      // What is left of a refused body is not read: the answer closes the connection.
      if (err) payload.pause();
      done(err, body);
    };
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      received += bytes.length;
      if (received > limit) return finish(tooLarge());
      try {
        scanner.write(bytes);
      } catch (err) {
        finish(err as Error);
      }
    };
    const onEnd = () => {
      if (!Number.isNaN(declared) && received !== declared) {
        return finish(badRequest('Request body size did not match Content-Length'));
      }
      let envelope: Buffer;
      try {
        envelope = scanner.end();
      } catch (err) {
        return finish(err as Error);
      }
      if (envelope.length === 0) {
        // No body where the route takes one: the sentence clients know; elsewhere, nothing to read.
        return request.routeOptions.schema?.body ? finish(emptyBody()) : finish(null, undefined);
      }
      parse(request, envelope.toString('utf8'), (err: Error | null, value?: unknown) => {
        if (err) return finish(err);
        if (decoder && scanner.streamedFound) request.streamedBase64 = decoder.end();
        finish(null, value);
      });
    };
    const onError = (err: Error) => finish(Object.assign(err, { statusCode: 400 }));
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onError);
    payload.resume();
  });
}

const tooLarge = () => new AppError(413, 'Request body is too large');
const emptyBody = () => badRequest('Body cannot be empty when content-type is set to application/json');

// Bytes the scanner looks at.
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

const enum State {
  /** A value must come (top level, after `:`, after `,` in an array). */
  Value,
  /** After `[`: a value or `]`. */
  ValueOrEnd,
  /** After `{`: a key or `}`. */
  KeyOrEnd,
  /** After `,` in an object: a key. */
  Key,
  /** After a key: `:`. */
  Colon,
  /** After a value: `,`, the container's end, or (top level) nothing. */
  After,
  /** Inside a string. */
  InString,
  /** After a backslash in a string. */
  Escape,
  /** Inside `\uXXXX`: `hexLeft` digits to go. */
  UnicodeEscape,
  /** Inside a number or `true`/`false`/`null`. */
  Literal,
  /** The top-level value is complete. */
  Done,
}

interface ScannerOptions {
  /** Most bytes of the body outside the streamed value. */
  envelopeLimit: number;
  /** Most members of one object or array. */
  maxMembers: number;
  /** Where the streamed value is; null when nothing is streamed. */
  path: readonly string[] | null;
  /** Takes the streamed value's text, unescaped, a slice at a time. */
  sink: { write(bytes: Buffer): void } | null;
}

const WHITESPACE = new Uint8Array(256);
for (const c of [0x20, 0x09, 0x0a, 0x0d]) WHITESPACE[c] = 1;
/** Characters that continue a number or literal. */
const LITERAL = new Uint8Array(256);
for (const c of '0123456789+-.eEtrufalsn') LITERAL[c.charCodeAt(0)] = 1;
const HEX = '0123456789abcdef';
const SIMPLE_ESCAPES: Record<number, number> = {
  0x22: 0x22,
  0x5c: 0x5c,
  0x2f: 0x2f,
  0x62: 0x08,
  0x66: 0x0c,
  0x6e: 0x0a,
  0x72: 0x0d,
  0x74: 0x09,
};

/**
 * A JSON lexer that follows the structure (containers, keys, strings) without building values, so
 * that its bounds are checked as bytes arrive. It copies every byte outside the streamed value into
 * the envelope, the streamed value becoming `""` there. Syntax it does not need (number and literal
 * spelling) is left to the parser of the envelope, which sees exactly the same structure.
 */
export class JsonScanner {
  /** Whether the streamed value was found (a string at the path). */
  streamedFound = false;

  private state = State.Value;
  /** Open containers: true for an object. */
  private readonly objects: boolean[] = [];
  private readonly members: number[] = [];
  /** Per open object: whether it and its ancestors are on the streamed path under their current keys. */
  private readonly onPath: boolean[] = [];
  private keyBytes: number[] | null = null;
  private stringIsKey = false;
  private diverting = false;
  private hexLeft = 0;
  private hexValue = 0;
  private readonly envelope: Buffer[] = [];
  private envelopeBytes = 0;
  private readonly pathBytes: Buffer[] | null;

  constructor(private readonly options: ScannerOptions) {
    this.pathBytes = options.path ? options.path.map((k) => Buffer.from(k)) : null;
  }

  write(chunk: Buffer): void {
    // Start of the bytes still to copy to the envelope; -1 while inside the streamed value.
    let keepFrom = this.diverting ? -1 : 0;
    let i = 0;
    const n = chunk.length;
    // Where the next backslash of this chunk is (-1: none left), found again only once passed, so that
    // many short strings do not each search the rest of the chunk for one.
    let slash = chunk.indexOf(BACKSLASH);
    while (i < n) {
      const state = this.state;
      if (state === State.InString) {
        const quote = chunk.indexOf(QUOTE, i);
        if (slash >= 0 && slash < i) slash = chunk.indexOf(BACKSLASH, i);
        const stop = quote < 0 ? slash : slash < 0 ? quote : Math.min(quote, slash);
        const end = stop < 0 ? n : stop;
        if (end > i) this.stringBytes(chunk, i, end);
        if (stop < 0) break;
        i = stop + 1;
        if (chunk[stop] !== QUOTE) {
          this.state = State.Escape;
          continue;
        }
        // The streamed text ends: its closing quote is copied with what follows.
        if (this.diverting) keepFrom = stop;
        this.endString();
        continue;
      }
      const c = chunk[i]!;
      if (state === State.Escape) {
        i++;
        if (c === 0x75) {
          this.state = State.UnicodeEscape;
          this.hexLeft = 4;
          this.hexValue = 0;
          continue;
        }
        const plain = SIMPLE_ESCAPES[c];
        if (plain === undefined) throw malformed();
        this.escaped(plain);
        this.state = State.InString;
        continue;
      }
      if (state === State.UnicodeEscape) {
        i++;
        const digit = HEX.indexOf(String.fromCharCode(c).toLowerCase());
        if (digit < 0) throw malformed();
        this.hexValue = this.hexValue * 16 + digit;
        if (--this.hexLeft === 0) {
          // Only ASCII can be base64 text or part of a key on the path; anything else stands as 0xff.
          this.escaped(this.hexValue < 0x80 ? this.hexValue : 0xff);
          this.state = State.InString;
        }
        continue;
      }
      if (state === State.Literal) {
        if (LITERAL[c]) {
          i++;
          continue;
        }
        this.state = this.objects.length === 0 ? State.Done : State.After;
        continue;
      }
      i++;
      if (WHITESPACE[c]) continue;
      switch (state) {
        case State.Value:
        case State.ValueOrEnd:
          if (c === CLOSE_ARRAY && state === State.ValueOrEnd) {
            this.close(false);
            break;
          }
          if (this.objects.at(-1) === false) this.member();
          this.value(c);
          if (this.diverting) {
            // Up to and including the opening quote; the text itself goes to the sink.
            this.keep(chunk, keepFrom, i);
            keepFrom = -1;
          }
          break;
        case State.KeyOrEnd:
        case State.Key:
          if (c === CLOSE_OBJECT && state === State.KeyOrEnd) {
            this.close(true);
            break;
          }
          if (c !== QUOTE) throw malformed();
          this.member();
          this.stringIsKey = true;
          this.keyBytes = this.pathBytes ? [] : null;
          this.state = State.InString;
          break;
        case State.Colon:
          if (c !== COLON) throw malformed();
          this.state = State.Value;
          break;
        case State.After:
          this.after(c);
          break;
        default:
          // Done: nothing but whitespace may follow the value.
          throw malformed();
      }
    }
    if (keepFrom >= 0) this.keep(chunk, keepFrom, n);
  }

  /** The envelope, once the body has ended; throws when the body ended inside a value. */
  end(): Buffer {
    const complete = this.state === State.Done || (this.state === State.Literal && this.objects.length === 0);
    if (complete) return Buffer.concat(this.envelope, this.envelopeBytes);
    // Nothing but whitespace: no body.
    if (this.state === State.Value && this.objects.length === 0) return Buffer.alloc(0);
    throw malformed();
  }

  private keep(chunk: Buffer, from: number, to: number): void {
    if (to <= from) return;
    this.envelopeBytes += to - from;
    if (this.envelopeBytes > this.options.envelopeLimit) {
      throw this.options.path
        ? new AppError(
            413,
            `Request body is too large: everything but ${this.options.path.join('.')} must fit in ${this.options.envelopeLimit} bytes`,
          )
        : tooLarge();
    }
    this.envelope.push(chunk.subarray(from, to));
  }

  private value(c: number): void {
    if (c === QUOTE) {
      this.stringIsKey = false;
      this.state = State.InString;
      if (this.streamsHere()) {
        if (this.streamedFound) throw badRequest(`${this.options.path?.join('.')} must be given once`);
        this.streamedFound = true;
        this.diverting = true;
      }
      return;
    }
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      const object = c === OPEN_OBJECT;
      if (this.objects.length >= MAX_JSON_DEPTH) throw tooDeep();
      this.objects.push(object);
      this.members.push(0);
      this.onPath.push(false);
      this.state = object ? State.KeyOrEnd : State.ValueOrEnd;
      return;
    }
    if (LITERAL[c]) {
      this.state = State.Literal;
      return;
    }
    throw malformed();
  }

  /** One more member of the innermost container. */
  private member(): void {
    const top = this.members.length - 1;
    const count = (this.members[top] ?? 0) + 1;
    if (count > this.options.maxMembers) throw tooManyMembers(this.options.maxMembers);
    this.members[top] = count;
  }

  private after(c: number): void {
    const depth = this.objects.length;
    if (depth === 0) throw malformed();
    const object = this.objects[depth - 1]!;
    if (c === COMMA) {
      this.state = object ? State.Key : State.Value;
      return;
    }
    if (c === (object ? CLOSE_OBJECT : CLOSE_ARRAY)) {
      this.close(object);
      return;
    }
    throw malformed();
  }

  private close(object: boolean): void {
    if (this.objects.at(-1) !== object) throw malformed();
    this.objects.pop();
    this.members.pop();
    this.onPath.pop();
    this.state = this.objects.length === 0 ? State.Done : State.After;
  }

  private stringBytes(chunk: Buffer, from: number, to: number): void {
    if (this.diverting) this.options.sink?.write(chunk.subarray(from, to));
    else if (this.keyBytes && this.stringIsKey) {
      // Only a key as long as a path key can match it.
      if (this.keyBytes.length + (to - from) <= 64)
        for (let j = from; j < to; j++) this.keyBytes.push(chunk[j]!);
      else this.keyBytes = null;
    }
  }

  private escaped(byte: number): void {
    if (this.diverting) this.options.sink?.write(Buffer.of(byte));
    else if (this.keyBytes && this.stringIsKey) this.keyBytes.push(byte);
  }

  private endString(): void {
    this.diverting = false;
    if (this.stringIsKey) {
      const level = this.objects.length - 1;
      const path = this.pathBytes;
      const key = path?.[level];
      this.onPath[level] =
        key !== undefined &&
        this.keyBytes !== null &&
        (level === 0 || this.onPath[level - 1] === true) &&
        key.equals(Buffer.from(this.keyBytes));
      this.keyBytes = null;
      this.state = State.Colon;
      return;
    }
    this.state = this.objects.length === 0 ? State.Done : State.After;
  }

  /** Whether a string starting now is the streamed value. */
  private streamsHere(): boolean {
    const path = this.pathBytes;
    const depth = this.objects.length;
    return (
      path !== null &&
      depth === path.length &&
      this.objects[depth - 1] === true &&
      this.onPath[depth - 1] === true
    );
  }
}

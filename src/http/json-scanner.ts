import { AppError, badRequest } from './errors.js';

/**
 * The byte-level reader behind every JSON body (json-body.ts): it follows a body's structure as it
 * arrives, checks its bounds (depth, members, envelope size), keeps the envelope and hands the one
 * streamed value to its sink.
 */

/** Deepest nesting of arrays and objects a JSON body may have. Nothing the API takes comes close. */
export const MAX_JSON_DEPTH = 64;

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

export const tooLarge = () => new AppError(413, 'Request body is too large');

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

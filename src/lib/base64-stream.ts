/**
 * Decodes base64 text as it arrives, a slice at a time, and judges it as strict base64 (standard
 * alphabet, `=` padding only at the end and to a multiple of 4, no whitespace, zero unused bits).
 * A file of 100 MB is never held as text: each slice costs a native decode of its own size, so no
 * step takes long enough to hold up other work on the event loop.
 */
export class Base64Decoder {
  private readonly pieces: Buffer[] = [];
  private carry = '';
  private length = 0;
  private size = 0;
  private padding = 0;
  private head = '';
  private invalid = false;

  /** The next slice of the text, as the bytes it is written in (base64 is ASCII). */
  write(bytes: Buffer): void {
    this.length += bytes.length;
    if (this.head.length < DATA_PREFIX.length) {
      this.head += bytes.toString('latin1', 0, Math.min(bytes.length, DATA_PREFIX.length - this.head.length));
    }
    if (this.invalid) return;
    let text = bytes.toString('latin1');
    if (this.padding > 0) {
      // Only more padding may follow padding.
      if (!/^=*$/.test(text) || this.padding + text.length > 2) this.invalid = true;
      else this.padding += text.length;
      return;
    }
    const eq = text.indexOf('=');
    if (eq >= 0) {
      const tail = text.length - eq;
      if (tail > 2 || !/^={1,2}$/.test(text.slice(eq))) {
        this.invalid = true;
        return;
      }
      this.padding = tail;
      text = text.slice(0, eq);
    }
    if (this.carry) text = this.carry + text;
    const whole = text.length - (text.length % 4);
    this.carry = text.slice(whole);
    if (whole === 0) return;
    const quads = whole === text.length ? text : text.slice(0, whole);
    const piece = Buffer.from(quads, 'base64');
    // Node's decoder skips characters outside the alphabet and takes the URL-safe one too: the text is
    // strict base64 exactly when its bytes encode back to it (faster than testing every character).
    if (piece.length !== (whole / 4) * 3 || piece.toString('base64') !== quads) {
      this.invalid = true;
      return;
    }
    this.push(piece);
  }

  /** The outcome once the text has ended. */
  end(): DecodedBase64 {
    const summary = { length: this.length, dataPrefix: /^data:/i.test(this.head) };
    if (this.invalid || this.length % 4 !== 0) return { ...summary, decodedLength: null, pieces: [] };
    if (this.carry || this.padding > 0) {
      const quad = this.carry + '='.repeat(this.padding);
      const piece = Buffer.from(quad, 'base64');
      if (!strictQuad(quad) || piece.toString('base64') !== quad) {
        return { ...summary, decodedLength: null, pieces: [] };
      }
      this.push(piece);
      this.carry = '';
    }
    return { ...summary, decodedLength: this.size, pieces: this.pieces };
  }

  private push(piece: Buffer): void {
    this.pieces.push(piece);
    this.size += piece.length;
  }
}

/** What a base64 value decoded to, and enough about its text to word a refusal. */
export interface DecodedBase64 {
  /** Characters of base64 text received. */
  length: number;
  /** Bytes of the decoded file, or null when the text is not strict base64. */
  decodedLength: number | null;
  /** Whether the text starts with `data:` (a data URL, not bare base64). */
  dataPrefix: boolean;
  /** The decoded bytes, in order (empty when the text was not strict base64). */
  pieces: Buffer[];
}

const DATA_PREFIX = 'data:';
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** A last group of four with padding whose unused bits are zero, as strict base64 requires. */
function strictQuad(quad: string): boolean {
  if (quad.length !== 4) return false;
  const pad = quad.endsWith('==') ? 2 : quad.endsWith('=') ? 1 : 0;
  if (pad === 0) return true;
  const sextet = ALPHABET.indexOf(quad.charAt(3 - pad));
  return pad === 2 ? (sextet & 0x0f) === 0 : (sextet & 0x03) === 0;
}

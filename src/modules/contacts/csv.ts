/**
 * CSV as the contacts page imports and exports it (RFC 4180: comma-separated, `"` quotes a field and
 * is doubled inside one, CRLF or LF ends a record). Read incrementally: bytes in, whole records out,
 * so a file is never held whole; a field or record past its bound is an error of its line.
 */

export interface CsvRecord {
  /** The line the record starts on (1: the header). */
  line: number;
  fields: string[];
}

export class CsvError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

/** Longest field, and most fields of a record, the reader accepts. */
export const MAX_FIELD = 5000;
export const MAX_FIELDS = 100;

export class CsvReader {
  private readonly decoder = new TextDecoder('utf-8', { fatal: false });
  private field = '';
  private fields: string[] = [];
  private quoted = false;
  /** Just read a `"` inside a quoted field: the next character says whether it was an escape. */
  private quoteSeen = false;
  private line = 1;
  private start = 1;
  private bom = true;
  /** The last character was a CR ending a record: a LF right after it (maybe in the next chunk) belongs to it. */
  private afterCr = false;

  /** The records completed by this chunk. */
  write(chunk: Uint8Array): CsvRecord[] {
    return this.read(this.decoder.decode(chunk, { stream: true }));
  }

  /** The last record, if the input did not end with a line break. */
  end(): CsvRecord[] {
    const out = this.read(this.decoder.decode());
    if (this.quoted && !this.quoteSeen) throw new CsvError(this.start, 'a quoted field is not closed');
    if (this.field !== '' || this.fields.length > 0 || this.quoteSeen) out.push(this.finish());
    return out;
  }

  private read(text: string): CsvRecord[] {
    const out: CsvRecord[] = [];
    for (let i = 0; i < text.length; i++) {
      const ch = text[i]!;
      if (this.bom) {
        this.bom = false;
        if (ch === '\uFEFF') continue;
      }
      const crlf = this.afterCr && ch === '\n';
      this.afterCr = false;
      if (crlf) continue;
      if (this.quoteSeen) {
        this.quoteSeen = false;
        if (ch === '"') {
          this.add('"');
          continue;
        }
        this.quoted = false; // the closing quote; `ch` is read as outside quotes
      } else if (this.quoted) {
        if (ch === '"') this.quoteSeen = true;
        else {
          if (ch === '\n') this.line++;
          this.add(ch);
        }
        continue;
      }
      if (ch === '"' && this.field === '') {
        this.quoted = true;
        continue;
      }
      if (ch === ',') {
        this.push();
        continue;
      }
      if (ch === '\n' || ch === '\r') {
        this.afterCr = ch === '\r';
        out.push(this.finish());
        this.line++;
        this.start = this.line;
        continue;
      }
      this.add(ch);
    }
    return out;
  }

  private add(ch: string) {
    if (this.field.length >= MAX_FIELD)
      throw new CsvError(this.start, `a field is longer than ${MAX_FIELD} characters`);
    this.field += ch;
  }

  private push() {
    if (this.fields.length >= MAX_FIELDS) throw new CsvError(this.start, `more than ${MAX_FIELDS} fields`);
    this.fields.push(this.field);
    this.field = '';
  }

  private finish(): CsvRecord {
    this.push();
    const record = { line: this.start, fields: this.fields };
    this.fields = [];
    return record;
  }
}

/**
 * One CSV record. A field a spreadsheet would run as a formula (starting with `=`, `+`, `-` or `@`)
 * is written after a `'`, which `unguard` takes off on import.
 */
export function csvLine(fields: readonly string[]): string {
  return `${fields.map(csvField).join(',')}\r\n`;
}

function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** A field as exported (`csvLine`) read back: the guard before a formula-like value removed. */
export function unguard(value: string): string {
  return /^'[=+\-@\t\r]/.test(value) ? value.slice(1) : value;
}

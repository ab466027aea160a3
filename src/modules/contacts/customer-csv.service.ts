import { PassThrough, type Readable } from 'node:stream';
import { once } from 'node:events';
import { sql } from 'kysely';
import type { Tx } from '../../db/index.js';
import type { AuditService } from '../audit/index.js';
import type { CustomerAttributeValues } from '../../db/types.js';
import type { EventsService } from '../../events/events.service.js';
import { AppError, badRequest } from '../../http/errors.js';
import { en, type Text } from '../../http/language.js';
import { newId } from '../../lib/ids.js';
import type { UserActor } from '../../access/actors.js';
import { requirePermission } from '../../access/guards.js';
import {
  checkAttributeValue,
  type AttributeDefinition,
  type CustomerAttributesService,
} from './customer-attributes.js';
import type { CustomerImportRepo, Identity } from './customer-import.repo.js';
import type { CustomerRow, CustomersRepo } from './customers.repo.js';
import type { ListCustomersQueryT } from './customers.schemas.js';
import type { CustomersService } from './customers.service.js';
import { csvLine, CsvError, CsvReader, type CsvRecord, unguard } from './csv.js';
import { normalizeContact, type PhoneDefaultCountry } from './normalize.js';

/** Rows read from the database per fetch of an export: what memory holds of it at once. */
const EXPORT_BATCH = 500;
/** Largest file an import reads, lines it reads, lines one transaction writes, errors it lists. */
export const IMPORT_MAX_BYTES = 5 * 1024 * 1024;
export const IMPORT_MAX_LINES = 10_000;
const IMPORT_BATCH = 200;
const MAX_ERRORS_LISTED = 100;

/** The columns of an export, before one `attr.<key>` column per attribute; what an import reads. */
const FIXED_COLUMNS = ['id', 'name', 'phones', 'emails', 'createdAt', 'lastSeenAt', 'labels'] as const;
/** Columns an import takes, besides `attr.<key>`: singular forms are accepted too. */
const IMPORT_COLUMNS = new Set(['id', 'name', 'phone', 'phones', 'email', 'emails']);
/** Columns of an export an import ignores (they are not written through it). */
const IGNORED_COLUMNS = new Set(['createdat', 'lastseenat', 'labels']);

export const IMPORT_CHANNEL_UNKNOWN = en(
  'channelId is not a channel of the account',
  'channelId não é um canal da conta',
);

/** What an import did; each error's sentence in both languages (the route answers the caller's). */
export interface ImportReport {
  created: number;
  updated: number;
  failed: number;
  errors: { line: number; message: Text }[];
  errorsTruncated: boolean;
}

interface ImportLine {
  line: number;
  id: string | null;
  name: string | null;
  identities: Identity[];
  attributes: CustomerAttributeValues;
}

/** A line's problem: reported with its number, the import goes on. */
class LineError extends Error {
  constructor(readonly text: Text) {
    super(text.toString());
  }
}

/**
 * The contacts page's CSV: export streamed from a database cursor (one batch in memory), import
 * read as it arrives, bounded in bytes and lines, written in batches, each line's problem reported
 * with its line number while the others are imported.
 */
export class CustomerCsvService {
  constructor(
    private readonly customers: CustomersService,
    private readonly rows: CustomersRepo,
    private readonly repo: CustomerImportRepo,
    private readonly attributes: CustomerAttributesService,
    private readonly events: EventsService,
    private readonly phoneDefaultCountry: PhoneDefaultCountry,
    private readonly audit: AuditService,
  ) {}

  /** The customers the user may see, matching the list's filters, as CSV. */
  async export(actor: UserActor, query: ListCustomersQueryT): Promise<Readable> {
    const { scope, filter } = await this.customers.exportOf(actor, query);
    const defs = [...(await this.attributes.byKey(actor.accountId)).values()];
    const out = new PassThrough();
    out.write(csvLine([...FIXED_COLUMNS, ...defs.map((d) => `attr.${d.key}`)]));
    const write = async (rows: CustomerRow[]): Promise<boolean> => {
      if (out.destroyed) return false;
      const text = rows.map((r) => csvLine(exportFields(r, defs))).join('');
      // Waits for the reader (backpressure); a reader gone ends the read.
      if (!out.write(text)) await Promise.race([once(out, 'drain'), once(out, 'close')]);
      return !out.destroyed;
    };
    void this.rows
      .forEachBatch(scope, filter, EXPORT_BATCH, write)
      .then(() => out.end())
      .catch((err: unknown) => out.destroy(err instanceof Error ? err : new Error(String(err))));
    return out;
  }

  /**
   * Imports customers from CSV into the channel: a line with `id` updates that customer; otherwise
   * the customer its numbers or e-mails already belong to, or a new one. Addresses not yet on the
   * channel are added to it; `name` and `attr.<key>` cells that are not empty are written.
   */
  async import(
    actor: UserActor,
    channelId: string,
    body: AsyncIterable<Uint8Array | string>,
    declaredBytes: number | undefined,
  ): Promise<ImportReport> {
    requirePermission(actor, 'customers:manage');
    if (declaredBytes !== undefined && declaredBytes > IMPORT_MAX_BYTES) throw tooLarge();
    if (!(await this.repo.channelExists(actor.accountId, channelId)))
      throw badRequest(IMPORT_CHANNEL_UNKNOWN);
    const defs = await this.attributes.byKey(actor.accountId);
    const report: ImportReport = { created: 0, updated: 0, failed: 0, errors: [], errorsTruncated: false };
    const fail = (line: number, text: Text) => {
      report.failed++;
      if (report.errors.length < MAX_ERRORS_LISTED) report.errors.push({ line, message: text });
      else report.errorsTruncated = true;
    };
    const reader = new CsvReader();
    let header: Header | null = null;
    let batch: ImportLine[] = [];
    let lines = 0;
    let bytes = 0;
    let stopped = false;
    const take = async (records: CsvRecord[]) => {
      for (const record of records) {
        if (stopped || record.fields.every((f) => f.trim() === '')) continue;
        if (!header) {
          header = readHeader(record, defs);
          continue;
        }
        if (++lines > IMPORT_MAX_LINES) {
          fail(record.line, tooManyLines(record.line));
          stopped = true;
          continue;
        }
        try {
          batch.push(readLine(record, header, defs, this.phoneDefaultCountry));
        } catch (err) {
          if (!(err instanceof LineError)) throw err;
          fail(record.line, err.text);
        }
        if (batch.length >= IMPORT_BATCH) {
          await this.write(actor, channelId, batch, report, fail);
          batch = [];
        }
      }
    };
    try {
      for await (const chunk of body) {
        const data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
        bytes += data.length;
        if (bytes > IMPORT_MAX_BYTES) throw tooLarge();
        await take(reader.write(data));
        if (stopped) break;
      }
      if (!stopped) await take(reader.end());
    } catch (err) {
      if (err instanceof CsvError)
        throw badRequest(en(`line ${err.line}: ${err.message}`, `linha ${err.line}: ${err.message}`));
      throw err;
    }
    if (!header) throw badRequest(en('The file is empty', 'O arquivo está vazio'));
    if (batch.length > 0) await this.write(actor, channelId, batch, report, fail);
    return report;
  }

  /** One transaction for a batch of lines; a line that cannot be written is undone alone (savepoint). */
  private async write(
    actor: UserActor,
    channelId: string,
    lines: ImportLine[],
    report: ImportReport,
    fail: (line: number, text: Text) => void,
  ): Promise<void> {
    const outcome = await this.events.transaction(async (tx, events) => {
      const done: { created: number; updated: number; failed: [number, Text][] } = {
        created: 0,
        updated: 0,
        failed: [],
      };
      for (const line of lines) {
        await sql`SAVEPOINT import_line`.execute(tx);
        try {
          const { id, created } = await this.writeLine(tx, actor.accountId, channelId, line);
          await this.customers.changed(tx, events, actor.accountId, id);
          await sql`RELEASE SAVEPOINT import_line`.execute(tx);
          if (created) done.created++;
          else done.updated++;
        } catch (err) {
          await sql`ROLLBACK TO SAVEPOINT import_line`.execute(tx);
          done.failed.push([
            line.line,
            err instanceof LineError
              ? err.text
              : en('The line could not be imported', 'A linha não pôde ser importada'),
          ]);
        }
      }
      // A line per batch, in the batch's transaction: an import cut short has lines for what it
      // wrote. Counts only: the lines of the file are people's data.
      await this.audit.record(tx, actor, {
        action: 'contact.import',
        target: { type: 'channel', id: channelId },
        details: { created: done.created, updated: done.updated, failed: done.failed.length },
      });
      return done;
    });
    report.created += outcome.created;
    report.updated += outcome.updated;
    for (const [line, text] of outcome.failed) fail(line, text);
  }

  private async writeLine(
    tx: Tx,
    accountId: string,
    channelId: string,
    line: ImportLine,
  ): Promise<{ id: string; created: boolean }> {
    const owners = await this.repo.owners(tx, accountId, line.identities);
    let target: { id: string; attributes: CustomerAttributeValues } | undefined;
    if (line.id !== null) {
      target = await this.repo.lock(tx, accountId, line.id);
      if (!target)
        throw new LineError(en('id is not a customer of the account', 'id não é um cliente da conta'));
      if (owners.some((o) => o !== line.id))
        throw new LineError(
          en(
            'a number or e-mail of the line belongs to another customer',
            'um número ou e-mail da linha pertence a outro cliente',
          ),
        );
    } else if (owners.length > 1) {
      throw new LineError(
        en(
          'the numbers and e-mails of the line belong to different customers',
          'os números e e-mails da linha pertencem a clientes diferentes',
        ),
      );
    } else if (owners.length === 1) {
      target = await this.repo.lock(tx, accountId, owners[0]!);
    }
    const id = await this.repo.addContacts(tx, {
      accountId,
      channelId,
      name: line.name,
      customerId: target?.id ?? null,
      identities: line.identities,
      newId,
    });
    await this.repo.update(tx, id, line.name, { ...(target?.attributes ?? {}), ...line.attributes });
    return { id, created: target === undefined };
  }
}

/** What each column of an import is. */
interface Header {
  columns: ({ kind: 'id' | 'name' | 'phone' | 'email' | 'ignored' } | { kind: 'attr'; key: string })[];
}

function readHeader(record: CsvRecord, defs: ReadonlyMap<string, AttributeDefinition>): Header {
  const problems: Text[] = [];
  const columns = record.fields.map((raw): Header['columns'][number] => {
    const name = raw.trim();
    const lower = name.toLowerCase();
    if (lower.startsWith('attr.')) {
      const key = name.slice('attr.'.length);
      if (!defs.has(key))
        problems.push(
          en(`column ${name}: no attribute has this key`, `coluna ${name}: nenhum atributo tem esta chave`),
        );
      return { kind: 'attr', key };
    }
    if (IGNORED_COLUMNS.has(lower)) return { kind: 'ignored' };
    if (!IMPORT_COLUMNS.has(lower)) {
      problems.push(en(`column ${name} is not known`, `a coluna ${name} não é conhecida`));
      return { kind: 'ignored' };
    }
    return {
      kind: lower.startsWith('phone')
        ? 'phone'
        : lower.startsWith('email')
          ? 'email'
          : (lower as 'id' | 'name'),
    };
  });
  if (problems.length === 0 && !columns.some((c) => c.kind !== 'ignored'))
    problems.push(
      en(
        'the first line must name the columns (id, name, phones, emails, attr.<key>)',
        'a primeira linha deve nomear as colunas (id, name, phones, emails, attr.<chave>)',
      ),
    );
  if (problems.length > 0) throw badRequest(problems);
  return { columns };
}

function readLine(
  record: CsvRecord,
  header: Header,
  defs: ReadonlyMap<string, AttributeDefinition>,
  country: PhoneDefaultCountry,
): ImportLine {
  const line: ImportLine = { line: record.line, id: null, name: null, identities: [], attributes: {} };
  const problems: string[] = [];
  const ptProblems: string[] = [];
  header.columns.forEach((column, i) => {
    const cell = unguard((record.fields[i] ?? '').trim());
    if (cell === '' || column.kind === 'ignored') return;
    if (column.kind === 'id') line.id = cell;
    else if (column.kind === 'name') line.name = cell.slice(0, 200);
    else if (column.kind === 'attr') {
      const checked = checkAttributeValue(defs.get(column.key), column.key, cell);
      if (checked.ok) line.attributes[column.key] = checked.value;
      else {
        problems.push(checked.message.in('en'));
        ptProblems.push(checked.message.in('pt-BR'));
      }
    } else {
      for (const value of cell
        .split(';')
        .map((v) => v.trim())
        .filter((v) => v !== '')) {
        const read = normalizeContact(column.kind, value, country);
        if (read.ok) line.identities.push({ type: column.kind, value: read.value });
        else {
          problems.push(
            `${value}: ${column.kind === 'phone' ? 'not a valid phone number' : 'not an e-mail'}`,
          );
          ptProblems.push(
            `${value}: ${column.kind === 'phone' ? 'não é um número de telefone válido' : 'não é um e-mail'}`,
          );
        }
      }
    }
  });
  if (line.identities.length > 20) {
    problems.push('at most 20 numbers and e-mails per line');
    ptProblems.push('no máximo 20 números e e-mails por linha');
  }
  if (line.id === null && line.identities.length === 0 && problems.length === 0) {
    problems.push('a line without id needs a phone or an e-mail');
    ptProblems.push('uma linha sem id precisa de um telefone ou um e-mail');
  }
  if (line.id !== null && !/^[0-9a-f]{24}$/.test(line.id)) {
    problems.push('id is not a customer of the account');
    ptProblems.push('id não é um cliente da conta');
  }
  if (problems.length > 0) throw new LineError(en(problems.join('; '), ptProblems.join('; ')));
  // One address once.
  const seen = new Set<string>();
  line.identities = line.identities.filter(
    (x) => !seen.has(`${x.type}:${x.value}`) && seen.add(`${x.type}:${x.value}`),
  );
  return line;
}

function exportFields(r: CustomerRow, defs: readonly AttributeDefinition[]): string[] {
  const of = (type: string) =>
    [...new Set(r.identities.filter((i) => i.type === type).map((i) => i.value))].join(';');
  return [
    r.id,
    r.name ?? '',
    of('phone'),
    of('email'),
    r.created_at.toISOString(),
    r.last_seen_at ? new Date(r.last_seen_at).toISOString() : '',
    r.labels.map((l) => l.name).join(';'),
    ...defs.map((d) => {
      const v = r.attributes[d.key];
      return v === undefined ? '' : String(v);
    }),
  ];
}

const tooLarge = () =>
  new AppError(
    413,
    en(
      `The file is larger than ${IMPORT_MAX_BYTES / 1024 / 1024} MiB`,
      `O arquivo é maior que ${IMPORT_MAX_BYTES / 1024 / 1024} MiB`,
    ),
  );
const tooManyLines = (line: number) =>
  en(
    `The file has more than ${IMPORT_MAX_LINES} lines: line ${line} and those after it were not read`,
    `O arquivo tem mais de ${IMPORT_MAX_LINES} linhas: a linha ${line} e as seguintes não foram lidas`,
  );

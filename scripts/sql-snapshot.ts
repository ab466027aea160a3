// The SQL the platform sends for its hot paths, written to a committed file so that a change to any of
// it shows in review as a diff of SQL rather than of the code that builds it:
//   npm run sql:snapshot    writes src/db/sql-snapshot.sql
//   npm run sql:check       builds it again in memory and fails when the committed file differs
//                           (part of npm run lint)
// Recorded: every prepared statement written in the source (src/db/prepared.ts), the chat lists'
// statements for each filter shape (prepared per shape at run time), and the statements of transfers
// and of the event log. No database is needed: the repositories run on a Kysely whose driver records
// the SQL it is given and answers no rows.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  CompiledQuery,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
} from 'kysely';
import type { Db } from '../src/db/index.js';
import type { Database } from '../src/db/types.js';
import { preparedTexts } from '../src/db/prepared.js';
import { EventsRepo } from '../src/events/events.repo.js';
import { ChatListsRepo, ChatTransfersRepo } from '../src/modules/chats/index.js';
import type { ChatFilter } from '../src/modules/chats/chat-lists.repo.js';
// Every repository with a prepared statement is reached from the services' wiring and the workers.
import '../src/services.js';
import '../src/workers.js';

const root = path.dirname(path.dirname(new URL(import.meta.url).pathname));
const FILE = path.join(root, 'src', 'db', 'sql-snapshot.sql');

/** A connection that records each statement's text and answers no rows. */
class RecordingConnection implements DatabaseConnection {
  constructor(private readonly seen: string[]) {}
  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    this.seen.push(query.sql);
    return { rows: [] };
  }
  // eslint-disable-next-line require-yield -- nothing streams from a recording
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not recorded');
  }
}

class RecordingDriver implements Driver {
  constructor(private readonly seen: string[]) {}
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return new RecordingConnection(this.seen);
  }
  async beginTransaction(): Promise<void> {}
  async commitTransaction(): Promise<void> {}
  async rollbackTransaction(): Promise<void> {}
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {}
}

/** The statements `run` sends, in order, each once. */
async function recorded(run: (db: Db) => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const db: Db = new Kysely<Database>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new RecordingDriver(seen),
      createIntrospector: (k) => new PostgresIntrospector(k),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
  // With no rows, some methods end in their "no row" error: the statement was recorded before it.
  await run(db).catch(() => undefined);
  return [...new Set(seen)];
}

/** One statement with its heading, its text trimmed of trailing blanks on each line. */
const entry = (heading: string, text: string) =>
  `-- ${heading}\n${text
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')
    .trim()};\n`;

/** Where in src/ a prepared text is written: the first file holding one of its lines as written. */
function sourceOf(text: string, sources: Map<string, string>): string {
  // Pieces of its lines between parameters ($1::text), longest first: a piece an interpolation wrote
  // is in no file, a piece of the literal is.
  const pieces = text
    .split('\n')
    .flatMap((line) => line.split(/\$\d+(?:::\w+(?:\[\])?)?/))
    .map((p) => p.trim())
    .filter((p) => p.length >= 16)
    .sort((a, b) => b.length - a.length);
  for (const piece of pieces) for (const [file, body] of sources) if (body.includes(piece)) return file;
  return 'src';
}

/** The TypeScript sources under src/, by path. */
function sourceFiles(dir = path.join(root, 'src'), out = new Map<string, string>()): Map<string, string> {
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) sourceFiles(p, out);
    else if (e.name.endsWith('.ts')) out.set(path.relative(root, p), readFileSync(p, 'utf8'));
  }
  return out;
}

const ACCOUNT = 'account-id';
/** The filter shapes of the chat lists: one statement text per shape (values are parameters). */
const SHAPES: Record<string, ChatFilter> = {
  'open, every queue but the hidden one': { accountId: ACCOUNT, status: 'open' },
  closed: { accountId: ACCOUNT, status: 'closed' },
  'a queue': { accountId: ACCOUNT, status: 'open', queue: 'API' },
  'a channel': { accountId: ACCOUNT, status: 'open', channelId: 'c' },
  "an API key's channels": { accountId: ACCOUNT, status: 'open', channelIds: ['c'] },
  "a channel among an API key's": { accountId: ACCOUNT, status: 'open', channelId: 'c', channelIds: ['c'] },
  'a team': { accountId: ACCOUNT, status: 'open', teamId: 't' },
  'an attendant': { accountId: ACCOUNT, status: 'open', userId: 'u' },
  'a team and an attendant': { accountId: ACCOUNT, status: 'open', teamId: 't', userId: 'u' },
  "an agent's visibility": { accountId: ACCOUNT, status: 'open', visibleTo: { teamIds: ['t'], userId: 'u' } },
  'a search by number': { accountId: ACCOUNT, status: 'open', search: { kind: 'number', digits: '5511' } },
  'a search by name': { accountId: ACCOUNT, status: 'open', search: { kind: 'text', text: 'Ana' } },
};

async function snapshot(): Promise<string> {
  // Registered at import, before any shaped statement of the lists below joins the registry.
  const prepared = preparedTexts();
  const sources = sourceFiles();
  const out: string[] = [
    '-- Generated by `npm run sql:snapshot` (scripts/sql-snapshot.ts); `npm run sql:check` (in lint)\n' +
      '-- fails when it is stale. Review a change here as a change of the SQL the platform sends.\n',
    '\n-- ==== Prepared statements written in the source (src/db/prepared.ts), by file then text ====\n',
  ];
  const bySource = prepared
    .map((text) => ({ text, file: sourceOf(text, sources) }))
    .sort((a, b) => (a.file === b.file ? (a.text < b.text ? -1 : 1) : a.file < b.file ? -1 : 1));
  for (const { text, file } of bySource) out.push(`\n${entry(file, text)}`);

  out.push('\n-- ==== Chat lists (ChatListsRepo): a statement per filter shape, first pages prepared ====\n');
  const lists = (db: Db) => new ChatListsRepo(db);
  for (const [shape, filter] of Object.entries(SHAPES)) {
    const calls: [string, (r: ChatListsRepo) => Promise<unknown>][] = [
      ['listPage, first page of 20', (r) => r.listPage(filter, 1, 20)],
      ['listApiPageJson, first page of 20', (r) => r.listApiPageJson(filter, 1, 20, 'key-id')],
      ['count', (r) => r.count(filter)],
    ];
    for (const [call, run] of calls) {
      // listPage counts again when its page is empty (as here): that statement is `count`'s.
      const [text] = await recorded((db) => run(lists(db)));
      out.push(`\n${entry(`${call}: ${shape}`, text!)}`);
    }
  }
  for (const text of await recorded((db) => lists(db).foldCounts()))
    out.push(`\n${entry('foldCounts', text)}`);

  out.push('\n-- ==== Transfers (ChatTransfersRepo) and the event log (EventsRepo), built by Kysely ====\n');
  const at = new Date('2026-01-01T00:00:00Z');
  const kysely: [string, (db: Db) => Promise<unknown>][] = [
    ['ChatTransfersRepo.transfers', (db) => new ChatTransfersRepo(db).transfers('chat-id')],
    ['EventsRepo.page', (db) => new EventsRepo(db).page(ACCOUNT, 0, 10, ['account'], 50, 500)],
    ['EventsRepo.tailStart', (db) => new EventsRepo(db).tailStart(5_000, 1_000)],
    ['EventsRepo.storeCursor', (db) => new EventsRepo(db).storeCursor(1)],
    ['EventsRepo.deleteOlderThan', (db) => new EventsRepo(db).deleteOlderThan(at, 1_000, false)],
    ['EventsRepo.deleteOlderThan (activity)', (db) => new EventsRepo(db).deleteOlderThan(at, 1_000, true)],
  ];
  for (const [name, run] of kysely)
    for (const text of await recorded(run)) out.push(`\n${entry(name, text)}`);
  return out.join('');
}

const text = await snapshot();
if (process.argv.includes('--check')) {
  const committed = (() => {
    try {
      return readFileSync(FILE, 'utf8');
    } catch {
      return '';
    }
  })();
  if (committed !== text) {
    const a = committed.split('\n');
    const b = text.split('\n');
    let i = 0;
    while (i < a.length && i < b.length && a[i] === b[i]) i++;
    console.error(
      `${path.relative(root, FILE)} is stale: the SQL changed. Run \`npm run sql:snapshot\` and commit the ` +
        `file, reviewing its diff.\nFirst difference at line ${i + 1}:\n  committed: ${a[i] ?? '(end)'}\n` +
        `  now:       ${b[i] ?? '(end)'}`,
    );
    process.exit(1);
  }
  console.log(`${path.relative(root, FILE)} is up to date`);
} else {
  writeFileSync(FILE, text);
  console.log(`wrote ${path.relative(root, FILE)}`);
}

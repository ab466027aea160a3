import { sql } from 'kysely';
import type { Db, Tx } from '../../db/index.js';
import { inTransaction } from '../../db/index.js';
import { Statement } from '../../db/prepared.js';
import { COUNTERS, DURATIONS } from './figures.js';
import type { ChatState, Deltas, LogEvent } from './rollup.js';

/** Held (for its transaction) by the one node applying a batch; other nodes skip their turn. */
const ROLLUP_LOCK = 0x72707274; // 'rprt'

const ms = (d: Date | null) => (d === null ? null : d.getTime());
const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());

interface StateRow {
  chat_id: string;
  account_id: string;
  status: string;
  queue: string;
  team_id: string;
  user_id: string | null;
  channel_id: string;
  label_ids: string[];
  cycle_started_at: Date | null;
  human_since: Date | null;
  waiting_since: Date | null;
  assigned_at: Date | null;
  first_response_at: Date | null;
  first_response_due_at: Date | null;
  first_response_breached: boolean;
  closed_at: Date | null;
}

const toState = (r: StateRow): ChatState => ({
  chatId: r.chat_id,
  accountId: r.account_id,
  status: r.status,
  queue: r.queue,
  team: r.team_id,
  user: r.user_id,
  channel: r.channel_id,
  labels: r.label_ids,
  cycleStartedAt: ms(r.cycle_started_at),
  humanSince: ms(r.human_since),
  waitingSince: ms(r.waiting_since),
  assignedAt: ms(r.assigned_at),
  firstResponseAt: ms(r.first_response_at),
  firstResponseDueAt: ms(r.first_response_due_at),
  firstResponseBreached: r.first_response_breached,
  closedAt: ms(r.closed_at),
});

const SUMS = [
  ...COUNTERS.map((c) => `${c} = r.${c} + excluded.${c}`),
  'csat = ARRAY(SELECT a + b FROM unnest(r.csat, excluded.csat) AS u(a, b))',
  ...DURATIONS.flatMap((d) => [
    `${d}_n = r.${d}_n + excluded.${d}_n`,
    `${d}_sum = r.${d}_sum + excluded.${d}_sum`,
    `${d}_hist = report_hist_add(r.${d}_hist, excluded.${d}_hist)`,
  ]),
].join(',\n  ');

const COLUMNS = [...COUNTERS, 'csat', ...DURATIONS.flatMap((d) => [`${d}_n`, `${d}_sum`, `${d}_hist`])];
const RECORD = [
  ...COUNTERS.map((c) => `${c} int`),
  'csat int[]',
  ...DURATIONS.flatMap((d) => [`${d}_n int`, `${d}_sum float8`, `${d}_hist jsonb`]),
].join(', ');

// Adds a batch's figures to the rollups: one statement for every row it touches.
const upsertRollups = Statement.prepared<never>(`INSERT INTO report_rollups AS r
  (account_id, span, grain, hour, team_id, user_id, channel_id, label_id, ${COLUMNS.join(', ')})
SELECT x.account_id, x.span, x.grain, x.hour, x.team_id, x.user_id, x.channel_id, x.label_id, ${COLUMNS.map((c) => `x.${c}`).join(', ')}
FROM jsonb_to_recordset($1::jsonb) AS x(account_id text, span smallint, grain smallint, hour timestamptz, team_id text,
  user_id text, channel_id text, label_id text, ${RECORD})
ORDER BY 1, 2, 3, 4, 5, 6, 7, 8
ON CONFLICT (account_id, span, grain, hour, team_id, user_id, channel_id, label_id) DO UPDATE SET
  ${SUMS}`);

const STATE_COLUMNS = [
  'account_id',
  'status',
  'queue',
  'team_id',
  'user_id',
  'channel_id',
  'label_ids',
  'cycle_started_at',
  'human_since',
  'waiting_since',
  'assigned_at',
  'first_response_at',
  'first_response_due_at',
  'first_response_breached',
  'closed_at',
];

const upsertStates =
  Statement.prepared<never>(`INSERT INTO report_chats (chat_id, ${STATE_COLUMNS.join(', ')})
SELECT x.chat_id, ${STATE_COLUMNS.map((c) => `x.${c}`).join(', ')}
FROM jsonb_to_recordset($1::jsonb) AS x(chat_id text, account_id text, status text, queue text, team_id text,
  user_id text, channel_id text, label_ids text[], cycle_started_at timestamptz, human_since timestamptz,
  waiting_since timestamptz, assigned_at timestamptz, first_response_at timestamptz,
  first_response_due_at timestamptz, first_response_breached boolean, closed_at timestamptz)
ORDER BY x.chat_id
ON CONFLICT (chat_id) DO UPDATE SET
  ${STATE_COLUMNS.map((c) => `${c} = excluded.${c}`).join(',\n  ')}`);

/** The consumer's tables: its cursor, the conversations' states, the rollups (migration 059). */
export class RollupRepo {
  constructor(private readonly db: Db) {}

  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return inTransaction(this.db, fn);
  }

  /** Takes the consumer's lock for this transaction; false when another node holds it. */
  async tryLock(tx: Tx): Promise<boolean> {
    const { rows } = await sql<{
      ok: boolean;
    }>`SELECT pg_try_advisory_xact_lock(${ROLLUP_LOCK}) AS ok`.execute(tx);
    return rows[0]?.ok === true;
  }

  async cursor(db: Db | Tx = this.db): Promise<number> {
    const { rows } = await sql<{ seq: string }>`SELECT seq FROM report_cursor`.execute(db);
    return Number(rows[0]?.seq ?? 0);
  }

  async setCursor(tx: Tx, seq: number): Promise<void> {
    await sql`UPDATE report_cursor SET seq = greatest(seq, ${seq}), updated_at = now()`.execute(tx);
  }

  /** The events after `after` up to `upTo` (settled), in seq order, at most `limit`. */
  async events(tx: Tx, after: number, upTo: number, limit: number): Promise<LogEvent[]> {
    const { rows } = await sql<{
      account_id: string;
      seq: string;
      event: string;
      occurred_at: Date;
      data: Record<string, unknown>;
    }>`SELECT account_id, seq, event, occurred_at, data FROM events
       WHERE seq > ${after} AND seq <= ${upTo} ORDER BY seq LIMIT ${limit}`.execute(tx);
    return rows.map((r) => ({
      accountId: r.account_id,
      seq: Number(r.seq),
      event: r.event,
      at: r.occurred_at.getTime(),
      data: r.data,
    }));
  }

  /**
   * The states of these chats: the consumer's own, else made from the chat as it is now (a conversation
   * whose earlier events went before the consumer started, e.g. past the log's retention).
   */
  async states(tx: Tx, chatIds: readonly string[]): Promise<Map<string, ChatState>> {
    const out = new Map<string, ChatState>();
    if (chatIds.length === 0) return out;
    const { rows } =
      await sql<StateRow>`SELECT * FROM report_chats WHERE chat_id = ANY(${chatIds}::text[])`.execute(tx);
    for (const r of rows) out.set(r.chat_id, toState(r));
    const missing = chatIds.filter((id) => !out.has(id));
    if (missing.length === 0) return out;
    const { rows: chats } = await sql<StateRow>`
      SELECT c.id AS chat_id, c.account_id, c.status, c.queue, c.team_id, c.user_id, c.channel_id,
             ARRAY(SELECT l.label_id FROM chat_labels l WHERE l.chat_id = c.id ORDER BY l.label_id) AS label_ids,
             CASE WHEN c.status = 'open' THEN c.created_at END AS cycle_started_at,
             NULL::timestamptz AS human_since, NULL::timestamptz AS waiting_since,
             NULL::timestamptz AS assigned_at, c.first_responded_at AS first_response_at,
             c.first_response_due_at, c.first_response_breached_at IS NOT NULL AS first_response_breached,
             c.closed_at
      FROM chats c WHERE c.id = ANY(${missing}::text[])`.execute(tx);
    for (const r of chats) out.set(r.chat_id, toState(r));
    return out;
  }

  async saveStates(tx: Tx, states: readonly ChatState[]): Promise<void> {
    if (states.length === 0) return;
    const rows = states.map((s) => ({
      chat_id: s.chatId,
      account_id: s.accountId,
      status: s.status,
      queue: s.queue,
      team_id: s.team,
      user_id: s.user,
      channel_id: s.channel,
      label_ids: s.labels,
      cycle_started_at: iso(s.cycleStartedAt),
      human_since: iso(s.humanSince),
      waiting_since: iso(s.waitingSince),
      assigned_at: iso(s.assignedAt),
      first_response_at: iso(s.firstResponseAt),
      first_response_due_at: iso(s.firstResponseDueAt),
      first_response_breached: s.firstResponseBreached,
      closed_at: iso(s.closedAt),
    }));
    await upsertStates.execute(tx, [JSON.stringify(rows)]);
  }

  async addRollups(tx: Tx, deltas: Deltas): Promise<void> {
    if (deltas.rows.size === 0) return;
    const rows = [...deltas.rows.values()].map(({ account, span, grain, hour, key, acc }) => ({
      account_id: account,
      span,
      grain,
      hour: new Date(hour).toISOString(),
      team_id: key.team,
      user_id: key.user,
      channel_id: key.channel,
      label_id: key.labels[0] ?? '',
      ...acc.counters,
      csat: acc.csat,
      ...Object.fromEntries(
        DURATIONS.flatMap((d) => [
          [`${d}_n`, acc.durations[d].n],
          [`${d}_sum`, acc.durations[d].sum],
          [`${d}_hist`, acc.durations[d].hist],
        ]),
      ),
    }));
    await upsertRollups.execute(tx, [JSON.stringify(rows)]);
  }

  /** Forgets conversations closed before `cutoff` (a batch); how many went. */
  async forgetClosed(cutoff: Date, batch: number): Promise<number> {
    const { rows } = await sql<{ n: number }>`
      WITH gone AS (
        DELETE FROM report_chats WHERE chat_id = ANY(ARRAY(
          SELECT chat_id FROM report_chats WHERE closed_at < ${cutoff} LIMIT ${batch}))
        RETURNING 1)
      SELECT count(*)::int AS n FROM gone`.execute(this.db);
    return rows[0]?.n ?? 0;
  }
}

import { ensureRollups } from './seed-rollups.js';
import pg from 'pg';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { API_KEY_SCOPES } from '../src/access/permissions.js';
import { startServer } from '../src/server.js';
import { FIRST_NAMES, RARE, SURNAMES, UNCOMMON, VOCABULARY } from './words.js';

/** What the benchmark database holds; a database seeded with other parameters is seeded again. */
export interface SeedParams {
  chats: number;
  open: number;
  channels: number;
  teams: number;
  agentsPerTeam: number;
  /** Messages, the same number in every chat (a multiple of `chats`). */
  messages: number;
  /** Bumped when the shape of the generated data changes, so an old database is not reused. */
  version: number;
}

export interface Seeded {
  params: SeedParams;
  accountId: string;
  apiKey: string;
  channelIds: string[];
  teamIds: string[];
  /** Agents, `agentsPerTeam` per team, in team order (agents 0..k-1 belong to team 0, …). */
  agentIds: string[];
  /** The chats' labels, each on `permille` of the chats (chosen by a hash of the chat). */
  labels: Array<{ id: string; name: string; permille: number }>;
  /** The customer (and contact) with `HISTORY_CHATS` conversations, all closed, in the search agent's teams. */
  historyCustomerId: string;
  /** The agent who searches (agent 0): a member of `SEARCH_AGENT_TEAMS` teams (0, 1, …). */
  searchAgentEmail: string;
  seededAt: string;
}

/** 2: messages, labels, contact names, a customer with a long history, the search agent's teams. */
export const SEED_VERSION = 2;
/** The search and history rows' agent sees the chats of this many teams (of 10) and those they attend. */
export const SEARCH_AGENT_TEAMS = 3;
/** Conversations of the history row's customer: every HISTORY_STRIDE-th chat (offset 7: closed ones). */
export const HISTORY_CHATS = 200;
/** Labels put on chats, by share of the chats (per mille). */
const LABELS: ReadonlyArray<{ name: string; color: string; permille: number }> = [
  { name: 'Financeiro', color: '#2e7d32', permille: 100 },
  { name: 'Suporte técnico', color: '#1565c0', permille: 80 },
  { name: 'Reclamação', color: '#c62828', permille: 40 },
  { name: 'VIP', color: '#f9a825', permille: 20 },
  { name: 'Urgente', color: '#6a1b9a', permille: 10 },
];
/** Messages' text: two of this many phrases (3–8 words of VOCABULARY each) and maybe a word of UNCOMMON/RARE. */
const PHRASES = 8192;
export const ADMIN_EMAIL = 'bench-admin@example.com';
export const PASSWORD = 'bench-password';

/**
 * Queues of the open chats, by share (out of 100). `Em Atendimento` chats have an attendant from their
 * team; half of the `Observação` ones too. Closed chats are all `Em Atendimento` with an attendant.
 */
const OPEN_QUEUES: ReadonlyArray<[queue: string, upTo: number]> = [
  ['Espera', 35],
  ['Em Atendimento', 75],
  ['Automação', 85],
  ['API', 95],
  ['Observação', 100],
];

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** jsonb does not keep key order, so parameters are compared key by key. */
function sameParams(a: SeedParams, b: SeedParams): boolean {
  const keys = Object.keys(b) as Array<keyof SeedParams>;
  return Object.keys(a).length === keys.length && keys.every((k) => a[k] === b[k]);
}

/** The seed recorded in the benchmark database, if it is complete and has these parameters. */
async function existingSeed(url: string, params: SeedParams): Promise<Seeded | null> {
  try {
    return await withClient(url, async (c) => {
      const table = await c.query(`SELECT to_regclass('bench_seed') IS NOT NULL AS present`);
      if (!table.rows[0]?.present) return null;
      const res = await c.query<{ data: Seeded }>('SELECT data FROM bench_seed WHERE id = 1');
      const data = res.rows[0]?.data;
      if (!data || !sameParams(data.params, params)) return null;
      return data;
    });
  } catch (err) {
    if ((err as { code?: string }).code === '3D000') return null; // the database does not exist yet
    throw err;
  }
}

/**
 * Makes sure the database `name` on the server of `adminUrl` holds the benchmark data set, seeding it
 * when it is missing, incomplete, seeded with other parameters, or `reseed` is asked for.
 */
export async function ensureSeeded(opts: {
  adminUrl: string;
  name: string;
  params: SeedParams;
  reseed: boolean;
  /**
   * Apply the sources' migrations to a reused seed (default). Off when another build is measured
   * (`--main`): its server applies its own, and an A/B run across a migration needs the older schema.
   */
  migrate?: boolean;
  log: (line: string) => void;
}): Promise<{ url: string; seed: Seeded; reused: boolean; seconds: number }> {
  const { adminUrl, name, params, log } = opts;
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`invalid database name ${name}`);
  const url = withDatabase(adminUrl, name);
  const started = Date.now();
  if (!opts.reseed) {
    const seed = await existingSeed(url, params);
    if (seed) {
      // Migrations may have been added since the seed; starting the server applies them.
      if (opts.migrate !== false) await migrate(url);
      // A seed made before reports: its rollups, once (set-based, bench/seed-rollups.ts).
      if (opts.migrate !== false) await withClient(url, (c) => ensureRollups(c, seed.accountId, log));
      return { url, seed, reused: true, seconds: 0 };
    }
  }
  log(
    `seeding database ${name} (${params.chats} chats, ${params.open} open, ${params.messages} messages); ` +
      'this takes a while (see bench/README.md)',
  );
  await withClient(adminUrl, async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.query(`CREATE DATABASE ${name}`);
  });
  const seed = await seedThroughServices(url, params);
  log(`  account, users, teams, channels and key created (${secondsSince(started)} s)`);
  await bulkInsert(url, seed, log);
  await withClient(url, async (c) => {
    await c.query('CREATE TABLE bench_seed (id int PRIMARY KEY, data jsonb NOT NULL)');
    await c.query('INSERT INTO bench_seed (id, data) VALUES (1, $1)', [JSON.stringify(seed)]);
  });
  const seconds = secondsSince(started);
  log(`  seeded in ${seconds} s`);
  return { url, seed, reused: false, seconds };
}

const secondsSince = (t: number) => Math.round((Date.now() - t) / 100) / 10;

export async function startQuiet(url: string) {
  const config = loadConfig({
    DATABASE_URL: url,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'silent',
    ATENDE_ROLES: 'api',
  });
  return startServer(config, pino({ level: 'silent' }));
}

async function migrate(url: string): Promise<void> {
  const server = await startQuiet(url);
  await server.close();
}

/** The account and everything small, through the platform's own services (and its migrations). */
async function seedThroughServices(url: string, params: SeedParams): Promise<Seeded> {
  const server = await startQuiet(url);
  try {
    const { services } = server;
    const created = await services.accounts.createWithAdmin({
      accountName: 'Bench',
      adminName: 'Admin',
      email: ADMIN_EMAIL,
      password: PASSWORD,
    });
    const admin = await services.auth.authenticate(
      (await services.auth.login(ADMIN_EMAIL, PASSWORD)).accessToken,
    );

    const agentIds: string[] = [];
    for (let i = 0; i < params.teams * params.agentsPerTeam; i++) {
      const user = await services.users.create(admin, {
        name: `Agente ${i}`,
        email: `bench-agent-${i}@example.com`,
        password: PASSWORD,
        role: 'agent',
      });
      agentIds.push(user.id);
    }
    // The users list also holds a supervisor, people being onboarded and cancelled users (not listed).
    await services.users.create(admin, {
      name: 'Supervisora',
      email: 'bench-supervisor@example.com',
      password: PASSWORD,
      role: 'supervisor',
    });
    for (let i = 0; i < 2; i++) {
      await services.users.create(admin, {
        name: `Novato ${i}`,
        email: `bench-onboarding-${i}@example.com`,
        password: PASSWORD,
        role: 'agent',
        status: 'onboarding',
      });
      const gone = await services.users.create(admin, {
        name: `Ex-agente ${i}`,
        email: `bench-cancelled-${i}@example.com`,
        password: PASSWORD,
        role: 'agent',
      });
      await services.users.update(admin, gone.id, { status: 'cancelled' });
    }

    const teamIds: string[] = [];
    for (let t = 0; t < params.teams; t++) {
      const members = agentIds.slice(t * params.agentsPerTeam, (t + 1) * params.agentsPerTeam);
      // The search agent (agent 0, of team 0) is also in the next teams: an agent who sees some teams.
      if (t > 0 && t < SEARCH_AGENT_TEAMS) members.push(agentIds[0]!);
      teamIds.push((await services.teams.create(admin, { name: `Equipe ${t}`, members })).id);
    }
    const channelIds: string[] = [];
    for (let ch = 0; ch < params.channels; ch++) {
      const channel = await services.channels.create(admin, {
        name: `Canal ${ch}`,
        provider: 'sandbox',
        defaultTeamId: teamIds[ch % teamIds.length]!,
      });
      channelIds.push(channel.id);
    }
    const key = await services.apiKeys.create(admin, {
      name: 'bench',
      scopes: [...API_KEY_SCOPES],
      channelIds: null,
    });
    const labels: Seeded['labels'] = [];
    for (const l of LABELS) {
      const label = await services.labels.create(admin, { name: l.name, color: l.color });
      labels.push({ id: label.id, name: l.name, permille: l.permille });
    }
    return {
      params,
      accountId: created.accountId,
      apiKey: key.token,
      channelIds,
      teamIds,
      agentIds,
      labels,
      historyCustomerId: contactId(HISTORY_CONTACT),
      searchAgentEmail: 'bench-agent-0@example.com',
      seededAt: new Date().toISOString(),
    };
  } finally {
    await server.close();
  }
}

/** Contact `i`'s id (1-based); chat `i`'s contact, except the history customer's chats. */
const contactId = (i: number) => `c0${i.toString(16).padStart(22, '0')}`;
/** The contact (and customer) whose conversations the history row reads. */
const HISTORY_CONTACT = 7;

/**
 * The contacts, chats, labels and messages, set-based: one contact per chat (but one customer with
 * `HISTORY_CHATS` closed chats), `open` of them open and spread evenly over time, channels, teams and
 * queues (by a hash of the row number, so the spread is the same on every seed), one created every
 * 30 s ending an hour ago. The counter trigger is off during the insert and `chat_counts` is rebuilt
 * from the chats with one GROUP BY, all in one transaction. Messages go in without their secondary
 * indexes, which are built afterwards (faster than kept during ten million inserts).
 */
async function bulkInsert(url: string, seed: Seeded, log: (line: string) => void): Promise<void> {
  const { params } = seed;
  const queueCase = OPEN_QUEUES.map(([q, upTo]) => `WHEN h3 % 100 < ${upTo} THEN '${q}'`).join(' ');
  // The history customer's chats: every stride-th, all closed, on the contact's channel, in the search
  // agent's teams (so the agent sees all of them).
  const stride = Math.floor(params.chats / HISTORY_CHATS);
  const historyOf = `(i % ${stride} = ${HISTORY_CONTACT % stride} AND i <= ${stride * HISTORY_CHATS})`;
  await withClient(url, async (c) => {
    await c.query(`SET synchronous_commit = off`);
    await c.query(`SET maintenance_work_mem = '1GB'`);
    await c.query(`SET work_mem = '512MB'`);
    const indexes = await dropSecondaryIndexes(c, ['contacts', 'chats', 'messages']);
    await c.query('BEGIN');
    await c.query('ALTER TABLE chats DISABLE TRIGGER USER');
    let t = Date.now();
    // Brazilian mobile numbers (55, area code, 9, eight digits: i × 7919 mod 10^8 is one-to-one) and
    // names of a first name and one or two surnames, each a hash of the row number.
    await c.query(
      `INSERT INTO contacts (id, account_id, channel_id, type, value, name, provider_address, created_at, updated_at)
       SELECT 'c0' || lpad(to_hex(i), 22, '0'), $1, ($2::text[])[1 + (hashint4(i) & 2147483647) % $3::int],
              'phone', v, nm, v, ts, ts
         FROM generate_series(1, $4::int) AS i,
              LATERAL (SELECT '55' || (11 + i % 89) || '9' || lpad(((i::int8 * 7919) % 100000000)::text, 8, '0') AS v,
                              ($5::text[])[1 + (hashint4(i # 101) & 2147483647) % cardinality($5::text[])] || ' ' ||
                              ($6::text[])[1 + (hashint4(i # 202) & 2147483647) % cardinality($6::text[])] ||
                              CASE WHEN (hashint4(i # 303) & 2147483647) % 10 < 3
                                   THEN ' ' || ($6::text[])[1 + (hashint4(i # 404) & 2147483647) % cardinality($6::text[])]
                                   ELSE '' END AS nm,
                              now() - interval '1 hour' - ($4::int - i) * interval '30 seconds' AS ts) x`,
      [seed.accountId, seed.channelIds, params.channels, params.chats, FIRST_NAMES, SURNAMES],
    );
    log(`  ${params.chats} contacts inserted (${secondsSince(t)} s)`);
    t = Date.now();
    await c.query(
      `INSERT INTO chats (id, account_id, channel_id, contact_id, team_id, user_id, status, queue,
                          unread_messages, last_message, version, created_at, updated_at, closed_at)
       SELECT 'ba' || lpad(to_hex(i), 22, '0'), $1,
              ($2::text[])[1 + (hashint4(ci) & 2147483647) % $3::int],
              'c0' || lpad(to_hex(ci), 22, '0'),
              ($4::text[])[1 + team],
              CASE WHEN NOT is_open OR queue = 'Em Atendimento' OR (queue = 'Observação' AND h3 % 2 = 0)
                   THEN ($5::text[])[1 + team * $6::int + h3 % $6::int] END,
              CASE WHEN is_open THEN 'open' ELSE 'closed' END,
              queue,
              CASE WHEN is_open THEN h3 % 5 ELSE 0 END,
              jsonb_build_object('id', 'e0' || lpad(to_hex(i), 22, '0'), 'origin', 'contact', 'type', 'text',
                                 'content', 'Olá, preciso de ajuda com o pedido ' || i,
                                 'createdAt', to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
              0, ts, ts, CASE WHEN NOT is_open THEN ts + interval '1 hour' END
         FROM (SELECT i, is_open, h3, ci,
                      CASE WHEN hist THEN (i / ${stride}) % ${SEARCH_AGENT_TEAMS}
                           ELSE (hashint4(i # 1431655765) & 2147483647) % $7::int END AS team,
                      CASE WHEN is_open THEN CASE ${queueCase} END ELSE 'Em Atendimento' END AS queue,
                      now() - interval '1 hour' - ($8::int - i) * interval '30 seconds' AS ts
                 FROM generate_series(1, $8::int) AS i,
                      LATERAL (SELECT ${historyOf} AS hist) hh,
                      LATERAL (SELECT (i::int8 * $9::int) % $8::int < $9::int AND NOT hist AS is_open,
                                      CASE WHEN hist THEN ${HISTORY_CONTACT} ELSE i END AS ci,
                                      (hashint4(i # 715827882) & 2147483647) AS h3) h) g`,
      [
        seed.accountId,
        seed.channelIds,
        params.channels,
        seed.teamIds,
        seed.agentIds,
        params.agentsPerTeam,
        params.teams,
        params.chats,
        params.open,
      ],
    );
    log(`  ${params.chats} chats inserted (${secondsSince(t)} s)`);
    t = Date.now();
    await rebuildCounters(c, seed.accountId);
    await c.query('ALTER TABLE chats ENABLE TRIGGER USER');
    log(`  chat_counts rebuilt (${secondsSince(t)} s)`);
    t = Date.now();
    // Each label on its share of the chats, chosen by a hash of the chat and the label. The rows are
    // consistent by construction, so the foreign-key triggers are skipped (replica role), and with
    // them the one that copies each chat's list position onto its links (migration 064): written here.
    await c.query(`SET LOCAL session_replication_role = replica`);
    await c.query(
      `INSERT INTO chat_labels (chat_id, label_id, account_id, created_at, chat_status, chat_created_at)
       SELECT c.id, l.id, $1, now(), c.status, c.created_at
         FROM generate_series(1, $2::int) AS i
         JOIN chats c ON c.id = 'ba' || lpad(to_hex(i), 22, '0'),
              unnest($3::text[], $4::int[]) WITH ORDINALITY AS l(id, permille, n)
        WHERE (hashint4(i # (n::int * 7919)) & 2147483647) % 1000 < l.permille`,
      [seed.accountId, params.chats, seed.labels.map((l) => l.id), seed.labels.map((l) => l.permille)],
    );
    log(`  chat labels inserted (${secondsSince(t)} s)`);
    await c.query('COMMIT');
    await insertMessages(c, seed, log);
    t = Date.now();
    await buildIndexes(c, url, indexes);
    log(`  indexes built (${secondsSince(t)} s)`);
    t = Date.now();
    // VACUUM sets the visibility map, so the list's id lookups can be index-only, as on a settled table.
    await c.query(
      'VACUUM (ANALYZE) contacts, customers, chats, chat_counts, chat_totals, chat_labels, messages',
    );
    log(`  vacuumed and analyzed (${secondsSince(t)} s)`);
    await ensureRollups(c, seed.accountId, log);
  });
}

/**
 * Drops the indexes of these tables but their primary keys and those backing a constraint, answering
 * their definitions: the bulk inserts then write the tables alone, and each index is built once
 * afterwards (buildIndexes), much faster than maintained through millions of inserts.
 */
async function dropSecondaryIndexes(
  c: pg.Client,
  tables: string[],
): Promise<Array<{ name: string; def: string }>> {
  const { rows } = await c.query<{ name: string; def: string }>(
    `SELECT i.relname AS name, pg_get_indexdef(i.oid) AS def
       FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
      WHERE x.indrelid = ANY($1::text[]::regclass[]) AND NOT x.indisprimary
        AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = x.indexrelid)`,
    [tables],
  );
  for (const ix of rows) await c.query(`DROP INDEX ${ix.name}`);
  return rows;
}

/**
 * Builds the dropped indexes again: the GIN ones (text search, trigrams: the slowest, and a GIN index
 * builds in one process) in a second connection while the B-trees build in this one.
 */
async function buildIndexes(
  c: pg.Client,
  url: string,
  indexes: Array<{ name: string; def: string }>,
): Promise<void> {
  const gin = indexes.filter((ix) => /USING gin/i.test(ix.def));
  const rest = indexes.filter((ix) => !gin.includes(ix));
  const buildGin = withClient(url, async (c2) => {
    await c2.query(`SET maintenance_work_mem = '1GB'`);
    for (const ix of gin) await c2.query(ix.def);
  }).then(
    () => null,
    (err: unknown) => err,
  );
  let failed: unknown = null;
  try {
    for (const ix of rest) await c.query(ix.def);
  } catch (err) {
    failed = err;
  }
  failed ??= await buildGin;
  if (failed) throw failed instanceof Error ? failed : new Error(String(failed));
}

/**
 * `messages / chats` messages in every chat, one every four minutes from the chat's start, the
 * customer's and the attendant's (or the API's, when nobody attends) in turn. Each text is two of
 * `PHRASES` phrases (`bench_phrases`, 3–8 words of VOCABULARY each, drawn with a Zipf-like skew),
 * one message in 500 ends with a word of UNCOMMON and one in 20,000 with a word of RARE (never in a
 * phrase), all by hashes of the message's number. Foreign keys are skipped (replica role), the rows
 * being consistent by construction; the search vector (migration 050) is computed as each row goes in.
 */
async function insertMessages(c: pg.Client, seed: Seeded, log: (line: string) => void): Promise<void> {
  const { params } = seed;
  const per = params.messages / params.chats;
  if (!Number.isInteger(per)) throw new Error('messages must be a multiple of chats');
  const t = Date.now();
  await c.query('DROP TABLE IF EXISTS bench_phrases');
  await c.query(
    `CREATE TABLE bench_phrases AS
     SELECT p AS n, string_agg(w, ' ' ORDER BY k) AS t
       FROM generate_series(0, $3::int - 1) AS p,
            LATERAL generate_series(1, 3 + (hashint4(p # 55) & 2147483647) % 6) AS k,
            LATERAL (SELECT ($1::text[])[1 + floor($2::int * power((hashint4(p * 16 + k) & 2147483647) / 2147483648.0, 2.5))::int] AS w) x
      GROUP BY p`,
    [VOCABULARY, VOCABULARY.length, PHRASES],
  );
  await c.query('CREATE UNIQUE INDEX ON bench_phrases (n)');
  const chunks = 10;
  const size = Math.ceil(params.chats / chunks);
  for (let k = 0; k < chunks; k++) {
    const from = k * size + 1;
    const to = Math.min(params.chats, (k + 1) * size);
    if (from > to) break;
    await c.query('BEGIN');
    await c.query(`SET LOCAL session_replication_role = replica`);
    await c.query(
      `INSERT INTO messages (id, account_id, chat_id, channel_id, origin, type, content, status, user_id,
                             created_at, updated_at)
       SELECT 'm0' || lpad(to_hex(j), 22, '0'), $1, ch.id, ch.channel_id,
              CASE WHEN k % 2 = 0 THEN 'contact' WHEN ch.user_id IS NULL THEN 'api' ELSE 'user' END,
              'text',
              jsonb_build_object('text', p1.t || ' ' || p2.t ||
                CASE WHEN hx % 20000 = 0 THEN ' ' || ($5::text[])[1 + (hx / 20000) % cardinality($5::text[])]
                     WHEN hx % 500 = 1 THEN ' ' || ($6::text[])[1 + (hx / 500) % cardinality($6::text[])]
                     ELSE '' END),
              CASE WHEN k % 2 = 0 THEN 'received' ELSE 'read' END,
              CASE WHEN k % 2 = 1 THEN ch.user_id END,
              ch.created_at + k * interval '4 minutes', ch.created_at + k * interval '4 minutes'
         FROM generate_series($2::int, $3::int) AS i
         JOIN chats ch ON ch.id = 'ba' || lpad(to_hex(i), 22, '0')
        CROSS JOIN generate_series(0, $4::int - 1) AS k
        CROSS JOIN LATERAL (SELECT (i - 1)::int8 * $4::int + k + 1 AS j) jj
        CROSS JOIN LATERAL (SELECT hashint8(j) & 2147483647 AS h1, hashint8(j # 1234567) & 2147483647 AS h2,
                                   hashint8(j # 7654321) & 2147483647 AS hx) hh
         JOIN bench_phrases p1 ON p1.n = h1 % $7::int
         JOIN bench_phrases p2 ON p2.n = h2 % $7::int`,
      [seed.accountId, from, to, per, RARE, UNCOMMON, PHRASES],
    );
    await c.query('COMMIT');
    log(`  messages of chats ${from}–${to} inserted (${secondsSince(t)} s)`);
  }
  await c.query('DROP TABLE bench_phrases');
}

/** Every counter (the sum of its slots) of both tables equals the count of its chats (none missing or stale). */
export async function countsExact(url: string, accountId: string): Promise<boolean> {
  return withClient(url, async (c) => {
    const res = await c.query<{ bad: number }>(
      `SELECT (SELECT count(*) FROM
         (SELECT status, channel_id, team_id, queue, coalesce(user_id, '') AS user_id, count(*) AS n
            FROM chats WHERE account_id = $1 GROUP BY 1, 2, 3, 4, 5) a
         FULL JOIN (SELECT status, channel_id, team_id, queue, user_id, sum(n) AS n FROM chat_counts
                     WHERE account_id = $1 GROUP BY 1, 2, 3, 4, 5 HAVING sum(n) <> 0) b
           USING (status, channel_id, team_id, queue, user_id)
        WHERE a.n IS DISTINCT FROM b.n)
       + (SELECT count(*) FROM
         (SELECT status, d.dim, d.value, queue, count(*) AS n
            FROM chats,
                 LATERAL (VALUES ('channel', channel_id), ('team', team_id), ('user', coalesce(user_id, '')))
                   AS d(dim, value)
           WHERE account_id = $1 GROUP BY 1, 2, 3, 4
          UNION ALL
          SELECT c.status, 'label', l.label_id, c.queue, count(*)
            FROM chat_labels l JOIN chats c ON c.id = l.chat_id
           WHERE c.account_id = $1 GROUP BY 1, 3, 4) a
         FULL JOIN (SELECT status, dim, value, queue, sum(n) AS n FROM chat_totals
                     WHERE account_id = $1 GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0) b
           USING (status, dim, value, queue)
        WHERE a.n IS DISTINCT FROM b.n)::int AS bad`,
      [accountId],
    );
    return res.rows[0]?.bad === 0;
  });
}

/** The exact number of chats a list filter matches, counted the slow way, to check the API's `total`. */
export async function exactTotal(
  url: string,
  accountId: string,
  f: { channelId?: string; queue?: string; teamId?: string; userId?: string },
): Promise<number> {
  // The contract leaves `Observação` out of the Channel API list, even when a client names it.
  if (f.queue === 'Observação') return 0;
  return withClient(url, async (c) => {
    const where = [`account_id = $1`, `status = 'open'`];
    const args: string[] = [accountId];
    const add = (col: string, v: string | undefined, op = '=') => {
      if (v === undefined) return;
      args.push(v);
      where.push(`${col} ${op} $${args.length}`);
    };
    if (f.queue !== undefined) add('queue', f.queue);
    else add('queue', 'Observação', '<>');
    add('channel_id', f.channelId);
    add('team_id', f.teamId);
    add('user_id', f.userId);
    const res = await c.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM chats WHERE ${where.join(' AND ')}`,
      args,
    );
    return res.rows[0]?.n ?? -1;
  });
}

/** The open chats, `Observação` left out, carrying a label: the Channel API's `?label=` total, counted. */
export async function exactLabelTotal(url: string, accountId: string, labelId: string): Promise<number> {
  return withClient(url, async (c) => {
    const res = await c.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM chats c JOIN chat_labels cl ON cl.chat_id = c.id AND cl.label_id = $2
        WHERE c.account_id = $1 AND c.status = 'open' AND c.queue <> 'Observação'`,
      [accountId, labelId],
    );
    return res.rows[0]?.n ?? -1;
  });
}

/**
 * The newest messages an agent's search for `q` should answer, as one statement over every message
 * (no periods, no choice between walking and the index: docs/adr/0101-message-search-by-period.md
 * changes how a search reads, never what it answers).
 */
export async function referenceMessageSearch(
  url: string,
  accountId: string,
  agentEmail: string,
  q: string,
  limit: number,
): Promise<string[]> {
  return withClient(url, async (c) => {
    const res = await c.query<{ id: string }>(
      `SELECT m.id FROM messages m JOIN chats c ON c.id = m.chat_id
        WHERE m.account_id = $1 AND c.account_id = $1
          AND m.search_vector @@ websearch_to_tsquery('pg_catalog.portuguese', search_words($3))
          AND (c.user_id = (SELECT id FROM users WHERE email = $2)
               OR c.team_id IN (SELECT tm.team_id FROM team_members tm JOIN users u ON u.id = tm.user_id
                                WHERE u.email = $2))
        ORDER BY m.created_at DESC, m.id DESC LIMIT $4`,
      [accountId, agentEmail, q, limit],
    );
    return res.rows.map((r) => r.id);
  });
}

/**
 * Transfers change chats; the benchmark keeps the data set the same from run to run by saving the
 * transferred chats first and putting them back afterwards (through the counter trigger, so
 * `chat_counts` follows), then vacuuming. A run that died mid-way is repaired by the next one.
 */
export async function saveTransferPool(url: string, accountId: string, size: number): Promise<string[]> {
  return withClient(url, async (c) => {
    await restoreTransferPoolWith(c);
    await c.query(
      `CREATE TABLE bench_transfer_backup AS
         SELECT id, team_id, user_id, queue, version, updated_at FROM chats
          WHERE account_id = $1 AND status = 'open' AND queue <> 'Observação'
          ORDER BY created_at DESC, id DESC LIMIT $2`,
      [accountId, size],
    );
    const res = await c.query<{ id: string }>('SELECT id FROM bench_transfer_backup ORDER BY id');
    return res.rows.map((r) => r.id);
  });
}

export async function restoreTransferPool(url: string): Promise<void> {
  await withClient(url, (c) => restoreTransferPoolWith(c));
}

async function restoreTransferPoolWith(c: pg.Client): Promise<void> {
  const table = await c.query(`SELECT to_regclass('bench_transfer_backup') IS NOT NULL AS present`);
  if (!table.rows[0]?.present) return;
  await c.query('BEGIN');
  await c.query(
    `UPDATE chats c SET team_id = b.team_id, user_id = b.user_id, queue = b.queue, version = b.version,
            updated_at = b.updated_at
       FROM bench_transfer_backup b
      WHERE c.id = b.id
        AND (c.team_id, c.user_id, c.queue, c.version) IS DISTINCT FROM (b.team_id, b.user_id, b.queue, b.version)`,
  );
  await c.query('DELETE FROM chat_transfers WHERE chat_id IN (SELECT id FROM bench_transfer_backup)');
  await c.query('DROP TABLE bench_transfer_backup');
  await c.query('COMMIT');
  await c.query('VACUUM (ANALYZE) chats, chat_counts, chat_transfers');
}

/** The account's list counters (`chat_counts`, `chat_totals`) counted again from its chats, one row per total. */
async function rebuildCounters(c: pg.Client, accountId: string): Promise<void> {
  await c.query('DELETE FROM chat_counts WHERE account_id = $1', [accountId]);
  await c.query(
    `INSERT INTO chat_counts (account_id, status, channel_id, team_id, queue, user_id, n)
     SELECT account_id, status, channel_id, team_id, queue, coalesce(user_id, ''), count(*)
       FROM chats WHERE account_id = $1 GROUP BY 1, 2, 3, 4, 5, 6`,
    [accountId],
  );
  await c.query('DELETE FROM chat_totals WHERE account_id = $1', [accountId]);
  await c.query(
    `INSERT INTO chat_totals (account_id, status, dim, value, queue, n)
     SELECT account_id, status, d.dim, d.value, queue, count(*)
       FROM chats,
            LATERAL (VALUES ('channel', channel_id), ('team', team_id), ('user', coalesce(user_id, '')))
              AS d(dim, value)
      WHERE account_id = $1
      GROUP BY 1, 2, 3, 4, 5
     UNION ALL
     SELECT c.account_id, c.status, 'label', l.label_id, c.queue, count(*)
       FROM chat_labels l JOIN chats c ON c.id = l.chat_id
      WHERE c.account_id = $1
      GROUP BY 1, 2, 4, 5`,
    [accountId],
  );
}

/**
 * The counters as the seed left them: one row per combination that counts chats, rebuilt from the
 * chats and compacted. Transfers leave counter slots and zero rows behind (folded by the platform's
 * housekeeping, which the benchmark's api-only server does not run) and, with autovacuum off on this
 * machine, a table many times its size: list totals would read more from run to run.
 */
export async function compactCounts(url: string, accountId: string): Promise<void> {
  await withClient(url, async (c) => {
    await c.query('BEGIN');
    await c.query('LOCK TABLE chat_counts, chat_totals IN EXCLUSIVE MODE');
    await rebuildCounters(c, accountId);
    await c.query('COMMIT');
    await c.query('VACUUM (FULL, ANALYZE) chat_counts, chat_totals');
  });
}

/** The backends connected to the database (the server's pool), but not this query's own. */
export async function backendPids(url: string): Promise<number[]> {
  return withClient(url, async (c) => {
    const res = await c.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND backend_type = 'client backend'`,
    );
    return res.rows.map((r) => r.pid);
  });
}

/** Server facts worth recording next to the numbers. */
export async function serverFacts(url: string): Promise<Record<string, string>> {
  return withClient(url, async (c) => {
    const out: Record<string, string> = {};
    out.version = (await c.query<{ v: string }>('SELECT version() AS v')).rows[0]?.v ?? '';
    for (const s of ['shared_buffers', 'max_connections', 'work_mem', 'synchronous_commit']) {
      out[s] = (await c.query<{ v: string }>(`SELECT current_setting('${s}') AS v`)).rows[0]?.v ?? '';
    }
    return out;
  });
}

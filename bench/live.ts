import { PASSWORD, startQuiet, withClient } from './seed.js';

/**
 * A second, small account for the rows that add data: the send pipeline's rows (requests, messages,
 * chats, events, jobs) and the gateway's fan-out (a new conversation per event). Created through the
 * platform's services at the start of a run and deleted (with everything it accumulated) at the end,
 * so the seeded 1,000,000-chat account the list rows read stays exactly as seeded and every run
 * starts from the same state.
 */
export interface LiveAccount {
  accountId: string;
  adminEmail: string;
  teamId: string;
  /** Members of the team, the users of the fan-out row's sockets. */
  agentEmails: string[];
  sandboxChannelId: string;
  whatsappChannelId: string;
  /** The WhatsApp channel's key (`x-channel-api-key`). */
  channelKey: string;
}

const ADMIN_EMAIL = 'bench-live-admin@example.com';
const AGENTS = 2;
/** The Graph access token of the benchmark's WhatsApp channel; the fake Graph API checks it. */
export const GRAPH_TOKEN = 'bench-graph-token';
export const PHONE_NUMBER_ID = '100000000000001';

/**
 * Deletes the live account of an earlier run (one that died before its clean-up) and the jobs its
 * requests left, then creates a fresh one.
 */
export async function createLiveAccount(url: string): Promise<LiveAccount> {
  await dropLiveAccount(url);
  const server = await startQuiet(url);
  try {
    const { services } = server;
    const created = await services.accounts.createWithAdmin({
      accountName: 'Bench live',
      adminName: 'Admin',
      email: ADMIN_EMAIL,
      password: PASSWORD,
    });
    const admin = await services.auth.authenticate(
      (await services.auth.login(ADMIN_EMAIL, PASSWORD)).accessToken,
    );
    const agentEmails: string[] = [];
    const agentIds: string[] = [];
    for (let i = 0; i < AGENTS; i++) {
      const email = `bench-live-agent-${i}@example.com`;
      const user = await services.users.create(admin, {
        name: `Agente ao vivo ${i}`,
        email,
        password: PASSWORD,
        role: 'agent',
      });
      agentEmails.push(email);
      agentIds.push(user.id);
    }
    const team = await services.teams.create(admin, { name: 'Equipe ao vivo', members: agentIds });
    const sandbox = await services.channels.create(admin, {
      name: 'Sandbox ao vivo',
      provider: 'sandbox',
      defaultTeamId: team.id,
    });
    const whatsapp = await services.channels.create(admin, {
      name: 'WhatsApp ao vivo',
      provider: 'whatsapp-cloud',
      defaultTeamId: team.id,
      apiEnabled: true,
      providerConfig: {
        phoneNumberId: PHONE_NUMBER_ID,
        accessToken: GRAPH_TOKEN,
        appSecret: 'bench-app-secret',
        verifyToken: 'bench-verify-token',
      },
    });
    const { apiKey } = await services.channels.rotateApiKey(admin, whatsapp.id);
    return {
      accountId: created.accountId,
      adminEmail: ADMIN_EMAIL,
      teamId: team.id,
      agentEmails,
      sandboxChannelId: sandbox.id,
      whatsappChannelId: whatsapp.id,
      channelKey: apiKey,
    };
  } finally {
    await server.close();
  }
}

/**
 * The live account and everything in it (its rows cascade from the account, webhook deliveries
 * included), and the send queue: only the live account queues sends in the benchmark database.
 *
 * Every deleted contact makes PostgreSQL check that no chat still names it, and no index of `chats`
 * starts with `contact_id`: each check read the 1,000,000-chat table, ~3 minutes for the ~500
 * contacts of a run. An index built for the delete and dropped in the same transaction makes them
 * lookups (~2 s in all); no other session ever sees it, so the schema measured stays the migrations'.
 * Deleted users are checked the same way against chats and messages, by author: the auto-assign row's
 * 200 agents took minutes without the two indexes built here, seconds with them.
 */
export async function dropLiveAccount(url: string): Promise<void> {
  await withClient(url, async (c) => {
    const victims = `SELECT account_id FROM users WHERE email = $1 OR email LIKE 'bench-live-agent-%'`;
    const found = await c.query(`SELECT 1 FROM accounts WHERE id IN (${victims})`, [ADMIN_EMAIL]);
    if (found.rows.length > 0) {
      await c.query('BEGIN');
      try {
        await c.query('CREATE INDEX bench_drop_chats_contact ON chats (contact_id)');
        await c.query('CREATE INDEX bench_drop_chats_user ON chats (user_id) WHERE user_id IS NOT NULL');
        await c.query(
          'CREATE INDEX bench_drop_messages_user ON messages (user_id) WHERE user_id IS NOT NULL',
        );
        await c.query(`DELETE FROM accounts WHERE id IN (${victims})`, [ADMIN_EMAIL]);
        await c.query('DROP INDEX bench_drop_chats_contact, bench_drop_chats_user, bench_drop_messages_user');
        await c.query('COMMIT');
      } catch (err) {
        await c.query('ROLLBACK');
        throw err;
      }
    }
    const sends = await c.query(`SELECT to_regclass('send_jobs') IS NOT NULL AS present`);
    if (sends.rows[0]?.present) await c.query('TRUNCATE send_jobs, send_lanes');
    // What autovacuum (off on the benchmark machine) does on an installation long before the next
    // burst: without it every run's deleted rows stay in the heaps and indexes the next run writes to,
    // and each run measures a little slower than the one before.
    const live = [
      'request_logs',
      'messages',
      'contacts',
      'chats',
      'events',
      'webhook_deliveries',
      'inbound_webhook_events',
      // The job table (partitioned by queue: each partition is vacuumed), whose completed jobs' dead
      // entries every fetch of a queue walks.
      'atende_jobs.job',
    ];
    const present = await c.query<{ name: string }>(
      'SELECT t AS name FROM unnest($1::text[]) AS t WHERE to_regclass(t) IS NOT NULL',
      [live],
    );
    if (present.rows.length > 0) await c.query(`VACUUM ${present.rows.map((r) => r.name).join(', ')}`);
  });
}

/**
 * Statistics for the tables the live rows fill. Autovacuum is off on the benchmark machine's
 * PostgreSQL, so without this the planner keeps believing the job table is empty and picks
 * nested-loop plans whose cost grows with the square of the backlog; an installation's autovacuum
 * analyzes them within about a minute of a burst. Run where that minute would have passed.
 */
export async function analyzeLiveTables(url: string): Promise<void> {
  await withClient(url, (c) =>
    c.query(
      'ANALYZE atende_jobs.job, send_jobs, send_lanes, request_logs, messages, contacts, events, webhook_deliveries, message_status_events',
    ),
  );
}

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';

// Two nodes (each with the worker role, so each assigns) on one PostgreSQL and one Redis, and 200
// conversations arriving at once through both: no conversation is given twice, no agent gets more
// than their maximum, and every one of them that fits is given. Needs REDIS_URL.

const REDIS_URL = process.env.REDIS_URL;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const AGENTS = 12;
const MAX = 15; // 12 × 15 = 180 places for 200 conversations: capacity binds
const CHATS = 200;

describe(
  'automatic assignment on two nodes',
  { skip: REDIS_URL ? false : 'needs REDIS_URL', timeout: 120_000 },
  () => {
    let a: TestApp;
    let b: TestApp;
    let f: Fixture;
    let db: pg.Pool;

    before(async () => {
      const env = { REDIS_URL: REDIS_URL! };
      a = await startTestApp({ env });
      b = await startTestApp({ env, databaseUrl: a.databaseUrl });
      f = await seedAccount(a.server.services, { agents: AGENTS });
      db = new pg.Pool({ connectionString: a.databaseUrl, max: 4 });
      const team = f.teams[0]!.id;
      const members = await a.request('PATCH', `/api/teams/${team}`, {
        headers: bearer(f.adminToken),
        body: { members: f.agents.map((x) => x.id) },
      });
      assert.equal(members.status, 200);
      for (const agent of f.agents) {
        const res = await b.request('PUT', '/api/me/availability', {
          headers: bearer(agent.token),
          body: { availability: 'online' },
        });
        assert.equal(res.status, 200);
      }
      const res = await a.request('PUT', `/api/teams/${team}/assignment`, {
        headers: bearer(f.adminToken),
        body: { mode: 'capacity', maxOpen: MAX },
      });
      assert.equal(res.status, 200);
    });
    after(async () => {
      await db?.end();
      await b?.close();
      await a?.close();
    });

    const open = async () =>
      (
        await db.query<{ user_id: string | null; n: number }>(
          `SELECT user_id, count(*)::int AS n FROM chats WHERE account_id = $1 AND status = 'open' GROUP BY user_id`,
          [f.accountId],
        )
      ).rows;
    /** Every round either node could make has been made: each takes the account's lock in turn. */
    const settle = async () => {
      await a.server.services.assignment.assignAccount(f.accountId);
      await b.server.services.assignment.assignAccount(f.accountId);
    };

    it('200 conversations at once: none assigned twice, none past capacity, every place filled', async () => {
      const results = await Promise.all(
        Array.from({ length: CHATS }, (_, i) =>
          (i % 2 ? a : b).request('POST', `/api/sandbox/channels/${f.channels[0]!.id}/inbound`, {
            headers: bearer(f.adminToken),
            body: { from: `55119660${String(i).padStart(5, '0')}`, text: 'Oi' },
          }),
        ),
      );
      assert.deepEqual(
        results.filter((r) => r.status !== 201).map((r) => [r.status, r.body]),
        [],
      );
      // Wait until every place is taken (the workers' doing; the check is the count, not a time).
      for (let round = 0; ; round++) {
        const rows = await open();
        const given = rows.filter((r) => r.user_id !== null).reduce((n, r) => n + r.n, 0);
        if (given === AGENTS * MAX) break;
        assert.ok(round < 500, `only ${given} given`);
        await new Promise((r) => setTimeout(r, 50));
      }
      await settle();
      const rows = await open();
      for (const r of rows) if (r.user_id !== null) assert.equal(r.n, MAX, `agent ${r.user_id} has ${r.n}`);
      assert.equal(rows.find((r) => r.user_id === null)?.n, CHATS - AGENTS * MAX);

      // Each conversation captured once in the log, and by both nodes together.
      const captures = await db.query<{ chat: string; n: number }>(
        `SELECT data #>> '{chat,id}' AS chat, count(*)::int AS n FROM events
       WHERE account_id = $1 AND event = 'chat.capture' GROUP BY 1`,
        [f.accountId],
      );
      assert.equal(captures.rows.length, AGENTS * MAX);
      assert.ok(captures.rows.every((r) => r.n === 1));
    });

    it('capacity freed on either node is filled once, never past the maximum', async () => {
      const { rows } = await db.query<{ id: string; user_id: string; token: string }>(
        `SELECT DISTINCT ON (user_id) id, user_id FROM chats
       WHERE account_id = $1 AND status = 'open' AND user_id IS NOT NULL ORDER BY user_id, created_at`,
        [f.accountId],
      );
      // Every agent closes one conversation, half through each node, at once.
      const token = new Map(f.agents.map((x) => [x.id, x.token]));
      const closes = await Promise.all(
        rows.map((r, i) =>
          (i % 2 ? a : b).request('POST', `/api/chats/${r.id}/close`, {
            headers: bearer(token.get(r.user_id)!),
          }),
        ),
      );
      assert.ok(closes.every((c) => c.status === 200));
      for (let round = 0; ; round++) {
        const waiting = (await open()).find((r) => r.user_id === null)?.n ?? 0;
        if (waiting === CHATS - AGENTS * MAX - AGENTS) break;
        assert.ok(round < 500, `${waiting} still waiting`);
        await new Promise((r) => setTimeout(r, 50));
      }
      await settle();
      for (const r of await open()) if (r.user_id !== null) assert.equal(r.n, MAX);
    });
  },
);

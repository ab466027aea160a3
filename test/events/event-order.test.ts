import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { connect, type GatewayClient } from '../helpers/gateway.js';

// Event writers of one account run side by side, and the log reads as one order: a reader of
// `GET /api/events?after=` polling while they write never misses an event nor sees one out of order,
// and each chat's events keep the order of its changes. Seqs come from one sequence, so a smaller seq
// can commit after a larger one: readers stop before a seq still being written (src/events/horizon.ts).

type Envelope = { seq: number; id: string; event: string; data: Record<string, unknown> };

let phoneSeq = 0;
const phone = () => `5511977${String(++phoneSeq).padStart(6, '0')}`;

describe('event order with concurrent writers', () => {
  let t: TestApp;
  let f: Fixture;

  before(async () => {
    t = await startTestApp();
    f = await seedAccount(t.server.services);
  });
  after(async () => {
    await t?.close();
  });

  const page = async (afterSeq: number) => {
    const res = await t.request('GET', `/api/events?after=${afterSeq}&limit=500`, {
      headers: { authorization: `Bearer ${f.adminToken}` },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.json as { events: Envelope[]; nextAfter: number; hasMore: boolean };
  };
  /** Everything after `from`, to the end of the log. */
  const readAll = async (from: number) => {
    const out: Envelope[] = [];
    let at = from;
    for (;;) {
      const p = await page(at);
      out.push(...p.events);
      at = p.nextAfter;
      if (!p.hasMore) return { events: out, at };
    }
  };
  const transferToTeam = (chatId: string, teamId: string) =>
    t.request('POST', `/channel-api/chats/${chatId}/transfer/team`, {
      headers: f.authHeader(),
      body: { teamId },
    });

  it('concurrent transfers: a reader polling ?after= misses nothing, seqs increase, each chat keeps its order', async () => {
    const CHATS = 8;
    const ROUNDS = 6;
    const chatIds = await Promise.all(Array.from({ length: CHATS }, (_, i) => f.inbound(i % 2, phone())));
    const start = (await readAll(0)).at;
    const teams = [f.teams[1]!.id, f.teams[0]!.id];
    let writing = true;
    const writers = Promise.all(
      chatIds.map(async (chatId) => {
        for (let r = 0; r < ROUNDS; r++) {
          const res = await transferToTeam(chatId, teams[r % 2]!);
          assert.equal(res.status, 200, JSON.stringify(res.body));
        }
      }),
    ).finally(() => (writing = false));
    // The reader moves its cursor as a console resyncing would, while the transfers run.
    const polled: Envelope[] = [];
    let at = start;
    const reader = (async () => {
      for (let done = false; !done;) {
        done = !writing;
        for (;;) {
          const p = await page(at);
          polled.push(...p.events);
          at = p.nextAfter;
          if (!p.hasMore) break;
        }
      }
    })();
    await writers;
    await reader;

    const seqs = polled.map((e) => e.seq);
    assert.equal(seqs.length, CHATS * ROUNDS, 'every transfer seen once');
    assert.ok(
      seqs.every((seq, i) => i === 0 || seq > seqs[i - 1]!),
      `seqs seen in increasing order: ${seqs.join(',')}`,
    );
    // Nothing the reader moved past shows up later.
    assert.deepEqual(
      (await readAll(start)).events.map((e) => e.id),
      polled.map((e) => e.id),
    );
    for (const chatId of chatIds) {
      const mine = polled.filter((e) => (e.data.chat as { id: string }).id === chatId);
      assert.deepEqual(
        mine.map((e) => (e.data.to as { teamId: string }).teamId),
        Array.from({ length: ROUNDS }, (_, r) => teams[r % 2]),
        `chat ${chatId}: its transfers in the order made`,
      );
    }
  });

  /**
   * A writer that has taken its seq and not committed, as any change is between its events statement
   * and its commit: here a transaction on a connection of the test's own, writing a notification event
   * for the admin with the column's default seq (the same registration every writer makes).
   */
  const openWriter = async () => {
    const client = new pg.Client({ connectionString: t.databaseUrl });
    await client.connect();
    await client.query('BEGIN');
    const { rows } = await client.query<{ seq: string; id: string }>(
      `INSERT INTO events (account_id, id, event, schema_version, occurred_at, rooms, audience, data)
       VALUES ($1, gen_random_uuid(), 'notification.new', 1, now(), $2, $2, '{"notification": {}}')
       RETURNING seq, id`,
      [f.accountId, [`user:${f.admin.userId}`]],
    );
    return { client, seq: Number(rows[0]!.seq), id: rows[0]!.id };
  };

  it('a seq still being written holds readers back: what committed after it waits, then both come in seq order', async () => {
    const start = (await readAll(0)).at;
    const chatId = await f.inbound(0, phone());
    const socket: GatewayClient = await connect(t.gatewayUrl!, { token: f.adminToken });
    try {
      await socket.ack('user_logged_in', f.admin.userId);
      await socket.ack('user_join_team', [f.teams[0]!.id, f.teams[1]!.id]);
      await t.server.gateway!.tail.settled();
      const slow = await openWriter();
      try {
        // A change that commits while the smaller seq is still being written.
        const res = await transferToTeam(chatId, f.teams[1]!.id);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        const later = (await readAll(start)).events;
        assert.ok(
          later.every((e) => e.seq < slow.seq),
          `nothing past seq ${slow.seq} is read while it is written: ${later.map((e) => e.seq).join(',')}`,
        );
        await socket.barrier();
        assert.ok(
          socket.events().every((e) => (e.seq as number) < slow.seq),
          'nor sent to sockets',
        );
        await slow.client.query('COMMIT');
      } finally {
        await slow.client.end();
      }
      const all = (await readAll(start)).events;
      const transfer = all.find((e) => e.event === 'chat.transfer');
      assert.ok(transfer && transfer.seq > slow.seq, 'the transfer took a later seq');
      const seqs = all.map((e) => e.seq);
      assert.ok(seqs.includes(slow.seq), 'the late commit is read');
      assert.deepEqual(
        seqs,
        [...seqs].sort((a, b) => a - b),
        'in seq order',
      );
      // The gateway sends both, the smaller seq first.
      await socket.next('chat.transfer');
      const sent = socket.events().map((e) => e.seq as number);
      assert.ok(
        sent.indexOf(slow.seq) >= 0 && sent.indexOf(slow.seq) < sent.indexOf(transfer.seq),
        `sent: ${sent.join(',')}`,
      );
    } finally {
      socket.close();
    }
  });

  it('a seq whose transaction rolls back holds nobody back once it has ended', async () => {
    const start = (await readAll(0)).at;
    const chatId = await f.inbound(1, phone());
    const gone = await openWriter();
    const res = await transferToTeam(chatId, f.teams[0]!.id);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await gone.client.query('ROLLBACK');
    await gone.client.end();
    const events = (await readAll(start)).events;
    assert.ok(
      events.some((e) => e.event === 'chat.transfer'),
      'the transfer is read',
    );
    assert.ok(!events.some((e) => e.seq === gone.seq), 'the rolled-back seq never appears');
  });
});

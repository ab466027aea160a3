import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from './helpers/app.js';
import { seedAccount, type Fixture } from './helpers/fixtures.js';

// Event writers of one account run side by side, and the log reads as one order: a reader of
// `GET /api/events?after=` polling while they write never misses an event nor sees one out of order,
// and each chat's events keep the order of its changes.

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

  it('concurrent transfers: a reader polling ?after= misses nothing, seqs follow each other, each chat keeps its order', async () => {
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
    assert.deepEqual(
      seqs,
      Array.from({ length: CHATS * ROUNDS }, (_, i) => start + 1 + i),
      'seqs seen in order, each once',
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
});

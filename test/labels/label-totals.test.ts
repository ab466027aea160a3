import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { countersOff } from '../helpers/counters.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { startTestServices, type TestServices } from '../helpers/services.js';

// A label's list total comes from the counters (migration 051): every way a chat's labels, status or
// queue change, and a chat or label deleted, leaves `chat_totals`' label totals equal to counting the
// chats, and a list filtered by a label alone reads that total without counting.

let phoneSeq = 0;
const phone = () => `5511933${String(++phoneSeq).padStart(6, '0')}`;

describe('label totals', () => {
  let s: TestServices;
  let f: Fixture;

  before(async () => {
    s = await startTestServices();
    f = await seedAccount(s.services);
  });
  after(async () => {
    await s?.close();
  });

  const total = async (query: Record<string, string>) =>
    (await s.services.chats.listForUser(f.admin, query)).total;
  /** The label's totals as the counters keep them, by list status. */
  const kept = async (labelId: string) => {
    const { rows } = await sql<{ status: string; n: string }>`
      SELECT status, sum(n) AS n FROM chat_totals WHERE dim = 'label' AND value = ${labelId}
      GROUP BY status HAVING sum(n) <> 0 ORDER BY status`.execute(s.db);
    return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
  };

  it('follows labels put and taken off, transfers, snooze, close and reopen, and deletions', async () => {
    const vip = await s.services.labels.create(f.admin, { name: 'VIP totals', color: '#aa0000' });
    const late = await s.services.labels.create(f.admin, { name: 'Atrasado totals', color: '#00aa00' });
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(await f.inbound(i % 2, phone(), 'Oi'));

    const put = await s.services.bulk.apply(f.admin, ids.slice(0, 8), {
      type: 'label',
      add: [vip.id, late.id],
    });
    assert.ok(put.every((r) => r.ok));
    await s.services.labels.addToChat(f.admin, ids[8]!, vip.id);
    assert.deepEqual(await kept(vip.id), { open: 9 });
    assert.equal(await total({ label: vip.id }), 9);
    assert.equal(await countersOff(s.db, f.accountId), 0);

    // Moves that change the list status or queue, and one that changes neither (a message).
    await s.services.chatMoves.transferToUser(f.admin, ids[0]!, { userId: f.agents[0]!.id });
    await s.services.chatMoves.transferToTeam(f.admin, ids[1]!, { teamId: f.teams[1]!.id });
    await s.services.chatSnooze.snooze(f.admin, ids[2]!, { untilCustomerMessage: true });
    await s.services.chatMoves.close(f.admin, ids[3]!);
    await s.services.chatMoves.close(f.admin, ids[4]!);
    await s.services.chatMoves.reopen(f.admin, ids[4]!);
    await f.inbound(0, (await s.services.chats.getForUser(f.admin, ids[5]!)).contact.value, 'De novo');
    assert.equal(await countersOff(s.db, f.accountId), 0);
    assert.deepEqual(await kept(vip.id), { closed: 1, open: 7, snoozed: 1 });
    assert.equal(await total({ label: vip.id }), 7);
    assert.equal(await total({ label: vip.id, status: 'closed' }), 1);

    // Taken off one at a time and in bulk.
    await s.services.labels.removeFromChat(f.admin, ids[8]!, vip.id);
    const off = await s.services.bulk.apply(f.admin, ids.slice(5, 8), { type: 'label', remove: [late.id] });
    assert.ok(off.every((r) => r.ok));
    assert.equal(await countersOff(s.db, f.accountId), 0);
    assert.equal(await total({ label: late.id }), 3);

    // A chat deleted takes its labels' counts with it; a label deleted takes its totals.
    await sql`DELETE FROM chats WHERE id = ${ids[6]!}`.execute(s.db);
    assert.equal(await countersOff(s.db, f.accountId), 0);
    assert.deepEqual(await kept(vip.id), { closed: 1, open: 5, snoozed: 1 });
    await s.services.labels.delete(f.admin, late.id);
    assert.deepEqual(await kept(late.id), {});
    assert.equal(await countersOff(s.db, f.accountId), 0);
  });

  it('a list filtered by a label alone reads its total from the counters, combined it counts', async () => {
    const label = await s.services.labels.create(f.admin, { name: 'Só contadores', color: '#0000aa' });
    const ids = [await f.inbound(0, phone(), 'Oi'), await f.inbound(1, phone(), 'Oi')];
    for (const id of ids) await s.services.labels.addToChat(f.admin, id, label.id);
    // Counters that disagree with the chats show which one a total read.
    await sql`INSERT INTO chat_totals (account_id, status, dim, value, queue, slot, n)
      VALUES (${f.accountId}, 'open', 'label', ${label.id}, 'Espera', -1, 100)`.execute(s.db);
    try {
      assert.equal(await total({ label: label.id }), 102);
      assert.equal(await total({ label: label.id, channelId: f.channels[0]!.id }), 1);
    } finally {
      await sql`DELETE FROM chat_totals WHERE value = ${label.id} AND slot = -1`.execute(s.db);
    }
    assert.equal(await countersOff(s.db, f.accountId), 0);
  });
});

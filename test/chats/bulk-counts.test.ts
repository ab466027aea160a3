import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { countersOff as helperCountersOff } from '../helpers/counters.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { startTestServices, type TestServices } from '../helpers/services.js';

// Bulk actions as the services run them (ADR 79): many chats moved at once, concurrently and grouped
// into shared transfer commits, leave the list totals' counters (`chat_counts`, `chat_totals`) exact;
// a supervisor acts only within the teams they belong to; one chat's failure leaves the others done.

let phoneSeq = 0;
const phone = () => `5511922${String(++phoneSeq).padStart(6, '0')}`;

describe('bulk actions, services', () => {
  let s: TestServices;
  let f: Fixture;

  before(async () => {
    s = await startTestServices();
    f = await seedAccount(s.services);
  });
  after(async () => {
    await s?.close();
  });

  const countersOff = () => helperCountersOff(s.db, f.accountId);
  const total = async (query: Record<string, string>) =>
    (await s.services.chats.listForUser(f.admin, query)).total;

  it('a bulk transfer and a bulk close of 120 chats leave every counter and list total exact', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 120; i++) ids.push(await f.inbound(i % 2, phone(), 'Oi'));
    const before = {
      team1: await total({ teamId: f.teams[1]!.id }),
      closed: await total({ status: 'closed' }),
    };
    const moved = await s.services.bulk.apply(f.admin, ids, { type: 'transfer', teamId: f.teams[1]!.id });
    assert.ok(moved.every((r) => r.ok));
    assert.equal(await countersOff(), 0);
    // Half of them were team 1's already.
    assert.equal(await total({ teamId: f.teams[1]!.id }), before.team1 + 60);

    const assigned = await s.services.bulk.apply(f.admin, ids.slice(0, 50), {
      type: 'assign',
      userId: f.agents[1]!.id,
    });
    assert.ok(assigned.every((r) => r.ok));
    assert.equal(await total({ assignee: f.agents[1]!.id }), 50);
    assert.equal(await countersOff(), 0);

    const closed = await s.services.bulk.apply(f.admin, ids, { type: 'close' });
    assert.ok(closed.every((r) => r.ok));
    assert.equal(await countersOff(), 0);
    assert.equal(await total({ status: 'closed' }), before.closed + 120);
    assert.equal(await total({ teamId: f.teams[1]!.id }), before.team1 - 60);
  });

  it('a supervisor acts within their teams only; the others’ outcomes are unaffected by a refusal', async () => {
    const sup = await s.services.users.create(f.admin, {
      name: 'Sup',
      email: `sup.${Date.now().toString(36)}@example.com`,
      password: 'sup-password',
      role: 'supervisor',
    });
    await s.services.teams.update(f.admin, f.teams[1]!.id, { members: [f.agents[1]!.id, sup.id] });
    const actor = await s.services.auth.authenticate(
      (await s.services.auth.login(`${sup.email}`, 'sup-password')).accessToken,
    );
    const mine = await f.inbound(1, phone(), 'Oi');
    const notMine = await f.inbound(0, phone(), 'Oi');
    const out = await s.services.bulk.apply(actor, [notMine, mine], { type: 'close' });
    assert.deepEqual(
      out.map((o) => (o.ok ? 200 : o.error.statusCode)),
      [403, 200],
    );
    assert.equal((await s.services.chats.getForUser(f.admin, notMine)).status, 'open');
    assert.equal(await countersOff(), 0);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { UserActor } from '../../src/access/actors.js';
import { AppError } from '../../src/http/errors.js';
import { ChatSnoozeRepo } from '../../src/modules/chats/index.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { startTestServices, type TestServices } from '../helpers/services.js';

// Snooze (docs/adr/0078-snooze.md), on the services as the server wires them: a snoozed chat leaves
// the open lists and their exact totals, shows in the pending and snoozed views, and comes back —
// at its time (the wake-up loop's claim), at the customer's message, or by hand — once, with its
// event and a notification; who may snooze; bad ends refused.

let phoneSeq = 0;
const phone = () => `5511955${String(++phoneSeq).padStart(6, '0')}`;
const HOUR = 3600_000;

describe('snooze (services)', () => {
  let t: TestServices;
  let f: Fixture;
  let agent0: UserActor;
  let agent1: UserActor;
  before(async () => {
    t = await startTestServices();
    f = await seedAccount(t.services);
    agent0 = await t.services.auth.authenticate(f.agents[0]!.token);
    agent1 = await t.services.auth.authenticate(f.agents[1]!.token);
  });
  after(async () => {
    await t?.close();
  });

  const s = () => t.services;
  const list = (actor: UserActor, query: Parameters<typeof t.services.chats.listForUser>[1]) =>
    s().chats.listForUser(actor, { limit: 100, ...query });
  const ids = (page: { chats: { id: string }[] }) => page.chats.map((c) => c.id).sort();
  /** A list's total, checked against the rows it lists (every list here fits in one page). */
  const exact = async (actor: UserActor, query: Parameters<typeof t.services.chats.listForUser>[1]) => {
    const page = await list(actor, query);
    assert.equal(page.total, page.chats.length, `total of ${JSON.stringify(query)}`);
    return page;
  };
  const events = async (chatId: string) => {
    const { rows } = await sql<{ event: string; data: { reason?: string; until?: string | null } }>`
      SELECT event, data FROM events WHERE data #>> '{chat,id}' = ${chatId}
        AND event IN ('chat.snoozed', 'chat.unsnoozed') ORDER BY seq`.execute(t.db);
    return rows.map((r) => (r.event === 'chat.unsnoozed' ? `unsnoozed:${r.data.reason}` : 'snoozed'));
  };
  const notified = async (chatId: string) => {
    const { rows } = await sql<{ user_id: string }>`
      SELECT user_id FROM notifications WHERE kind = 'chat.unsnoozed' AND data ->> 'chatId' = ${chatId}
      ORDER BY user_id`.execute(t.db);
    return rows.map((r) => r.user_id);
  };
  const rejects = async (p: Promise<unknown>, status: number, message?: RegExp) => {
    await assert.rejects(p, (err: unknown) => {
      assert.ok(err instanceof AppError, String(err));
      assert.equal(err.statusCode, status);
      if (message) assert.match(JSON.stringify(err.message), message);
      return true;
    });
  };
  const dueNow = async (chatId: string) => {
    await sql`UPDATE chats SET snoozed_until = now() - interval '1 second' WHERE id = ${chatId}`.execute(
      t.db,
    );
  };

  it('leaves the open lists and their exact totals, shows in pending and snoozed, and comes back', async () => {
    const waiting = await f.inbound(0, phone(), 'espera');
    const mine = await f.inbound(0, phone(), 'minha');
    await s().chatMoves.capture(agent0, mine);
    const shapes = [
      {},
      { teamId: f.teams[0]!.id },
      { channelId: f.channels[0]!.id },
      { queue: 'Espera' },
      { assignee: 'mine' as const },
      { status: 'pending' as const },
      { status: 'snoozed' as const },
      { assignee: 'unassigned' as const },
    ];
    const before = await Promise.all(shapes.map((q) => exact(f.admin, q)));
    const mineBefore = await exact(agent0, { assignee: 'mine' });
    assert.ok(ids(before[0]!).includes(waiting) && ids(before[0]!).includes(mine));

    const snoozed = await s().chatSnooze.snooze(agent0, mine, {
      until: new Date(Date.now() + HOUR).toISOString(),
    });
    assert.ok(snoozed.snooze?.until);
    const snoozedWaiting = await s().chatSnooze.snooze(agent0, waiting, { untilCustomerMessage: true });
    assert.equal(snoozedWaiting.snooze?.until, null);

    const during = await Promise.all(shapes.map((q) => exact(f.admin, q)));
    // Out of every open list (and their totals), in the pending and snoozed views.
    for (const i of [0, 1, 2, 3, 4, 7]) {
      assert.ok(
        !ids(during[i]!).includes(mine) && !ids(during[i]!).includes(waiting),
        JSON.stringify(shapes[i]),
      );
    }
    assert.equal(during[0]!.total, before[0]!.total - 2);
    assert.equal(during[1]!.total, before[1]!.total - 2);
    assert.deepEqual(ids(during[6]!), [mine, waiting].sort());
    assert.ok(ids(during[5]!).includes(mine) && ids(during[5]!).includes(waiting), 'pending shows both');
    // The agent's own lists, through the visibility filter (chat_counts), are exact too.
    for (const q of shapes) await exact(agent0, q);
    assert.equal((await exact(agent0, { assignee: 'mine' })).total, mineBefore.total - 1);

    // Back by hand, at its time, at the customer's message.
    await s().chatSnooze.unsnooze(agent0, mine);
    await f.inbound(0, (await s().chats.getForUser(f.admin, waiting)).contact.value, 'voltei');
    const afterwards = await Promise.all(shapes.map((q) => exact(f.admin, q)));
    assert.deepEqual(
      afterwards.map((p) => p.total),
      before.map((p) => p.total),
    );
    assert.deepEqual(await events(mine), ['snoozed', 'unsnoozed:manual']);
    assert.deepEqual(await events(waiting), ['snoozed', 'unsnoozed:customer_message']);
    // The manual end tells nobody; the customer's message tells the team of a chat with no attendant.
    assert.deepEqual(await notified(mine), []);
    assert.deepEqual(await notified(waiting), [f.agents[0]!.id]);
  });

  it('wakes at its time once, whichever workers look, and a wake-up rolled back comes again', async () => {
    const chats = [];
    for (let i = 0; i < 3; i++) {
      const id = await f.inbound(0, phone(), 'tempo');
      await s().chatMoves.capture(agent0, id);
      await s().chatSnooze.snooze(agent0, id, { until: new Date(Date.now() + HOUR).toISOString() });
      chats.push(id);
    }
    assert.equal(await s().chatSnooze.wakeDue(100), 0, 'nothing is due yet');
    for (const id of chats) await dueNow(id);

    // A wake-up interrupted (its transaction never commits): still due afterwards.
    const repo = new ChatSnoozeRepo(t.db);
    await assert.rejects(
      t.db.transaction().execute(async (tx) => {
        assert.equal((await repo.claimDue(tx, 100)).length, 3);
        throw new Error('crash');
      }),
      /crash/,
    );
    // Two workers at once: each snooze ends once.
    const woken = await Promise.all([s().chatSnooze.wakeDue(100), s().chatSnooze.wakeDue(100)]);
    assert.equal(woken[0]! + woken[1]!, 3);
    assert.equal(await s().chatSnooze.wakeDue(100), 0);
    for (const id of chats) {
      assert.deepEqual(await events(id), ['snoozed', 'unsnoozed:time']);
      assert.deepEqual(await notified(id), [f.agents[0]!.id], 'the attendant is told');
      assert.equal((await s().chats.getForUser(f.admin, id)).snooze, null);
    }
    assert.equal(await s().chatSnooze.nextDue(), null);
  });

  it('is for whoever may act on the chat; another account’s chat is 404; bad ends are 400', async () => {
    const chat = await f.inbound(0, phone(), 'permissões');
    const later = { until: new Date(Date.now() + HOUR).toISOString() };
    // Agent 1 is not in the chat's team: it does not exist for them.
    await rejects(s().chatSnooze.snooze(agent1, chat, later), 404);
    // Attended by agent 1 (given by the admin): agent 0, of its team, may no longer snooze it.
    await s().chatMoves.transferToUser(f.admin, chat, { userId: f.agents[1]!.id });
    await rejects(s().chatSnooze.snooze(agent0, chat, later), 403, /atendente/);
    await s().chatSnooze.snooze(agent1, chat, later);
    await rejects(s().chatSnooze.unsnooze(agent0, chat), 403);
    // A supervisor (read_all) may.
    await s().chatSnooze.unsnooze(f.admin, chat);
    await rejects(s().chatSnooze.unsnooze(f.admin, chat), 409, /não está adiado/);

    const other = await seedAccount(s());
    await rejects(s().chatSnooze.snooze(other.admin, chat, later), 404);
    await rejects(s().chatSnooze.unsnooze(other.admin, chat), 404);

    await rejects(s().chatSnooze.snooze(f.admin, chat, {}), 400, /until/);
    await rejects(s().chatSnooze.snooze(f.admin, chat, { untilCustomerMessage: false }), 400, /until/);
    await rejects(
      s().chatSnooze.snooze(f.admin, chat, { until: new Date(Date.now() - 1000).toISOString() }),
      400,
      /já passou/,
    );
    await rejects(
      s().chatSnooze.snooze(f.admin, chat, { until: new Date(Date.now() + 366 * 24 * HOUR).toISOString() }),
      400,
      /um ano/,
    );
    assert.deepEqual(await events(chat), ['snoozed', 'unsnoozed:manual']);
  });

  it('a closed chat keeps no snooze, and its counts stay exact', async () => {
    const chat = await f.inbound(1, phone(), 'fechar');
    await s().chatSnooze.snooze(f.admin, chat, { until: new Date(Date.now() + HOUR).toISOString() });
    const closedBefore = await exact(f.admin, { status: 'closed' });
    await s().chatMoves.close(f.admin, chat);
    assert.equal((await s().chats.getForUser(f.admin, chat)).snooze, null);
    const closedAfter = await exact(f.admin, { status: 'closed' });
    assert.equal(closedAfter.total, closedBefore.total + 1);
    await exact(f.admin, { status: 'snoozed' });
    await exact(f.admin, { status: 'pending' });
    await rejects(s().chatSnooze.snooze(f.admin, chat, { untilCustomerMessage: true }), 409);
    assert.equal(await s().chatSnooze.wakeDue(100), 0);
  });
});

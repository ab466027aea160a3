import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { connect, type GatewayClient } from '../helpers/gateway.js';

// Who else is in a conversation: viewers (connections attending it) and who is typing, sent as
// `presence.update` to whoever watches the chat's presence, on two nodes sharing one Redis — the
// state is read from the connections through the adapter, so both nodes see the same.

const REDIS_URL = process.env.REDIS_URL;
let phoneSeq = 0;
const phone = () => `5511977${String(++phoneSeq).padStart(6, '0')}`;

interface Viewer {
  userId: string;
  typing: boolean;
}
interface Update {
  chatId: string;
  viewers: Viewer[];
}

const sorted = (viewers: Viewer[]) => [...viewers].sort((a, b) => (a.userId < b.userId ? -1 : 1));

describe('presence across two nodes', { skip: REDIS_URL ? false : 'needs REDIS_URL' }, () => {
  let a: TestApp;
  let b: TestApp;
  let f: Fixture;
  const clients: GatewayClient[] = [];

  before(async () => {
    const env = { REDIS_URL: REDIS_URL! };
    a = await startTestApp({ env });
    b = await startTestApp({ env, databaseUrl: a.databaseUrl });
    f = await seedAccount(a.server.services);
  });
  after(async () => {
    for (const c of clients) c.close();
    await b?.close();
    await a?.close();
  });

  const open = async (t: TestApp, token: string) => {
    const c = await connect(t.gatewayUrl!, { token });
    clients.push(c);
    return c;
  };
  /** The next presence.update of the chat whose viewers are exactly `expected`. */
  const presence = (c: GatewayClient, chatId: string, expected: Viewer[]) =>
    c.next('presence.update', (p) => {
      const u = p as unknown as Update;
      return u.chatId === chatId && JSON.stringify(u.viewers) === JSON.stringify(sorted(expected));
    });

  it('shows who views and who types, from the other node, until they stop or leave', async () => {
    const chatId = await f.inbound(0, phone());
    const admin = f.admin.userId;
    const agent = f.agents[0]!.id;

    // The admin views the chat on node A and watches its presence.
    const onA = await open(a, f.adminToken);
    assert.deepEqual(await onA.ack('user_start_attendance', chatId), { ok: true, chatId });
    assert.deepEqual(await onA.ack('user_watch_presence', chatId), {
      ok: true,
      chatId,
      viewers: [{ userId: admin, typing: false }],
    });

    // A connection that only follows the chat's messages (an integration, the customer simulator) is
    // no viewer.
    const onB = await open(b, f.agents[0]!.token);
    await onB.ack('user_start_attendance', chatId);
    assert.deepEqual(await onA.ack('user_watch_presence', chatId), {
      ok: true,
      chatId,
      viewers: [{ userId: admin, typing: false }],
    });

    // The agent's screen of it, on node B: the admin sees them arrive.
    const both = [
      { userId: admin, typing: false },
      { userId: agent, typing: false },
    ];
    // The agent sees the admin (read on node A) in the answer, and the admin sees them arrive.
    const watched = await onB.ack('user_watch_presence', chatId);
    assert.deepEqual(watched, { ok: true, chatId, viewers: sorted(both) });
    await presence(onA, chatId, both);

    // The agent types; a renewal changes nothing; then stops.
    assert.deepEqual(await onB.ack('user_typing', { chatId, typing: true }), {
      ok: true,
      chatId,
      typing: true,
    });
    await presence(onA, chatId, [
      { userId: admin, typing: false },
      { userId: agent, typing: true },
    ]);
    await onB.ack('user_typing', { chatId, typing: true });
    assert.deepEqual(await onB.ack('user_typing', { chatId, typing: false }), {
      ok: true,
      chatId,
      typing: false,
    });
    await presence(onA, chatId, both);
    // The renewal published nothing: typing once, stopping once.
    const typingUpdates = onA.received.filter(
      (r) => r.event === 'presence.update' && (r.payload as Update).viewers.some((v) => v.typing),
    );
    assert.equal(typingUpdates.length, 1);

    // Leaving the conversation, and a second connection of the same user counting once.
    const onA2 = await open(a, f.agents[0]!.token);
    await onA2.ack('user_start_attendance', chatId);
    await onA2.ack('user_watch_presence', chatId);
    await onA2.ack('user_typing', { chatId, typing: true });
    await presence(onA, chatId, [
      { userId: admin, typing: false },
      { userId: agent, typing: true },
    ]);
    await onB.ack('user_stop_attendance', null);
    await onA2.barrier();
    onA2.close();
    await presence(onA, chatId, [{ userId: admin, typing: false }]);
  });

  it('a connection that drops is no longer a viewer, and typing ends with it', async () => {
    const chatId = await f.inbound(0, phone());
    const watcher = await open(a, f.adminToken);
    await watcher.ack('user_start_attendance', chatId);
    await watcher.ack('user_watch_presence', chatId);
    const typist = await open(b, f.agents[0]!.token);
    await typist.ack('user_start_attendance', chatId);
    await typist.ack('user_watch_presence', chatId);
    await typist.ack('user_typing', { chatId, typing: true });
    await presence(watcher, chatId, [
      { userId: f.admin.userId, typing: false },
      { userId: f.agents[0]!.id, typing: true },
    ]);
    typist.close();
    await presence(watcher, chatId, [{ userId: f.admin.userId, typing: false }]);
  });

  it('only about the conversation a connection attends, with the contract error words', async () => {
    const chatId = await f.inbound(0, phone());
    const other = await f.inbound(0, phone());
    const c = await open(b, f.agents[0]!.token);
    assert.deepEqual(await c.ack('user_watch_presence', chatId), { ok: false, error: 'not_found' });
    assert.deepEqual(await c.ack('user_typing', { chatId, typing: true }), { ok: false, error: 'not_found' });
    await c.ack('user_start_attendance', chatId);
    assert.deepEqual(await c.ack('user_typing', { chatId: other, typing: true }), {
      ok: false,
      error: 'not_found',
    });
    for (const bad of [null, 'x', { chatId }, { chatId, typing: 'yes' }, { chatId: 'nope', typing: true }]) {
      assert.deepEqual(
        await c.ack('user_typing', bad),
        { ok: false, error: 'invalid_argument' },
        JSON.stringify(bad),
      );
    }
    assert.deepEqual(await c.ack('user_typing', { chatId, typing: true, note: 'x' }), {
      ok: false,
      error: 'invalid_argument',
    });
    assert.deepEqual(await c.ack('user_watch_presence', 42), { ok: false, error: 'invalid_argument' });
    // Agent 1 (team 1) may not see team 0's chat: it never becomes a viewer of it.
    const outsider = await open(a, f.agents[1]!.token);
    assert.deepEqual(await outsider.ack('user_start_attendance', chatId), { ok: false, error: 'not_found' });
    assert.deepEqual(await outsider.ack('user_watch_presence', chatId), { ok: false, error: 'not_found' });
    // Without a token nothing is answered but the contract's refusal.
    const anonymous = await connect(a.gatewayUrl!);
    clients.push(anonymous);
    assert.deepEqual(await anonymous.ack('user_typing', { chatId, typing: true }), {
      ok: false,
      error: 'unauthenticated',
    });
  });
});

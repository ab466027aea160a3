import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { connect, type GatewayClient } from '../helpers/gateway.js';

// Conversations the Channel API opened (queue API): a customer's reply brings an unattended one to
// the channel's team queue, live over the gateway; an attended one stays with its attendant. And the
// supervisors' view of every open conversation: the list's filters and its search by the customer.

let phoneSeq = 0;
const phone = () => `5511976${String(++phoneSeq).padStart(6, '0')}`;

interface ChatJson {
  id: string;
  status: string;
  queue: string;
  channelId: string;
  teamId: string;
  userId: string | null;
  contact: { id: string; name: string; value: string };
}
interface PageJson {
  total: number;
  chats: ChatJson[];
}

describe('replies to API conversations and the all-open view', () => {
  let t: TestApp;
  let f: Fixture;
  let g: Fixture; // another account
  let channelKey: string; // channel 0 (sandbox, default team 0)
  let supervisorToken: string;
  const clients: GatewayClient[] = [];
  const open = async (token: string, teamIds: string[]) => {
    const c = await connect(t.gatewayUrl!, { token });
    clients.push(c);
    const ack = await c.ack('user_join_team', teamIds);
    assert.equal(ack.ok, true, JSON.stringify(ack));
    return c;
  };
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const chatOf = async (id: string) =>
    (await t.request('GET', `/api/chats/${id}`, { headers: bearer(f.adminToken) }))
      .json as unknown as ChatJson;
  const list = async (token: string, query: Record<string, string>) => {
    const res = await t.request('GET', `/api/chats?${new URLSearchParams(query).toString()}`, {
      headers: bearer(token),
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.json as unknown as PageJson;
  };
  const transferToAgent0 = (chatId: string) =>
    t.request('POST', `/api/chats/${chatId}/transfer`, {
      headers: bearer(f.adminToken),
      body: { userId: f.agents[0]!.id },
    });
  const chatEvent = (id: string) => (e: Record<string, unknown>) =>
    (e.data as { chat: { id: string } }).chat.id === id;

  /**
   * An integrator's message to a new contact on channel 0; resolves with the chat the send opened,
   * once its chat.new (queue API) reached the watching client.
   */
  const sendFromApi = async (watcher: GatewayClient, to: string, name?: string) => {
    const res = await t.request('POST', '/channel-api/messages/send', {
      headers: { 'x-channel-api-key': channelKey },
      body: {
        contact: { value: to, ...(name ? { name } : {}) },
        message: { type: 'text', text: { value: 'Seu boleto vence amanhã' } },
      },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const opened = await watcher.next('chat.new', (e) => {
      const c = (e.data as { chat: ChatJson }).chat;
      return c.queue === 'API' && c.contact.value === to;
    });
    return (opened.data as { chat: ChatJson }).chat;
  };

  before(async () => {
    t = await startTestApp();
    f = await seedAccount(t.server.services);
    g = await seedAccount(t.server.services);
    channelKey = (
      await t.request('POST', `/api/channels/${f.channels[0]!.id}/api-key`, { headers: bearer(f.adminToken) })
    ).json.apiKey as string;
    const email = `supervisor-${Date.now().toString(36)}@example.com`;
    await t.server.services.users.create(f.admin, {
      name: 'Supervisora',
      email,
      password: 'supervisor-password',
      role: 'supervisor',
    });
    supervisorToken = (await t.server.services.auth.login(email, 'supervisor-password')).accessToken;
  });
  after(async () => {
    for (const c of clients) c.close();
    await t?.close();
  });

  // An event that never comes fails the test instead of hanging the run (not a timing assertion).
  describe('a customer reply to a chat in queue API', { timeout: 60_000 }, () => {
    it('moves an unattended one to Espera of the channel team: chat.queue reaches the team live, an agent captures', async () => {
      const agent0 = await open(f.agents[0]!.token, [f.teams[0]!.id]);
      const agent1 = await open(f.agents[1]!.token, [f.teams[1]!.id]);
      const to = phone();
      const opened = await sendFromApi(agent0, to);
      assert.deepEqual([opened.queue, opened.teamId, opened.userId], ['API', f.teams[0]!.id, null]);

      const chatId = await f.inbound(0, to, 'Já paguei, obrigado');
      assert.equal(chatId, opened.id, 'the reply continues the conversation the send opened');

      // Stored before the answer; the event follows it over the gateway.
      const stored = await chatOf(chatId);
      assert.deepEqual([stored.queue, stored.teamId, stored.userId], ['Espera', f.teams[0]!.id, null]);
      const moved = await agent0.next('chat.queue', chatEvent(chatId));
      const data = moved.data as {
        chat: ChatJson & { lastMessage: { content: string } };
        from: string;
        to: string;
      };
      assert.deepEqual([data.from, data.to], ['API', 'Espera']);
      assert.deepEqual(
        [data.chat.queue, data.chat.teamId, data.chat.userId, data.chat.status],
        ['Espera', f.teams[0]!.id, null, 'open'],
      );
      assert.equal(data.chat.lastMessage.content, 'Já paguei, obrigado');
      // In the team's waiting list as the console reads it.
      const waiting = await list(f.agents[0]!.token, { queue: 'Espera' });
      assert.ok(waiting.chats.some((c) => c.id === chatId));

      // Another team's agent hears nothing of it.
      await t.server.gateway!.tail.settled();
      await agent1.barrier();
      assert.equal(
        agent1.events().filter((e) => (e.data as { chat?: { id: string } }).chat?.id === chatId).length,
        0,
      );

      const captured = await t.request('POST', `/api/chats/${chatId}/capture`, {
        headers: bearer(f.agents[0]!.token),
      });
      assert.equal(captured.status, 200, JSON.stringify(captured.body));
      assert.deepEqual([captured.json.queue, captured.json.userId], ['Em Atendimento', f.agents[0]!.id]);

      // A second reply leaves the attended chat where it is.
      await f.inbound(0, to, 'Mais uma coisa');
      const after = await chatOf(chatId);
      assert.deepEqual([after.queue, after.userId], ['Em Atendimento', f.agents[0]!.id]);
    });

    it('goes to the channel’s own inbound queue and current default team', async () => {
      const agent1 = await open(f.agents[1]!.token, [f.teams[1]!.id]);
      const admin = await open(
        f.adminToken,
        f.teams.map((x) => x.id),
      );
      const to = phone();
      const opened = await sendFromApi(admin, to);
      assert.equal(opened.teamId, f.teams[0]!.id);
      // The channel now routes new conversations to team 1's `Triagem`.
      const patched = await t.request('PATCH', `/api/channels/${f.channels[0]!.id}`, {
        headers: bearer(f.adminToken),
        body: { defaultTeamId: f.teams[1]!.id, queue: 'Triagem' },
      });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      try {
        await f.inbound(0, to, 'Oi');
        const stored = await chatOf(opened.id);
        assert.deepEqual([stored.queue, stored.teamId], ['Triagem', f.teams[1]!.id]);
        const moved = await agent1.next('chat.queue', chatEvent(opened.id));
        const data = moved.data as { chat: ChatJson; from: string; to: string };
        assert.deepEqual([data.from, data.to, data.chat.teamId], ['API', 'Triagem', f.teams[1]!.id]);
      } finally {
        await t.request('PATCH', `/api/channels/${f.channels[0]!.id}`, {
          headers: bearer(f.adminToken),
          body: { defaultTeamId: f.teams[0]!.id, queue: 'Espera' },
        });
      }
    });

    it('leaves an attended API chat with its attendant, in its queue, without chat.queue', async () => {
      const agent0 = await open(f.agents[0]!.token, [f.teams[0]!.id]);
      const to = phone();
      const opened = await sendFromApi(agent0, to);
      // The agent takes it and parks it back in API (e.g. while an integration finishes something).
      // The send's worker may still hold the chat (409 at once): the transfer is tried again.
      let given = await transferToAgent0(opened.id);
      for (let i = 0; given.status === 409 && i < 100; i++) {
        await new Promise((r) => setTimeout(r, 50));
        given = await transferToAgent0(opened.id);
      }
      assert.equal(given.status, 200, JSON.stringify(given.body));
      const parked = await t.request('POST', `/api/chats/${opened.id}/queue`, {
        headers: bearer(f.agents[0]!.token),
        body: { queue: 'API' },
      });
      assert.deepEqual([parked.json.queue, parked.json.userId], ['API', f.agents[0]!.id]);
      assert.equal((await agent0.ack('user_start_watch_chats', [opened.id])).ok, true);

      await f.inbound(0, to, 'Alguém aí?');
      const update = await agent0.next('chat.update', chatEvent(opened.id));
      const chat = (update.data as { chat: ChatJson }).chat;
      assert.deepEqual([chat.queue, chat.userId], ['API', f.agents[0]!.id]);
      await t.server.gateway!.tail.settled();
      await agent0.barrier();
      assert.equal(
        agent0
          .events()
          .filter(
            (e) =>
              e.event === 'chat.queue' &&
              chatEvent(opened.id)(e) &&
              (e.data as { from: string }).from === 'API',
          ).length,
        0,
        'the only queue change is the agent’s own move to API',
      );
      const stored = await chatOf(opened.id);
      assert.deepEqual([stored.queue, stored.userId], ['API', f.agents[0]!.id]);
    });

    it('opens a new conversation in Espera when the API chat was closed', async () => {
      const agent0 = await open(f.agents[0]!.token, [f.teams[0]!.id]);
      const to = phone();
      const opened = await sendFromApi(agent0, to);
      const closed = await t.request('POST', `/api/chats/${opened.id}/close`, {
        headers: bearer(f.adminToken),
      });
      assert.equal(closed.status, 200, JSON.stringify(closed.body));
      const chatId = await f.inbound(0, to, 'Voltei');
      assert.notEqual(chatId, opened.id);
      const arrived = await agent0.next('chat.new', chatEvent(chatId));
      assert.equal((arrived.data as { chat: ChatJson }).chat.queue, 'Espera');
      assert.equal((await chatOf(opened.id)).status, 'closed');
    });
  });

  describe('all open conversations (GET /api/chats with filters and q)', () => {
    const ids: Record<string, string> = {};
    before(async () => {
      // Channel 0 → team 0, channel 1 → team 1 (fixture); one of them parked in Automação.
      ids.joao = await f.inbound(0, '5511991230001', 'Oi', 'João da Silva');
      ids.joana = await f.inbound(1, '5521991230002', 'Oi', 'JOANA Álvares');
      ids.marcia = await f.inbound(1, '5531991239999', 'Oi', 'Márcia 100% _real_');
      ids.pedro = await f.inbound(0, '5511991230004', 'Oi', 'Pedro');
      await t.request('POST', `/api/chats/${ids.pedro}/queue`, {
        headers: bearer(f.adminToken),
        body: { queue: 'Automação' },
      });
      // Another account's namesake is never found.
      await g.inbound(0, '5511991230001', 'Oi', 'João da Silva');
    });
    const found = (p: PageJson) => p.chats.map((c) => c.id).sort();
    const of = (...names: string[]) => names.map((n) => ids[n]!).sort();
    /** Only the chats of this block (the account has others from the tests above). */
    const mine = (p: PageJson) => ({ ...p, chats: p.chats.filter((c) => Object.values(ids).includes(c.id)) });

    it('searches names without accents or case, and numbers by their digits however written', async () => {
      for (const [q, expected] of [
        ['joao', ['joao']],
        ['JOÃO DA', ['joao']],
        ['jo', ['joao', 'joana']],
        ['alvares', ['joana']],
        ['márcia', ['marcia']],
        ['9123', ['joao', 'joana', 'marcia', 'pedro']],
        ['+55 (21) 99123', ['joana']],
        ['9999', ['marcia']],
        ['100%', ['marcia']],
        ['_real_', ['marcia']],
        ['%', ['marcia']],
        ['ninguém', []],
      ] as const) {
        const page = await list(supervisorToken, { q });
        assert.deepEqual(found(page), of(...expected), `q=${q}`);
        assert.equal(page.total, expected.length, `total of q=${q}`);
      }
    });

    it('combines the search with the queue, team and channel filters', async () => {
      const sup = supervisorToken;
      assert.deepEqual(found(mine(await list(sup, { teamId: f.teams[1]!.id }))), of('joana', 'marcia'));
      assert.deepEqual(found(mine(await list(sup, { channelId: f.channels[0]!.id }))), of('joao', 'pedro'));
      assert.deepEqual(found(await list(sup, { queue: 'Automação' })), of('pedro'));
      const combined = await list(sup, { q: '99123', channelId: f.channels[1]!.id, queue: 'Espera' });
      assert.deepEqual(found(combined), of('joana', 'marcia'));
      assert.equal(combined.total, 2);
      const paged = await list(sup, { q: '99123', limit: '1', page: '2' });
      assert.equal(paged.total, 4);
      assert.equal(paged.chats.length, 1);
      assert.deepEqual(
        found(await list(sup, { q: '99123', teamId: f.teams[0]!.id, queue: 'Espera' })),
        of('joao'),
      );
      // Past the last page the total is still exact.
      const beyond = await list(sup, { q: 'jo', page: '9' });
      assert.deepEqual([beyond.total, beyond.chats.length], [2, 0]);
    });

    it('finds only what the user may see: an agent searches their teams and chats only', async () => {
      assert.deepEqual(found(await list(f.agents[1]!.token, { q: 'jo' })), of('joana'));
      assert.deepEqual(found(await list(f.agents[0]!.token, { q: 'jo' })), of('joao'));
      const foreign = await list(g.adminToken, { q: 'joão' });
      assert.equal(foreign.total, 1);
      assert.notEqual(foreign.chats[0]!.id, ids.joao);
    });

    it('refuses a search longer than 100 characters', async () => {
      const res = await t.request('GET', `/api/chats?q=${'a'.repeat(101)}`, {
        headers: bearer(supervisorToken),
      });
      assert.equal(res.status, 400);
      assert.deepEqual(res.json, {
        statusCode: 400,
        message: ['q must be shorter than or equal to 100 characters'],
        error: 'Bad Request',
      });
      // Blank is no search at all.
      const blank = await list(supervisorToken, { q: '   ', queue: 'Automação' });
      assert.deepEqual(found(blank), of('pedro'));
    });
  });
});

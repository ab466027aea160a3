import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { connect, type GatewayClient } from '../helpers/gateway.js';

// Supervisors step in (ADR 79): a supervisor of the chat's team, or an admin, replies in a conversation
// another agent attends — the message is marked as theirs for everyone watching — or takes it over with
// one click (a transfer to themself), which the agent who had it sees live. Others may not.

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
let phoneSeq = 0;
const phone = () => `5511944${String(++phoneSeq).padStart(6, '0')}`;

interface MessageJson {
  id: string;
  userId: string | null;
  bySupervisor: boolean;
  content: { text?: string };
}

describe('supervisors step in', () => {
  let t: TestApp;
  let f: Fixture;
  let supervisor: { id: string; token: string }; // supervisor of team 0
  let otherSupervisor: { id: string; token: string }; // supervisor of team 1 only
  const clients: GatewayClient[] = [];

  const makeSupervisor = async (name: string, teamIndex: number) => {
    const email = `${name}.${Date.now().toString(36)}@example.com`;
    const services = t.server.services;
    const user = await services.users.create(f.admin, {
      name,
      email,
      password: 'sup-password',
      role: 'supervisor',
    });
    const team = f.teams[teamIndex]!;
    const members = [f.agents[teamIndex]!.id, user.id];
    await services.teams.update(f.admin, team.id, { members });
    return { id: user.id, token: (await services.auth.login(email, 'sup-password')).accessToken };
  };

  before(async () => {
    t = await startTestApp();
    f = await seedAccount(t.server.services);
    supervisor = await makeSupervisor('Maria', 0);
    otherSupervisor = await makeSupervisor('Paulo', 1);
  });
  after(async () => {
    for (const c of clients) c.close();
    await t?.close();
  });

  /** A conversation of team 0 that agent 0 attends. */
  const agentsChat = async () => {
    const chatId = await f.inbound(0, phone(), 'Preciso de ajuda');
    const res = await t.request('POST', `/api/chats/${chatId}/transfer`, {
      headers: bearer(f.adminToken),
      body: { userId: f.agents[0]!.id },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return chatId;
  };
  const reply = (token: string, chatId: string, text: string, lang = 'en') =>
    t.request('POST', `/api/chats/${chatId}/messages`, {
      headers: { ...bearer(token), 'accept-language': lang },
      body: { text },
    });

  it('a supervisor of the team replies in the agent’s chat: stored as theirs, marked, and shown so to the agent live', async () => {
    const chatId = await agentsChat();
    const agent = await connect(t.gatewayUrl!, { token: f.agents[0]!.token });
    clients.push(agent);
    assert.deepEqual(await agent.ack('user_start_attendance', chatId), { ok: true, chatId });

    const res = await reply(supervisor.token, chatId, 'Olá, aqui é a supervisora');
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const sent = res.json as unknown as MessageJson;
    assert.equal(sent.userId, supervisor.id);
    assert.equal(sent.bySupervisor, true);

    const live = await agent.next(
      'message.upsert',
      (e) => (e.data as { message: MessageJson }).message.id === sent.id,
    );
    const message = (live.data as { message: MessageJson }).message;
    assert.equal(message.bySupervisor, true);
    assert.equal(message.userId, supervisor.id);

    // The agent's own reply is not marked; the chat stays theirs.
    const own = await reply(f.agents[0]!.token, chatId, 'Obrigado, Maria');
    assert.equal(own.status, 201, JSON.stringify(own.body));
    assert.equal((own.json as unknown as MessageJson).bySupervisor, false);
    const history = await t.request('GET', `/api/chats/${chatId}/messages`, {
      headers: bearer(f.agents[0]!.token),
    });
    const marks = (history.json.messages as MessageJson[])
      .filter((m) => m.userId !== null)
      .map((m) => m.bySupervisor);
    assert.deepEqual(marks, [false, true]);
    const chat = await t.request('GET', `/api/chats/${chatId}`, { headers: bearer(f.adminToken) });
    assert.equal(chat.json.userId, f.agents[0]!.id);
  });

  it('an admin replies in any chat; a supervisor of another team, and a teammate, may not', async () => {
    const chatId = await agentsChat();
    const byAdmin = await reply(f.adminToken, chatId, 'Mensagem da administração');
    assert.equal(byAdmin.status, 201, JSON.stringify(byAdmin.body));
    assert.equal((byAdmin.json as unknown as MessageJson).bySupervisor, true);

    const outsider = await reply(otherSupervisor.token, chatId, 'Não devo');
    assert.equal(outsider.status, 403);
    assert.deepEqual(outsider.json, {
      statusCode: 403,
      message: "Only the chat's attendant can send messages; capture or transfer the chat first",
      error: 'Forbidden',
    });
    // Agent 1 is not in team 0: the chat is not theirs to see.
    assert.equal((await reply(f.agents[1]!.token, chatId, 'Oi')).status, 404);
  });

  it('a chat waiting without attendant is captured or taken over first', async () => {
    const chatId = await f.inbound(0, phone(), 'Alguém?');
    const res = await reply(supervisor.token, chatId, 'Oi', 'pt-BR');
    assert.equal(res.status, 403);
    assert.equal(res.json.message, 'O chat não tem atendente; capture ou assuma o chat para responder');
  });

  it('take over: the chat becomes the supervisor’s with one click, the agent sees it live, the activity says so', async () => {
    const chatId = await agentsChat();
    const agent = await connect(t.gatewayUrl!, { token: f.agents[0]!.token });
    clients.push(agent);
    assert.equal((await agent.ack('user_logged_in', f.agents[0]!.id)).ok, true);

    const res = await t.request('POST', `/api/chats/${chatId}/takeover`, {
      headers: bearer(supervisor.token),
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.json.userId, supervisor.id);
    assert.equal(res.json.queue, 'Em Atendimento');

    const live = await agent.next(
      'chat.transfer',
      (e) => (e.data as { chat: { id: string } }).chat.id === chatId,
    );
    const data = live.data as {
      from: { userId: string };
      to: { userId: string };
      reasonCode: string;
      by: unknown;
    };
    assert.equal(data.from.userId, f.agents[0]!.id);
    assert.equal(data.to.userId, supervisor.id);
    assert.equal(data.reasonCode, 'takeover');
    assert.deepEqual(data.by, { type: 'user', id: supervisor.id });

    const activity = await t.request('GET', `/api/chats/${chatId}/activity`, {
      headers: bearer(supervisor.token),
    });
    assert.equal(activity.status, 200, JSON.stringify(activity.body));
    const lines = activity.json.activity as { kind: string; by: unknown }[];
    assert.deepEqual(lines[0], { ...lines[0], kind: 'takeover', by: { type: 'user', id: supervisor.id } });

    // Now theirs: a plain reply, not marked; again → 409; the former agent may no longer reply.
    const own = await reply(supervisor.token, chatId, 'Assumi o atendimento');
    assert.equal((own.json as unknown as MessageJson).bySupervisor, false);
    const again = await t.request('POST', `/api/chats/${chatId}/takeover`, {
      headers: bearer(supervisor.token),
    });
    assert.equal(again.status, 409);
    assert.equal((await reply(f.agents[0]!.token, chatId, 'Ainda aqui?')).status, 403);
  });

  it('take over is for supervisors of the team and admins only', async () => {
    const chatId = await agentsChat();
    const byAgent = await t.request('POST', `/api/chats/${chatId}/takeover`, {
      headers: { ...bearer(f.agents[0]!.token), 'accept-language': 'en' },
    });
    assert.equal(byAgent.status, 403);
    assert.equal(byAgent.json.message, "Only a supervisor of the chat's team or an admin can take it over");
    const byOther = await t.request('POST', `/api/chats/${chatId}/takeover`, {
      headers: bearer(otherSupervisor.token),
    });
    assert.equal(byOther.status, 403);
    const byAdmin = await t.request('POST', `/api/chats/${chatId}/takeover`, {
      headers: bearer(f.adminToken),
    });
    assert.equal(byAdmin.status, 200, JSON.stringify(byAdmin.body));
    assert.equal(byAdmin.json.userId, f.admin.userId);
  });
});

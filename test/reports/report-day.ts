import assert from 'node:assert/strict';
import pg from 'pg';
import type { TestApp } from '../helpers/app.js';
import type { Fixture } from '../helpers/fixtures.js';

/**
 * A scripted day for the reports' tests: real requests and services, each step's events then given
 * the step's instant (`occurred_at`, the one clock reports read) before the consumer applies them.
 * The day is 2026-03-02 in America/Sao_Paulo (UTC−3): local 09:00 is 12:00Z.
 */

export const DAY = '2026-03-02';
export const at = (hhmm: string) => new Date(`${DAY}T${hhmm}:00Z`);

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export interface Day {
  chats: Record<'x' | 'y' | 'z' | 'w' | 'b', string>;
  labelId: string;
  channel2: string;
}

export async function scriptDay(t: TestApp, f: Fixture, db: pg.Pool): Promise<Day> {
  const s = t.server.services;
  const admin = bearer(f.adminToken);
  const a0 = bearer(f.agents[0]!.token);
  const a1 = bearer(f.agents[1]!.token);
  let stamped = Number((await db.query('SELECT coalesce(max(seq), 0) AS m FROM events')).rows[0].m);
  /** Gives the events written since the last step this step's instant. */
  const stamp = async (hhmm: string) => {
    const r = await db.query('UPDATE events SET occurred_at = $2 WHERE seq > $1 RETURNING seq', [
      stamped,
      at(hhmm),
    ]);
    assert.ok(r.rowCount && r.rowCount > 0, `events at ${hhmm}`);
    stamped = Math.max(stamped, ...r.rows.map((x: { seq: string }) => Number(x.seq)));
  };
  const ok = async (res: Promise<{ status: number; body: unknown }>, status = 200) => {
    const r = await res;
    assert.equal(r.status, status, JSON.stringify(r.body));
  };
  const reply = (chatId: string, headers: Record<string, string>, text: string) =>
    ok(t.request('POST', `/api/chats/${chatId}/messages`, { headers, body: { text } }), 201);
  const act = (chatId: string, action: string, headers: Record<string, string>) =>
    ok(t.request('POST', `/api/chats/${chatId}/${action}`, { headers }));

  // The set-up (its events are before the day, at 02:00Z).
  await ok(
    t.request('PUT', `/api/teams/${f.teams[0]!.id}/sla`, {
      headers: admin,
      body: { firstResponseMinutes: 30, resolutionMinutes: 480 },
    }),
  );
  await ok(
    t.request('PUT', `/api/teams/${f.teams[1]!.id}/assignment`, {
      headers: admin,
      body: { mode: 'round_robin' },
    }),
  );
  await ok(t.request('PUT', '/api/me/availability', { headers: a1, body: { availability: 'online' } }));
  await ok(
    t.request('PUT', `/api/channels/${f.channels[1]!.id}/flow`, {
      headers: admin,
      body: {
        enabled: true,
        greeting: null,
        menu: {
          prompt: 'Escolha:',
          options: [{ label: 'Suporte', teamId: f.teams[1]!.id }],
          interactive: false,
          invalidReply: 'Opção inválida.',
          maxAttempts: 2,
          timeoutMinutes: 10,
        },
        outOfHoursMessage: null,
        awayMessage: null,
        autoClose: null,
        csat: { question: 'Nota de 1 a 5?', thanks: 'Obrigado!', invalidReply: 'De 1 a 5.', windowHours: 4 },
      },
    }),
  );
  const label = await t.request('POST', '/api/labels', {
    headers: admin,
    body: { name: 'VIP', color: '#aa0000' },
  });
  assert.equal(label.status, 201, JSON.stringify(label.body));
  const labelId = label.json.id as string;
  const bot = await t.request('POST', '/api/bots', {
    headers: admin,
    body: { name: 'Robô', url: 'http://127.0.0.1:9/bot', replyTimeoutSeconds: 3600 },
  });
  assert.equal(bot.status, 201, JSON.stringify(bot.body));
  const channel2 = await s.channels.create(f.admin, {
    name: 'Canal do robô',
    provider: 'sandbox',
    defaultTeamId: f.teams[0]!.id,
  });
  await ok(
    t.request('PUT', `/api/channels/${channel2.id}/bot`, { headers: admin, body: { botId: bot.json.id } }),
  );
  await stamp('02:00');

  const say = async (channelId: string, from: string, text: string) =>
    (await s.inbound.receiveSandbox(f.admin, channelId, { from, text, name: null })).chatId;
  const c0 = f.channels[0]!.id;
  const c1 = f.channels[1]!.id;

  // X: captured, answered, labelled, closed, reopened, closed again.
  const x = await say(c0, '5511900000001', 'Oi');
  await stamp('12:00');
  await act(x, 'capture', a0);
  await stamp('12:05');
  await reply(x, a0, 'Olá!');
  await stamp('12:10');
  await say(c0, '5511900000001', 'Meu pedido');
  await stamp('12:20');
  await ok(t.request('PUT', `/api/chats/${x}/labels/${labelId}`, { headers: a0 }));
  await stamp('12:30');
  await act(x, 'close', a0);
  await stamp('12:40');
  await act(x, 'reopen', a0);
  await stamp('13:00');
  await act(x, 'close', a0);
  await stamp('13:30');

  // Y: captured, transferred to team 1 (auto-assigned there), answered, snoozed, woken, closed.
  const y = await say(c0, '5511900000002', 'Bom dia');
  await stamp('14:00');
  await act(y, 'capture', a0);
  await stamp('14:10');
  await ok(t.request('POST', `/api/chats/${y}/transfer`, { headers: a0, body: { teamId: f.teams[1]!.id } }));
  await stamp('14:15');
  assert.equal((await s.assignment.assignWaiting()).assigned, 1);
  await stamp('14:20');
  await reply(y, a1, 'Sou da equipe 1');
  await stamp('14:30');
  await ok(
    t.request('POST', `/api/chats/${y}/snooze`, { headers: a1, body: { untilCustomerMessage: true } }),
  );
  await stamp('14:40');
  await say(c0, '5511900000002', 'Voltei');
  await stamp('15:00');
  await act(y, 'close', a1);
  await stamp('15:10');

  // Z: misses its first-response target, then is answered.
  const z = await say(c0, '5511900000003', 'Alô');
  await stamp('16:00');
  await db.query("UPDATE chats SET first_response_due_at = now() - interval '1 second' WHERE id = $1", [z]);
  assert.equal(await s.chatSla.raiseDue(10), 1);
  await stamp('16:30');
  await act(z, 'capture', a0);
  await stamp('16:45');
  await reply(z, a0, 'Desculpe a demora');
  await stamp('16:50');

  // W: the channel's flow (menu), auto-assigned, answered, closed, rated 5.
  const w = await say(c1, '5511900000004', 'Oi');
  await stamp('17:00');
  await say(c1, '5511900000004', '1');
  await stamp('17:02');
  assert.equal((await s.assignment.assignWaiting()).assigned, 1);
  await stamp('17:05');
  await reply(w, a1, 'Em que posso ajudar?');
  await stamp('17:10');
  await act(w, 'close', a1);
  await stamp('17:20');
  await say(c1, '5511900000004', '5');
  await stamp('17:25');

  // B: a bot holds it, hands it to team 0, an agent captures and answers.
  const b = await say(channel2.id, '5511900000005', 'Quero ajuda');
  await stamp('18:00');
  await ok(
    t.request('POST', `/channel-api/chats/${b}/transfer/team`, {
      headers: { authorization: `ApiKey ${bot.json.apiKey as string}` },
      body: { teamId: f.teams[0]!.id },
    }),
  );
  await stamp('18:05');
  await act(b, 'capture', a0);
  await stamp('18:20');
  await reply(b, a0, 'Olá, sou uma pessoa');
  await stamp('18:30');
  return { chats: { x, y, z, w, b }, labelId, channel2: channel2.id };
}

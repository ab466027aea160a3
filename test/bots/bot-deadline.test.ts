import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { startTestServices, type TestServices } from '../helpers/services.js';

// The bots' deadline (docs/adr/0087-bots.md), on the services without the worker loop: each customer
// message in a bot's conversation makes its answer due, the bot's answer through the Channel API
// clears it, and overdue conversations are handed over once — two nodes' claims running at the same
// time hand each over exactly once, with one `chat.bot_released` each. A due time is moved into the
// past rather than waited for.

describe('a bot’s answer deadline', () => {
  let s: TestServices;
  let f: Fixture;
  let botId: string;
  let apiKey: string;
  let phoneSeq = 0;
  const phone = () => `5511966${String(++phoneSeq).padStart(6, '0')}`;

  before(async () => {
    s = await startTestServices({ env: { ATENDE_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
    f = await seedAccount(s.services);
    const bot = await s.services.bots.create(f.admin, {
      name: 'Prazo',
      url: 'http://127.0.0.1:9/events',
      replyTimeoutSeconds: 600,
    });
    botId = bot.id;
    apiKey = bot.apiKey;
    await s.services.bots.setChannelBot(f.admin, f.channels[0]!.id, { botId });
  });
  after(async () => {
    await s?.close();
  });

  const state = async (chatId: string) =>
    (
      await sql<{ bot_due_at: Date | null; bot_id: string | null; queue: string }>`
        SELECT bot_due_at, bot_id, queue FROM chats WHERE id = ${chatId}`.execute(s.db)
    ).rows[0]!;

  it('a customer message makes the answer due; the bot’s answer clears it; the next message sets it again', async () => {
    const from = phone();
    const chatId = await f.inbound(0, from, 'Oi');
    const first = await state(chatId);
    assert.equal(first.bot_id, botId);
    assert.equal(first.queue, 'Automação');
    assert.ok(first.bot_due_at);
    // A second message before any answer keeps the first deadline.
    await f.inbound(0, from, 'Alô?');
    assert.deepEqual((await state(chatId)).bot_due_at, first.bot_due_at);
    const actor = await s.services.apiKeys.authenticate(`ApiKey ${apiKey}`);
    await s.services.send.acceptForChat(
      actor,
      chatId,
      { message: { type: 'text', text: { value: 'Olá!' } } },
      undefined,
    );
    assert.equal((await state(chatId)).bot_due_at, null);
    await f.inbound(0, from, 'E aí?');
    assert.ok((await state(chatId)).bot_due_at);
  });

  it('two claims at once hand each overdue conversation over exactly once', async () => {
    const chats: string[] = [];
    for (let i = 0; i < 6; i++) chats.push(await f.inbound(0, phone(), 'Oi'));
    await sql`UPDATE chats SET bot_due_at = now() - interval '1 second' WHERE id = ANY(${chats}::text[])`.execute(
      s.db,
    );
    const [a, b] = await Promise.all([
      s.services.botHold.handOverDue(100),
      s.services.botHold.handOverDue(100),
    ]);
    // The first message test's conversation is not overdue: only these six are handed over.
    assert.equal(a + b, 6);
    for (const id of chats) {
      const c = await state(id);
      assert.deepEqual([c.queue, c.bot_id, c.bot_due_at], ['Espera', null, null]);
    }
    const { rows } = await sql<{ chat: string; n: number; reason: string }>`
      SELECT data->'chat'->>'id' AS chat, count(*)::int AS n, min(data->>'reason') AS reason
      FROM events WHERE event = 'chat.bot_released' AND data->'chat'->>'id' = ANY(${chats}::text[])
      GROUP BY 1`.execute(s.db);
    assert.equal(rows.length, 6);
    // No delivery was attempted (no worker runs here): the endpoint is not known to fail.
    for (const r of rows) assert.deepEqual([r.n, r.reason], [1, 'timeout']);
    // Nothing is left to hand over.
    assert.equal(await s.services.botHold.handOverDue(100), 0);
  });
});

// The README's "Bots" walk-through as a newcomer follows it: the platform started as the README says
// (the built server, with the setting its command line gives), `atende demo` run for the `export`
// lines, then each block of the section run as written: the bot created and the channel routed (curl),
// the example bot started as a child process (`node examples/bot/bot.mjs`), a sandbox customer
// writing, then asking for a person. The test waits on events (a webhook of its own), never on time:
// the bot's answer through sendChatMessage, marked as the bot's; its hand-off; the chat in `Espera`.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase } from '../helpers/db.js';
import { childEnv, CLI, ROOT, runNode, startBuiltServer, WAIT_MS, type Child } from '../helpers/processes.js';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

/** The `sh` blocks of the README's section on bots, in order. */
async function botBlocks(): Promise<string[]> {
  const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('\n### 15. Bots');
  // Up to the next step or section of the README.
  const end = readme.slice(start + 1).search(/\n##+ /);
  const section = readme.slice(start, end < 0 ? undefined : start + 1 + end);
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

/** Runs a block in bash after `prelude`; answers its stdout, and fails on a non-zero exit. */
async function run(prelude: string, code: string): Promise<string> {
  const proc = spawn('bash', ['-c', `set -euo pipefail\n${prelude}\n${code}`], {
    cwd: ROOT,
    env: childEnv({}),
  });
  let out = '';
  let err = '';
  proc.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  proc.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const exit = await new Promise((resolve) => proc.on('exit', resolve));
  assert.equal(exit, 0, `${code}\n--- stdout ---\n${out}\n--- stderr ---\n${err}`);
  return out;
}

interface Envelope {
  event: string;
  data: {
    chatId?: string;
    chat?: { id: string; queue: string; botId?: string | null };
    message?: { origin: string; automation: string | null; botId: string | null; content: { text?: string } };
    reason?: string;
  };
}

describe('the example bot, as the README runs it', { timeout: 4 * WAIT_MS }, () => {
  let fresh: { url: string; drop: () => Promise<void> };
  let server: { child: Child; url: string } | undefined;
  let bot: ChildProcess | undefined;
  let receiver: WebhookReceiver;

  before(async () => {
    fresh = await createTestDatabase();
    receiver = await startReceiver();
  });
  after(async () => {
    bot?.kill('SIGTERM');
    server?.child.proc.kill('SIGKILL');
    await server?.child.exited;
    await receiver?.close();
    await fresh?.drop();
  });

  it('greets the customer through sendChatMessage and hands the conversation to Espera when asked', async () => {
    const [startCommand, create, runBot, firstMessage, askForPerson, ...rest] = await botBlocks();
    assert.equal(rest.length, 0, 'the section has the five steps this test follows');
    // 1. The platform, with the settings the README's command gives `npm start`.
    const settings = Object.fromEntries(
      [...startCommand!.matchAll(/(?:^|\s)([A-Z][A-Z0-9_]*)=(\S+)/g)].map((m) => [m[1]!, m[2]!]),
    );
    assert.match(startCommand!, /\bnpm start\b/);
    assert.equal(settings.ATENDE_WEBHOOK_ALLOW_PRIVATE_NETWORKS, 'true');
    server = await startBuiltServer({ DATABASE_URL: fresh.url, ...settings });
    const demo = await runNode(CLI, ['demo'], { DATABASE_URL: fresh.url, HOST: '127.0.0.1' });
    assert.equal(demo.code, 0, demo.stderr);
    const exports = demo.stdout
      .split('\n')
      .filter((l) => l.startsWith('export '))
      .join('\n');
    // The test's own eyes on the account: a webhook of every message and hand-off.
    await run(
      exports,
      `curl -sf -X POST "$BASE/api/webhooks" -H "$AUTH" -H 'Content-Type: application/json' \\
        -d '{"url":"${receiver.url}","events":["message.upsert","chat.bot_released"]}' >/dev/null`,
    );

    // 2. The bot created, the channel routed; what the block exports, the next blocks have.
    const created = await run(exports, `${create}\necho\necho "BOT_ENV $BOT_API_KEY $BOT_SECRET $BOT_ID"`);
    const [, apiKey, secret, botId] = /^BOT_ENV (\S+) (\S+) (\S+)$/m.exec(created) ?? [];
    assert.ok(apiKey && secret && botId, created);
    const botExports = `${exports}\nexport BOT_API_KEY=${apiKey} BOT_SECRET=${secret}`;

    // 3. The example, as a child process of the shell the README runs it in.
    bot = spawn('bash', ['-c', `set -euo pipefail\n${botExports}\nexec ${runBot!.trim()}`], {
      cwd: ROOT,
      env: childEnv({}),
    });
    let botOut = '';
    bot.stdout!.on('data', (c: Buffer) => (botOut += c.toString('utf8')));
    bot.stderr!.on('data', (c: Buffer) => (botOut += c.toString('utf8')));
    await new Promise<void>((resolve, reject) => {
      bot!.stdout!.on('data', () => botOut.includes('bot listening') && resolve());
      bot!.on('exit', () => reject(new Error(`the bot exited:\n${botOut}`)));
    });

    // 4. A customer writes: the bot answers through sendChatMessage, as the bot.
    await run(botExports, firstMessage!);
    const answer = JSON.parse(
      (
        await receiver.next((r) => {
          const e = JSON.parse(r.body) as Envelope;
          return e.event === 'message.upsert' && e.data.message?.origin === 'api';
        })
      ).body,
    ) as Envelope;
    assert.equal(answer.data.message?.automation, 'bot');
    assert.equal(answer.data.message?.botId, botId);
    assert.match(String(answer.data.message?.content.text), /^Olá! Sou o assistente virtual/);
    const chatId = answer.data.chatId!;

    // 5. The customer asks for a person: the bot says so, and hands the conversation over.
    await run(botExports, askForPerson!);
    const released = JSON.parse(
      (await receiver.next((r) => (JSON.parse(r.body) as Envelope).event === 'chat.bot_released')).body,
    ) as Envelope;
    assert.equal(released.data.reason, 'handoff', botOut);
    assert.equal(released.data.chat?.id, chatId);
    assert.equal(released.data.chat?.queue, 'Espera');
    assert.equal(released.data.chat?.botId, null);
    // The bot's last words were accepted before the hand-off; their send may come after it.
    await receiver.next((r) => {
      const e = JSON.parse(r.body) as Envelope;
      return e.event === 'message.upsert' && /^Claro!/.test(String(e.data.message?.content.text));
    });
    const texts = JSON.parse(
      await run(exports, `curl -sf "$BASE/api/chats/${chatId}/messages" -H "$AUTH"`),
    ) as { messages: { origin: string; automation: string | null; content: { text?: string } }[] };
    const said = texts.messages
      .slice()
      .reverse()
      .map((m) => [m.origin, m.automation, m.content.text]);
    assert.deepEqual(said, [
      ['contact', null, 'Oi, bom dia'],
      ['api', 'bot', said[1]![2]],
      ['contact', null, 'Quero falar com uma pessoa'],
      ['api', 'bot', 'Claro! Vou transferir você para um atendente. Um momento, por favor.'],
    ]);
  });
});

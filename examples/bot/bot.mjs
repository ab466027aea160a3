// An Atende bot in plain Node.js (20 or newer, no dependencies): it receives the events of the
// conversations it holds (signed webhooks), greets the customer, answers a few words through the
// Channel API, and hands the conversation to a team when the customer asks for a person.
//
//   BASE=http://127.0.0.1:3000 BOT_API_KEY=ak_… BOT_SECRET=whsec_… node examples/bot/bot.mjs
//
// BOT_PORT (default 4100) is where it listens for events (`POST /events`); BOT_HANDOFF_TEAM_ID, the
// team it hands conversations to (default: the conversation's own team, where the channel sends them).
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';

const BASE = (process.env.BASE ?? 'http://127.0.0.1:3000').replace(/\/$/, '');
const API_KEY = need('BOT_API_KEY');
const SECRET = need('BOT_SECRET');
const PORT = Number(process.env.BOT_PORT ?? 4100);
const HANDOFF_TEAM_ID = process.env.BOT_HANDOFF_TEAM_ID || null;
/** A signature older than this is refused: a replayed request. */
const TOLERANCE_S = 300;

function need(name) {
  const value = process.env[name];
  if (!value) {
    console.error(`${name} is not set: create the bot (POST /api/bots) and export its apiKey and secret`);
    process.exit(1);
  }
  return value;
}

/** `Atende-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>` (docs/webhooks.md). */
function verified(header, rawBody) {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header ?? '');
  if (!m) return false;
  if (Math.abs(Date.now() / 1000 - Number(m[1])) > TOLERANCE_S) return false;
  const expected = createHmac('sha256', SECRET).update(`${m[1]}.${rawBody}`).digest();
  return timingSafeEqual(expected, Buffer.from(m[2], 'hex'));
}

/** Lower case, without accents: "Olá" and "ola" are the same word to the bot. */
const plain = (text) =>
  text
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .toLowerCase();

/** What the bot says to a customer's text; `handoff` when a person should take over. */
function answer(text) {
  const t = plain(text);
  if (/\b(pessoa|atendente|humano|alguem)\b/.test(t))
    return { text: 'Claro! Vou transferir você para um atendente. Um momento, por favor.', handoff: true };
  if (/\b(horario|abre|fecha)\b/.test(t)) return { text: 'Atendemos de segunda a sexta, das 9h às 18h.' };
  if (/\b(pedido|entrega|rastre)/.test(t))
    return { text: 'Para saber do seu pedido, me diga o número dele (ex.: 12345).' };
  if (/\b(oi|ola|bom dia|boa tarde|boa noite)\b/.test(t))
    return {
      text: 'Olá! Sou o assistente virtual. Posso ajudar com horários e pedidos, ou chamar um atendente: é só pedir.',
    };
  return { text: 'Não entendi. Escreva "horário", "pedido" ou "atendente".' };
}

async function api(method, path, body) {
  const res = await fetch(`${BASE}${path}`, {
    method,
    headers: { authorization: `ApiKey ${API_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${await res.text()}`);
  return res.json();
}

/** Each conversation's team, as its events show it (the hand-off's default). */
const teams = new Map();
/** Deliveries already handled: a retried one (same `Atende-Delivery`) is answered, not handled again. */
const seen = new Set();

async function handle(envelope) {
  const { event, data } = envelope;
  if (data.chat) teams.set(data.chat.id, data.chat.teamId);
  if (event === 'chat.bot_released') {
    console.log(`conversation ${data.chat.id} is no longer mine (${data.reason})`);
    teams.delete(data.chat.id);
    return;
  }
  // The customer's messages only: the bot's own (origin `api`) come back as events too.
  if (event !== 'message.upsert' || data.message.origin !== 'contact') return;
  const text = typeof data.message.content?.text === 'string' ? data.message.content.text : '';
  const reply = answer(text);
  await api('POST', `/channel-api/chats/${data.chatId}/messages`, {
    message: { type: 'text', text: { value: reply.text } },
  });
  console.log(`answered in ${data.chatId}: ${reply.text}`);
  if (reply.handoff) {
    const teamId = HANDOFF_TEAM_ID ?? teams.get(data.chatId);
    await api('POST', `/channel-api/chats/${data.chatId}/transfer/team`, {
      teamId,
      reason: 'O cliente pediu um atendente',
    });
    console.log(`handed ${data.chatId} to team ${teamId}`);
  }
}

const server = http.createServer((req, res) => {
  if (req.method !== 'POST' || req.url !== '/events') return res.writeHead(404).end();
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const raw = Buffer.concat(chunks).toString('utf8');
    if (!verified(req.headers['atende-signature'], raw)) return res.writeHead(401).end();
    // Answered at once (a slow answer is retried); the work goes on after.
    res.writeHead(204).end();
    const delivery = String(req.headers['atende-delivery']);
    if (seen.has(delivery)) return;
    seen.add(delivery);
    // The oldest first out: a Set iterates in insertion order.
    if (seen.size > 10_000) seen.delete(seen.values().next().value);
    handle(JSON.parse(raw)).catch((err) => console.error(err.message));
  });
});
server.listen(PORT, '127.0.0.1', () => console.log(`bot listening on http://127.0.0.1:${PORT}/events`));
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.close(() => process.exit(0)));

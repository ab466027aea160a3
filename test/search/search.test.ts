import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { newId } from '../../src/lib/ids.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';

// The search box: messages by their words (Portuguese stemming, accents and case ignored), contacts and
// conversations by the customer, each only where the reader may open it; and a conversation opened at a
// message (the messages around it).

interface Piece {
  text: string;
  match: boolean;
}
interface Hit {
  id: string;
  chatId: string;
  highlight: Piece[];
  chat: { id: string; status: string; channelId: string; customerId: string };
}
interface Page<T> {
  page: number;
  limit: number;
  hasNextPage: boolean;
  nextPage: number | null;
  results: T[];
}

describe('search', () => {
  let t: TestApp;
  let f: Fixture;
  let other: Fixture;
  let db: pg.Pool;
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const get = (token: string, path: string, lang?: string) =>
    t.request('GET', path, { headers: { ...bearer(token), ...(lang ? { 'accept-language': lang } : {}) } });
  const search = async (token: string, q: string, extra = '', path = '/api/search') => {
    const res = await get(token, `${path}?q=${encodeURIComponent(q)}${extra}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as Page<Hit>;
  };
  const chatsOf = (page: Page<Hit>) => page.results.map((h) => h.chatId).sort();
  const messageOf = async (chatId: string) =>
    (
      await db.query<{ id: string }>(
        'SELECT id FROM messages WHERE chat_id = $1 ORDER BY created_at LIMIT 1',
        [chatId],
      )
    ).rows[0]!.id;

  // Chats by what their first message says.
  const c: Record<string, string> = {};

  before(async () => {
    t = await startTestApp({ env: { ATENDE_ROLES: 'api' } });
    f = await seedAccount(t.server.services);
    other = await seedAccount(t.server.services);
    db = new pg.Pool({ connectionString: t.databaseUrl, max: 2 });
    c.acao = await f.inbound(0, '5511922220001', 'A AÇÃO foi cancelada', 'Joana Conceição');
    c.acoes = await f.inbound(0, '5511922220002', 'Quero saber das ações da empresa', 'Caio');
    c.pagamento = await f.inbound(0, '5511922220003', 'Pagamento atrasado', 'Rita');
    c.pagamentos = await f.inbound(1, '5511922220004', 'Não recebi os pagamentos de março', 'Bruno');
    c.html = await f.inbound(
      1,
      '5511922220005',
      'Meu nome é <b>pagamento</b> <script>alert(1)</script>',
      'Zuleica',
    );
    c.foreign = await other.inbound(0, '5511922220001', 'ação de pagamento', 'Joana');
  });
  after(async () => {
    await db?.end();
    await t?.close();
  });

  it('finds words whatever their accents, case and Portuguese inflection', async () => {
    for (const q of ['acoes', 'ação', 'AÇÕES', 'acao']) {
      assert.deepEqual(chatsOf(await search(f.adminToken, q)), [c.acao!, c.acoes!].sort(), q);
    }
    for (const q of ['pagamentos', 'Pagamento', 'PAGAMENTO']) {
      assert.deepEqual(
        chatsOf(await search(f.adminToken, q)),
        [c.pagamento!, c.pagamentos!, c.html!].sort(),
        q,
      );
    }
    // Every word must be there; a phrase in order; `-word` excludes.
    assert.deepEqual(chatsOf(await search(f.adminToken, 'pagamento atrasado')), [c.pagamento!]);
    assert.deepEqual(chatsOf(await search(f.adminToken, '"recebi pagamentos"')), []);
    assert.deepEqual(chatsOf(await search(f.adminToken, '"recebi os pagamentos"')), [c.pagamentos!]);
    assert.deepEqual(
      chatsOf(await search(f.adminToken, 'pagamento -atrasado')),
      [c.pagamentos!, c.html!].sort(),
    );
    assert.deepEqual(chatsOf(await search(f.adminToken, 'boleto')), []);
  });

  it('marks the words found, as plain text pieces (markup in a message stays text)', async () => {
    const hit = (await search(f.adminToken, 'acoes')).results.find((h) => h.chatId === c.acoes)!;
    assert.deepEqual(hit.highlight, [
      { text: 'Quero saber das ', match: false },
      { text: 'ações', match: true },
      { text: ' da empresa', match: false },
    ]);
    assert.equal(hit.id, await messageOf(c.acoes!));
    assert.equal(hit.chat.status, 'open');
    const html = (await search(f.adminToken, 'pagamento')).results.find((h) => h.chatId === c.html)!;
    assert.equal(
      html.highlight.map((p) => p.text).join(''),
      'Meu nome é <b>pagamento</b> <script>alert(1)</script>',
    );
    assert.deepEqual(
      html.highlight.filter((p) => p.match).map((p) => p.text),
      ['pagamento'],
    );
  });

  it('a long message is cut around its match', async () => {
    const long = `${'palavra '.repeat(60)}reembolso ${'depois '.repeat(60)}`.trim();
    const chatId = await f.inbound(0, '5511922220006', long);
    const [hit] = (await search(f.adminToken, 'reembolso')).results;
    assert.equal(hit!.chatId, chatId);
    const text = hit!.highlight.map((p) => p.text).join('');
    assert.ok(text.length <= 202, String(text.length));
    assert.ok(text.startsWith('…') && text.endsWith('…'));
    assert.deepEqual(
      hit!.highlight.filter((p) => p.match).map((p) => p.text),
      ['reembolso'],
    );
  });

  it('an agent finds only what they may open: their teams, their chats; never another account', async () => {
    const agent0 = f.agents[0]!.token;
    const agent1 = f.agents[1]!.token;
    assert.deepEqual(chatsOf(await search(agent0, 'pagamento')), [c.pagamento!]);
    assert.deepEqual(chatsOf(await search(agent1, 'pagamento')), [c.pagamentos!, c.html!].sort());
    assert.deepEqual(chatsOf(await search(other.adminToken, 'pagamento')), [c.foreign!]);
    // Given a chat of the other team, agent 0 finds it too.
    const moved = await t.request('POST', `/api/chats/${c.pagamentos}/transfer`, {
      headers: bearer(f.adminToken),
      body: { userId: f.agents[0]!.id },
    });
    assert.equal(moved.status, 200);
    assert.deepEqual(chatsOf(await search(agent0, 'pagamento')), [c.pagamento!, c.pagamentos!].sort());
    // The same rule for contacts and conversations.
    const contacts = (await search(agent0, 'Bruno', '', '/api/search/contacts')) as unknown as Page<{
      id: string;
    }>;
    assert.equal(contacts.results.length, 1);
    const hidden = (await search(agent0, 'Zuleica', '', '/api/search/contacts')) as unknown as Page<{
      id: string;
    }>;
    assert.equal(hidden.results.length, 0);
    assert.equal((await search(other.adminToken, 'Bruno', '', '/api/search/chats')).results.length, 0);
  });

  it('filters by channel, team, attendant, label and date', async () => {
    const admin = f.adminToken;
    const q = 'pagamento';
    assert.deepEqual(
      chatsOf(await search(admin, q, `&channelId=${f.channels[1]!.id}`)),
      [c.pagamentos!, c.html!].sort(),
    );
    assert.deepEqual(chatsOf(await search(admin, q, `&teamId=${f.teams[0]!.id}`)), [c.pagamento!]);
    const capture = await t.request('POST', `/api/chats/${c.pagamento}/capture`, {
      headers: bearer(f.agents[0]!.token),
    });
    assert.equal(capture.status, 200);
    assert.deepEqual(
      chatsOf(await search(admin, q, `&userId=${f.agents[0]!.id}`)).includes(c.pagamento!),
      true,
    );
    assert.equal(chatsOf(await search(admin, q, `&userId=${f.agents[0]!.id}`)).includes(c.html!), false);

    const labelId = newId();
    await db.query(`INSERT INTO labels (id, account_id, name, color) VALUES ($1, $2, 'VIP', '#ff0000')`, [
      labelId,
      f.accountId,
    ]);
    await db.query(`INSERT INTO chat_labels (chat_id, label_id, account_id) VALUES ($1, $2, $3)`, [
      c.html,
      labelId,
      f.accountId,
    ]);
    assert.deepEqual(chatsOf(await search(admin, q, `&labelId=${labelId}`)), [c.html!]);
    assert.deepEqual(
      (await search(admin, 'Zuleica', `&labelId=${labelId}`, '/api/search/chats')).results.length,
      1,
    );

    await db.query(`UPDATE messages SET created_at = '2020-01-10T12:00:00Z' WHERE chat_id = $1`, [
      c.pagamento,
    ]);
    const range = '&since=2020-01-01T00:00:00Z&until=2020-02-01T00:00:00Z';
    assert.deepEqual(chatsOf(await search(admin, q, range)), [c.pagamento!]);
    assert.equal(
      chatsOf(await search(admin, q, '&since=2021-01-01T00:00:00Z')).includes(c.pagamento!),
      false,
    );
  });

  it('finds a closed conversation by a word of its messages, and opens it at that message', async () => {
    const chatId = await f.inbound(0, '5511922220007', 'Primeira');
    const agent = f.agents[0]!.token;
    const texts = ['dois', 'três', 'A nota fiscal chegou?', 'cinco', 'seis', 'sete'];
    for (const text of texts) await f.inbound(0, '5511922220007', text);
    assert.equal(
      (await t.request('POST', `/api/chats/${chatId}/capture`, { headers: bearer(agent) })).status,
      200,
    );
    assert.equal(
      (await t.request('POST', `/api/chats/${chatId}/close`, { headers: bearer(agent) })).status,
      200,
    );

    const [hit] = (await search(agent, 'notas fiscais')).results;
    assert.equal(hit!.chatId, chatId);
    assert.equal(hit!.chat.status, 'closed');
    const around = await get(agent, `/api/chats/${chatId}/messages?around=${hit!.id}&limit=3`);
    assert.equal(around.status, 200);
    const body = around.json as {
      messages: { id: string; content: { text: string } }[];
      nextBefore: string | null;
      nextAfter: string | null;
    };
    // Newest first: one newer, the match, one older.
    assert.deepEqual(
      body.messages.map((m) => m.content.text),
      ['cinco', 'A nota fiscal chegou?', 'três'],
    );
    assert.equal(body.nextBefore, body.messages[2]!.id);
    assert.equal(body.nextAfter, body.messages[0]!.id);
    const newer = await get(agent, `/api/chats/${chatId}/messages?after=${body.nextAfter}&limit=5`);
    assert.deepEqual(
      (newer.json.messages as { content: { text: string } }[]).map((m) => m.content.text),
      ['sete', 'seis'],
    );
    assert.equal(newer.json.nextAfter, null);
    assert.equal(newer.json.nextBefore, (newer.json.messages as { id: string }[])[1]!.id);
    const older = await get(agent, `/api/chats/${chatId}/messages?before=${body.nextBefore}&limit=5`);
    assert.deepEqual(
      (older.json.messages as { content: { text: string } }[]).map((m) => m.content.text),
      ['dois', 'Primeira'],
    );
    assert.equal(older.json.nextBefore, null);
    // The newest page has nothing newer.
    const newest = await get(agent, `/api/chats/${chatId}/messages?limit=2`);
    assert.equal(newest.json.nextAfter, null);

    // Another chat's message, or two cursors, are 400; another team's agent gets 404.
    const foreign = await get(
      agent,
      `/api/chats/${chatId}/messages?around=${await messageOf(c.acao!)}`,
      'pt-BR',
    );
    assert.equal(foreign.status, 400);
    assert.deepEqual(foreign.json.message, ['around deve ser o id de uma mensagem desta conversa']);
    const two = await get(agent, `/api/chats/${chatId}/messages?around=${hit!.id}&before=${hit!.id}`);
    assert.equal(two.status, 400);
    assert.deepEqual(two.json.message, ['at most one of before, after or around may be given']);
    assert.equal(
      (await get(f.agents[1]!.token, `/api/chats/${chatId}/messages?around=${hit!.id}`)).status,
      404,
    );
  });

  it('contacts: a part of the name without accents, or of the number typed any way', async () => {
    const byName = (await search(f.adminToken, 'conceicao', '', '/api/search/contacts')) as unknown as Page<{
      name: string;
      customerId: string;
      chat: { id: string };
    }>;
    assert.deepEqual(
      byName.results.map((r) => [r.name, r.chat.id]),
      [['Joana Conceição', c.acao!]],
    );
    for (const q of ['+55 (11) 92222-0001', '922220001', '2222 0001']) {
      const page = (await search(f.adminToken, q, '', '/api/search/contacts')) as unknown as Page<{
        value: string;
      }>;
      assert.deepEqual(
        page.results.map((r) => r.value),
        ['5511922220001'],
        q,
      );
    }
  });

  it('contacts: each once, with its newest conversation the user may open, newest first', async () => {
    type ContactPage = Page<{ name: string; chat: { id: string } }>;
    // Rebeca Um: a closed conversation of team 0, then a newer one moved to team 1; Rebeca Dois: newer.
    const older = await f.inbound(0, '5511922230001', 'Oi', 'Rebeca Um');
    await t.request('POST', `/api/chats/${older}/close`, { headers: bearer(f.adminToken) });
    const newer = await f.inbound(0, '5511922230001', 'Oi de novo', 'Rebeca Um');
    const moved = await t.request('POST', `/api/chats/${newer}/transfer`, {
      headers: bearer(f.adminToken),
      body: { teamId: f.teams[1]!.id },
    });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    const other = await f.inbound(0, '5511922230002', 'Olá', 'Rebeca Dois');
    const found = async (token: string, extra = '') =>
      ((await search(token, 'rebeca', extra, '/api/search/contacts')) as unknown as ContactPage).results.map(
        (r) => [r.name, r.chat.id],
      );
    assert.deepEqual(await found(f.adminToken), [
      ['Rebeca Dois', other],
      ['Rebeca Um', newer],
    ]);
    // Agent 0 (team 0) may open only the older conversation of Rebeca Um's.
    assert.deepEqual(await found(f.agents[0]!.token), [
      ['Rebeca Dois', other],
      ['Rebeca Um', older],
    ]);
    // Agent 1 (team 1) sees Rebeca Um through the conversation moved to their team, and not Rebeca Dois.
    assert.deepEqual(await found(f.agents[1]!.token), [['Rebeca Um', newer]]);
    assert.deepEqual(await found(f.adminToken, '&limit=1&page=2'), [['Rebeca Um', newer]]);
  });

  it('conversations: open and closed, by the customer', async () => {
    const closed = await f.inbound(1, '5511922220008', 'Oi', 'Marcela');
    await t.request('POST', `/api/chats/${closed}/close`, { headers: bearer(f.adminToken) });
    const reopened = await f.inbound(1, '5511922220008', 'Oi de novo', 'Marcela');
    const page = (await search(f.adminToken, 'marcela', '', '/api/search/chats')) as unknown as Page<{
      id: string;
      status: string;
    }>;
    assert.deepEqual(
      page.results.map((r) => [r.id, r.status]),
      [
        [reopened, 'open'],
        [closed, 'closed'],
      ],
    );
  });

  it('matches months apart come newest first, page after page', async () => {
    // Read by 30-day periods (the newest message's, the one before, then the rest): a page may take
    // its rows from several, and none is skipped or repeated.
    const daysAgo = [0, 20, 45, 70, 400];
    const chats: string[] = [];
    for (const [i, days] of daysAgo.entries()) {
      const chat = await f.inbound(i % 2, `55119333300${i}`, `A tartaruga número ${i} chegou`, `T${i}`);
      await db.query(
        `UPDATE messages SET created_at = now() - make_interval(days => $2::int) - interval '1 hour' WHERE chat_id = $1`,
        [chat, days],
      );
      chats.push(chat);
    }
    // Two thousand other messages, analyzed: the planner then takes the word for rare (in under
    // 0.5 % of the table's messages), which is when a search reads by period.
    await db.query(
      `INSERT INTO messages (id, account_id, chat_id, channel_id, origin, type, content, status, created_at)
       SELECT substr(md5(random()::text), 1, 24), account_id, chat_id, channel_id, origin, type,
              '{"text": "Mensagem de enchimento"}', status, created_at - make_interval(secs => n)
       FROM messages, generate_series(1, 2000) AS n WHERE chat_id = $1`,
      [chats[0]],
    );
    await db.query('ANALYZE messages');
    const pages: string[][] = [];
    for (let page = 1; page <= 3; page++) {
      const res = await search(f.adminToken, 'tartarugas', `&limit=2&page=${page}`);
      assert.equal(res.hasNextPage, page < 3);
      pages.push(res.results.map((h) => h.chatId));
    }
    assert.deepEqual(pages, [chats.slice(0, 2), chats.slice(2, 4), chats.slice(4)]);
    // The agent of team 0 sees the chats of channel 0 only, still in order.
    const agent = await search(f.agents[0]!.token, 'tartaruga', '&limit=50');
    assert.deepEqual(
      agent.results.map((h) => h.chatId),
      [chats[0], chats[2], chats[4]],
    );
  });

  it('pages are bounded, and read one past their end', async () => {
    const one = await search(f.adminToken, 'pagamento', '&limit=1');
    assert.equal(one.results.length, 1);
    assert.equal(one.hasNextPage, true);
    assert.equal(one.nextPage, 2);
    const last = await search(f.adminToken, 'pagamento', '&limit=50');
    assert.equal(last.hasNextPage, false);
    for (const bad of ['&page=21', '&limit=51', '&since=yesterday', '&channelId=nope']) {
      assert.equal((await get(f.adminToken, `/api/search?q=x${bad}`)).status, 400, bad);
    }
    assert.equal((await get(f.adminToken, '/api/search?q=%20')).status, 400);
    assert.equal((await get(f.adminToken, `/api/search?q=${'a'.repeat(201)}`)).status, 400);
    assert.equal((await get(f.adminToken, '/api/search')).status, 400);
    assert.equal((await t.request('GET', '/api/search?q=x')).status, 401);
    // Only stop words: nothing to find, not an error.
    assert.deepEqual((await search(f.adminToken, 'de o a')).results, []);
  });
});

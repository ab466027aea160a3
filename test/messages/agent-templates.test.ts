import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { FakeGraph } from '../helpers/fake-graph.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { createWhatsAppChannel } from '../helpers/whatsapp.js';

// Reaching a customer after 24 hours: the chat's customer-service window, agents' template replies
// (checked with the Channel API's rules, sent through the channel's provider), and the channel's
// approved templates listed from the provider.

interface Message {
  id: string;
  chatId: string;
  origin: string;
  type: string;
  content: Record<string, unknown>;
  status: string;
  providerMessageId: string | null;
  error: { code: string; message: string } | null;
  userId: string | null;
  createdAt: string;
}
interface ChatWindow {
  open: boolean;
  expiresAt: string | null;
}
interface Chat {
  id: string;
  userId: string | null;
  lastMessage: { content: string; type: string } | null;
  window: ChatWindow;
}

const NOT_FOUND = { statusCode: 404, message: 'Not Found', error: 'Not Found' };
const WINDOW_CLOSED = {
  statusCode: 409,
  message:
    'A janela de 24 horas está fechada: o cliente não escreveu nas últimas 24 horas; envie um modelo (template) aprovado',
  error: 'Conflict',
};
const badRequest = (...message: string[]) => ({ statusCode: 400, message, error: 'Bad Request' });
const DAY_MS = 24 * 60 * 60 * 1000;
const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

let phoneSeq = 0;
const phone = () => `5511986${String(++phoneSeq).padStart(6, '0')}`;

/** Templates as Graph lists them: one named, one positional with a text header and a url button. */
const GRAPH_TEMPLATES = [
  {
    name: 'pedido_confirmado',
    language: 'pt_BR',
    status: 'APPROVED',
    category: 'UTILITY',
    parameter_format: 'POSITIONAL',
    components: [
      { type: 'HEADER', format: 'TEXT', text: 'Pedido {{1}}' },
      { type: 'BODY', text: 'Olá {{1}}, seu pedido {{2}} foi confirmado.' },
      { type: 'FOOTER', text: 'Loja Exemplo' },
      {
        type: 'BUTTONS',
        buttons: [
          { type: 'URL', text: 'Acompanhar', url: 'https://loja.example/pedidos/{{1}}' },
          { type: 'QUICK_REPLY', text: 'Falar com atendente' },
        ],
      },
    ],
  },
  {
    name: 'retomar_conversa',
    language: 'pt_BR',
    status: 'APPROVED',
    category: 'MARKETING',
    parameter_format: 'NAMED',
    components: [{ type: 'BODY', text: 'Oi {{first_name}}! Podemos continuar? {{first_name}}, responda.' }],
  },
  {
    name: 'em_revisao',
    language: 'pt_BR',
    status: 'PENDING',
    category: 'UTILITY',
    components: [{ type: 'BODY', text: 'Ainda não aprovado' }],
  },
];

describe('Reaching a customer after 24 hours', () => {
  let t: TestApp;
  let f: Fixture;
  let other: Fixture;
  let db: pg.Pool;
  let graph: FakeGraph;

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const agent = (i: number) => bearer(f.agents[i]!.token);
  const admin = () => bearer(f.adminToken);
  const post = (path: string, headers: Record<string, string>, body?: unknown) =>
    t.request('POST', path, { headers, ...(body !== undefined ? { body } : {}) });
  const get = (path: string, headers: Record<string, string>) => t.request('GET', path, { headers });
  const chatOf = async (chatId: string, headers = admin()) =>
    (await get(`/api/chats/${chatId}`, headers)).json as unknown as Chat;
  /** An open chat on sandbox channel 0 (team 0) captured by agent 0. */
  const attended = async () => {
    const chatId = await f.inbound(0, phone(), 'Preciso de ajuda');
    assert.equal((await post(`/api/chats/${chatId}/capture`, agent(0))).status, 200);
    return chatId;
  };
  /** Moves the customer's last message back in time, as if they had written `hoursAgo` hours ago. */
  const lastWrote = async (chatId: string, hoursAgo: number) => {
    await db.query(
      `UPDATE contacts SET last_inbound_at = now() - make_interval(hours => $2)
        WHERE id = (SELECT contact_id FROM chats WHERE id = $1)`,
      [chatId, hoursAgo],
    );
  };
  const settled = async (id: string, final: string[]): Promise<Message> => {
    for (let i = 0; i < 300; i++) {
      const r = await db.query<{ status: string }>('SELECT status FROM messages WHERE id = $1', [id]);
      if (final.includes(r.rows[0]?.status ?? '')) {
        const history = await get(`/api/chats/${await chatIdOf(id)}/messages`, admin());
        const found = (history.json.messages as Message[]).find((m) => m.id === id);
        assert.ok(found);
        return found;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.fail(`message ${id} did not reach ${final.join(' or ')}`);
  };
  const chatIdOf = async (messageId: string) =>
    (await db.query<{ chat_id: string }>('SELECT chat_id FROM messages WHERE id = $1', [messageId])).rows[0]!
      .chat_id;

  /** A WhatsApp channel of team 0 (with the business account id when `waba` is given). */
  const whatsappChannel = async (n: number, waba?: string) =>
    createWhatsAppChannel(f, {
      phoneNumberId: `2065403522429${n}`,
      ...(waba ? { businessAccountId: waba } : {}),
    });
  /** A WhatsApp chat captured by agent 0, opened by the customer's message. */
  const whatsappChat = async (n: number) => {
    const channel = await whatsappChannel(n);
    const row = await f.services.repos.channels.find(f.accountId, channel.id);
    assert.ok(row);
    const received = await f.services.inbound.receive(row, {
      contact: { value: `55119876511${n}`, name: 'Cliente', providerAddress: `55119876511${n}` },
      type: 'text',
      content: { text: 'Oi' },
      summary: 'Oi',
      providerMessageId: `wamid.templates.inbound.${n}`,
    });
    assert.equal(received.duplicate, false);
    const chatId = received.duplicate ? '' : received.chatId;
    assert.equal((await post(`/api/chats/${chatId}/capture`, agent(0))).status, 200);
    return { chatId, phoneNumberId: channel.phoneNumberId, waId: `+55119876511${n}` };
  };

  before(async () => {
    graph = await FakeGraph.start();
    graph.setTemplates('900000000000001', GRAPH_TEMPLATES);
    t = await startTestApp({ env: { WHATSAPP_GRAPH_BASE_URL: graph.url } });
    f = await seedAccount(t.server.services);
    other = await seedAccount(t.server.services);
    db = new pg.Pool({ connectionString: t.databaseUrl, max: 3 });
  });
  after(async () => {
    await db?.end();
    await t?.close();
    await graph?.close();
  });

  describe('the chat’s 24-hour window', () => {
    it('opens with each customer message, for 24 hours, on the agent API, its lists and events', async () => {
      const from = phone();
      const before = await f.services.events.horizon.fresh();
      const chatId = await f.inbound(0, from, 'Oi');
      const stored = await db.query<{ at: Date }>(
        'SELECT ct.last_inbound_at AS at FROM chats c JOIN contacts ct ON ct.id = c.contact_id WHERE c.id = $1',
        [chatId],
      );
      const expiresAt = new Date(stored.rows[0]!.at.getTime() + DAY_MS).toISOString();
      const chat = await chatOf(chatId, agent(0));
      assert.deepEqual(chat.window, { open: true, expiresAt });
      const list = await get('/api/chats?queue=Espera', agent(0));
      const listed = (list.json.chats as Chat[]).find((c) => c.id === chatId);
      assert.deepEqual(listed?.window, { open: true, expiresAt });
      // The Channel API's Chat stays the contract's: no window there.
      const api = await t.request('GET', `/channel-api/chats?channelId=${f.channels[0]!.id}`, {
        headers: f.authHeader(),
      });
      const apiChat = (api.json.chats as Record<string, unknown>[]).find((c) => c.id === chatId);
      assert.ok(apiChat);
      assert.equal('window' in apiChat, false);

      // A second message moves the window on, and the chat.update event carries it.
      await db.query(
        "UPDATE contacts SET last_inbound_at = last_inbound_at - interval '2 hours' WHERE id = (SELECT contact_id FROM chats WHERE id = $1)",
        [chatId],
      );
      await f.inbound(0, from, 'Ainda aí?');
      const moved = await chatOf(chatId);
      assert.equal(moved.window.open, true);
      assert.ok(moved.window.expiresAt! > expiresAt, `${moved.window.expiresAt} > ${expiresAt}`);
      const events = await get(`/api/events?after=${before}`, admin());
      const updates = (events.json.events as { event: string; data: { chat: Chat } }[]).filter(
        (e) => e.event === 'chat.update' && e.data.chat.id === chatId,
      );
      assert.deepEqual(updates.at(-1)?.data.chat.window, moved.window);
      const created = (events.json.events as { event: string; data: { chat: Chat } }[]).find(
        (e) => e.event === 'chat.new' && e.data.chat.id === chatId,
      );
      assert.deepEqual(created?.data.chat.window, { open: true, expiresAt });
    });

    it('is closed, with no expiry, for a chat the customer never wrote in (opened by the Channel API)', async () => {
      await f.services.channels.update(f.admin, f.channels[1]!.id, { apiEnabled: true });
      const { apiKey } = await f.services.channels.rotateApiKey(f.admin, f.channels[1]!.id);
      const to = phone();
      const sent = await t.request('POST', '/channel-api/messages/send', {
        headers: { 'x-channel-api-key': apiKey },
        body: { contact: { value: to }, message: { type: 'text', text: { value: 'Sua fatura chegou' } } },
      });
      assert.equal(sent.status, 201, JSON.stringify(sent.body));
      // The chat is there once the send's message is stored: until then the send pipeline may hold
      // the chat's row, and a transfer to a user answers 409 at once rather than wait for it.
      let chatId: string | undefined;
      for (let i = 0; i < 300 && !chatId; i++) {
        const r = await db.query<{ id: string }>(
          `SELECT c.id FROM chats c JOIN contacts ct ON ct.id = c.contact_id
            JOIN messages m ON m.chat_id = c.id
            WHERE c.channel_id = $1 AND ct.value = $2`,
          [f.channels[1]!.id, to],
        );
        chatId = r.rows[0]?.id;
        if (!chatId) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.ok(chatId, 'the send opened a chat');
      assert.deepEqual((await chatOf(chatId)).window, { open: false, expiresAt: null });

      // Given to agent 1 (team 1): free text is refused, a template goes.
      const moved = await post(`/api/chats/${chatId}/transfer`, admin(), { userId: f.agents[1]!.id });
      assert.equal(moved.status, 200, JSON.stringify(moved.body));
      const text = await post(`/api/chats/${chatId}/messages`, agent(1), { text: 'Oi, tudo bem?' });
      assert.deepEqual([text.status, text.body], [409, WINDOW_CLOSED]);
      const template = await post(`/api/chats/${chatId}/messages`, agent(1), {
        template: { name: 'retomar_conversa', variables: { body: [{ key: 'first_name', value: 'Ana' }] } },
      });
      assert.equal(template.status, 201, JSON.stringify(template.body));
    });

    it('refuses free text and media 24 hours after the customer’s last message, until they write again', async () => {
      const chatId = await attended();
      await lastWrote(chatId, 23);
      const stillOpen = await chatOf(chatId);
      assert.equal(stillOpen.window.open, true);
      const ok = await post(`/api/chats/${chatId}/messages`, agent(0), { text: 'Ainda dá tempo' });
      assert.equal(ok.status, 201);

      await lastWrote(chatId, 25);
      const closed = await chatOf(chatId);
      assert.equal(closed.window.open, false);
      assert.ok(closed.window.expiresAt && Date.parse(closed.window.expiresAt) < Date.now());
      const before = await db.query('SELECT count(*)::int AS n FROM messages WHERE chat_id = $1', [chatId]);
      for (const body of [
        { text: 'Olá?' },
        { media: { mimetype: 'image/png', base64: PNG_BASE64, caption: 'Comprovante' } },
      ]) {
        const r = await post(`/api/chats/${chatId}/messages`, agent(0), body);
        assert.deepEqual([r.status, r.body], [409, WINDOW_CLOSED]);
      }
      const afterRefusals = await db.query('SELECT count(*)::int AS n FROM messages WHERE chat_id = $1', [
        chatId,
      ]);
      assert.deepEqual(afterRefusals.rows, before.rows);
      // Invalid content is still a 400 first: the body is judged before the chat.
      const invalid = await post(`/api/chats/${chatId}/messages`, agent(0), { text: ' ' });
      assert.deepEqual([invalid.status, invalid.body], [400, badRequest('text should not be empty')]);

      const from = (await chatOf(chatId)) as unknown as { contact: { value: string } };
      await f.inbound(0, from.contact.value, 'Voltei');
      assert.equal((await chatOf(chatId)).window.open, true);
      const again = await post(`/api/chats/${chatId}/messages`, agent(0), { text: 'Que bom!' });
      assert.equal(again.status, 201);
    });
  });

  describe('template replies', () => {
    it('stores a template reply as the Channel API resolves it; the sandbox delivers it', async () => {
      const chatId = await attended();
      await lastWrote(chatId, 30);
      const r = await post(`/api/chats/${chatId}/messages`, agent(0), {
        template: {
          name: 'pedido_confirmado',
          variables: {
            header: ['A-1'],
            body: [{ value: 'A-1', correlationId: 2 }, 'Maria'],
            buttons: ['A-1'],
          },
        },
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      const body = r.json as unknown as Message;
      const template = {
        name: 'pedido_confirmado',
        language: 'pt_BR',
        header: [{ text: 'A-1' }],
        body: [{ text: 'Maria' }, { text: 'A-1' }],
        urlButtons: [{ index: 0, params: [{ text: 'A-1' }] }],
        orderDetails: [],
      };
      assert.deepEqual(
        [body.origin, body.type, body.content, body.status, body.userId],
        ['user', 'template', { template }, 'queued', f.agents[0]!.id],
      );
      const chat = await chatOf(chatId);
      assert.deepEqual(
        [chat.lastMessage?.type, chat.lastMessage?.content],
        ['template', '[template] pedido_confirmado'],
      );
      const done = await settled(body.id, ['delivered', 'failed']);
      assert.equal(done.status, 'delivered');
      assert.match(done.providerMessageId ?? '', /^sandbox\./);
      assert.deepEqual(done.content, { template });
    });

    it('refuses invalid templates with the Channel API’s sentences, storing nothing', async () => {
      const chatId = await attended();
      const cases: Array<[unknown, string[]]> = [
        [{ template: {} }, ['template.name should not be empty']],
        [{ template: { name: ' ' } }, ['template.name should not be empty']],
        [
          { template: { name: 'x', mediaHeader: { format: 'image' } } },
          ['template.mediaHeader must have either link or fileId'],
        ],
        [
          { template: { name: 'x', mediaHeader: { format: 'document', link: 'http://x.test/a.pdf' } } },
          ['template.mediaHeader.link must be an https URL'],
        ],
        [
          { template: { name: 'x', variables: { body: [{ key: 'a', value: '1' }, '2'] } } },
          ['template.variables.body must not mix named values (with key) and positional ones'],
        ],
        [
          { template: { name: 'x', variables: { body: [{ value: 'a', correlationId: 3 }] } } },
          [
            'template.variables.body[0].correlationId must not be greater than 1 (the number of values in template.variables.body)',
          ],
        ],
        [{ template: { name: 'x', extra: 1 } }, ['property template.extra should not exist']],
        [{ template: { name: 'x', variables: 'x' } }, ['template.variables must be an object']],
        [{ text: 'Oi', template: { name: 'x' } }, ['exactly one of text, media or template must be given']],
      ];
      for (const [body, message] of cases) {
        const r = await post(`/api/chats/${chatId}/messages`, agent(0), body);
        assert.deepEqual([body, r.status, r.body], [body, 400, badRequest(...message)]);
      }
      const count = await db.query('SELECT 1 FROM messages WHERE chat_id = $1 AND origin = $2', [
        chatId,
        'user',
      ]);
      assert.equal(count.rowCount, 0);
    });

    it('is for the attendant of an open chat, or a supervisor stepping in, as any reply', async () => {
      const chatId = await attended();
      const template = { template: { name: 'retomar_conversa' } };
      // An admin steps in: sent, and marked as theirs (test/chats/supervisors-step-in.test.ts).
      const bySupervisor = await post(`/api/chats/${chatId}/messages`, admin(), template);
      assert.equal(bySupervisor.status, 201);
      assert.equal((bySupervisor.body as { bySupervisor: boolean }).bySupervisor, true);
      for (const headers of [agent(1), bearer(other.adminToken)]) {
        const r = await post(`/api/chats/${chatId}/messages`, headers, template);
        assert.deepEqual([r.status, r.body], [404, NOT_FOUND]);
      }
    });

    it('sends a WhatsApp template with Graph’s payload after the window closed, and keeps its id', async () => {
      const chat = await whatsappChat(1);
      await lastWrote(chat.chatId, 26);
      const seen = graph.requests.length;
      const refused = await post(`/api/chats/${chat.chatId}/messages`, agent(0), { text: 'Oi' });
      assert.deepEqual([refused.status, refused.body], [409, WINDOW_CLOSED]);
      assert.equal(graph.requests.length, seen, 'nothing reached Graph for the refused text');

      const r = await post(`/api/chats/${chat.chatId}/messages`, agent(0), {
        template: {
          name: 'pedido_confirmado',
          language: 'pt_BR',
          variables: { header: ['A-1'], body: ['Maria', 'A-1'], buttons: ['A-1'] },
        },
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      const sent = await graph.nextRequest();
      assert.deepEqual(
        [sent.method, sent.path, sent.headers.authorization, sent.json],
        [
          'POST',
          `/v23.0/${chat.phoneNumberId}/messages`,
          'Bearer test-token',
          {
            messaging_product: 'whatsapp',
            recipient_type: 'individual',
            to: chat.waId,
            type: 'template',
            template: {
              name: 'pedido_confirmado',
              language: { code: 'pt_BR', policy: 'deterministic' },
              components: [
                { type: 'header', parameters: [{ type: 'text', text: 'A-1' }] },
                {
                  type: 'body',
                  parameters: [
                    { type: 'text', text: 'Maria' },
                    { type: 'text', text: 'A-1' },
                  ],
                },
                { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: 'A-1' }] },
              ],
            },
          },
        ],
      );
      const done = await settled(r.json.id as string, ['sent', 'failed']);
      assert.deepEqual([done.status, done.error], ['sent', null]);
      assert.match(done.providerMessageId ?? '', /^wamid\./);
    });

    it('records Graph’s refusal of a template (e.g. not approved) on the message', async () => {
      const chat = await whatsappChat(2);
      graph.failNext({ code: 132001, message: 'Template name does not exist in the translation' });
      const r = await post(`/api/chats/${chat.chatId}/messages`, agent(0), {
        template: { name: 'nao_existe' },
      });
      assert.equal(r.status, 201);
      await graph.nextRequest();
      const done = await settled(r.json.id as string, ['sent', 'failed']);
      assert.deepEqual(
        [done.status, done.error],
        ['failed', { code: '132001', message: 'Template name does not exist in the translation' }],
      );
    });
  });

  describe('GET /api/channels/:id/templates', () => {
    it('lists the business account’s approved templates from Graph, with their placeholders', async () => {
      const channel = await whatsappChannel(5, '900000000000001');
      assert.equal(channel.channel.providerConfig.businessAccountId, '900000000000001');
      const seen = graph.requests.length;
      const r = await get(`/api/channels/${channel.id}/templates`, agent(0));
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.deepEqual(r.body, {
        available: true,
        templates: [
          {
            name: 'pedido_confirmado',
            language: 'pt_BR',
            category: 'UTILITY',
            header: { format: 'text', text: 'Pedido {{1}}' },
            body: 'Olá {{1}}, seu pedido {{2}} foi confirmado.',
            footer: 'Loja Exemplo',
            buttons: [
              { type: 'url', text: 'Acompanhar', url: 'https://loja.example/pedidos/{{1}}' },
              { type: 'quick_reply', text: 'Falar com atendente', url: null },
            ],
            parameters: { header: ['1'], body: ['1', '2'], buttons: [{ index: 0, names: ['1'] }] },
            named: false,
          },
          {
            name: 'retomar_conversa',
            language: 'pt_BR',
            category: 'MARKETING',
            header: null,
            body: 'Oi {{first_name}}! Podemos continuar? {{first_name}}, responda.',
            footer: null,
            buttons: [],
            parameters: { header: [], body: ['first_name'], buttons: [] },
            named: true,
          },
        ],
      });
      const asked = graph.requests.slice(seen);
      assert.equal(asked.length, 1);
      assert.deepEqual(
        [asked[0]!.method, asked[0]!.path, asked[0]!.headers.authorization, asked[0]!.query.status],
        ['GET', '/v23.0/900000000000001/message_templates', 'Bearer test-token', 'APPROVED'],
      );
      // Kept for a while: the next agent does not ask Graph again.
      const again = await get(`/api/channels/${channel.id}/templates`, admin());
      assert.deepEqual(again.body, r.body);
      assert.equal(graph.requests.length, seen + 1);
    });

    it('follows Graph’s pages', async () => {
      const many = Array.from({ length: 130 }, (_, i) => ({
        name: `modelo_${String(i).padStart(3, '0')}`,
        language: 'pt_BR',
        status: 'APPROVED',
        category: 'UTILITY',
        components: [{ type: 'BODY', text: 'Olá {{1}}' }],
      }));
      graph.setTemplates('900000000000002', many);
      const channel = await whatsappChannel(6, '900000000000002');
      const r = await get(`/api/channels/${channel.id}/templates`, agent(0));
      assert.equal(r.status, 200);
      const names = (r.json.templates as { name: string }[]).map((x) => x.name);
      assert.deepEqual(
        names,
        many.map((m) => m.name),
      );
    });

    it('answers available: false where the channel cannot list templates', async () => {
      const sandbox = await get(`/api/channels/${f.channels[0]!.id}/templates`, agent(0));
      assert.deepEqual([sandbox.status, sandbox.body], [200, { available: false, templates: [] }]);
      const channel = await whatsappChannel(7);
      const seen = graph.requests.length;
      const noWaba = await get(`/api/channels/${channel.id}/templates`, agent(0));
      assert.deepEqual([noWaba.status, noWaba.body], [200, { available: false, templates: [] }]);
      assert.equal(graph.requests.length, seen);
    });

    it('answers 502 with Graph’s reason when Graph refuses, and asks again next time', async () => {
      const channel = await whatsappChannel(8, '900000000000009');
      const unknown = await get(`/api/channels/${channel.id}/templates`, agent(0));
      assert.deepEqual(
        [unknown.status, unknown.body],
        [
          502,
          {
            statusCode: 502,
            message:
              "Não foi possível obter os modelos aprovados do canal: Unsupported get request. Object with ID '900000000000009' does not exist (100)",
            error: 'Bad Gateway',
          },
        ],
      );
      graph.setTemplates('900000000000009', GRAPH_TEMPLATES.slice(1, 2));
      const expired = await whatsappChannel(9, '900000000000009');
      await f.services.channels.update(f.admin, expired.id, { providerConfig: { accessToken: 'expired' } });
      const token = await get(`/api/channels/${expired.id}/templates`, agent(0));
      assert.equal(token.status, 502);
      assert.match(String(token.json.message), /\(190\)$/);
      // Failures are not kept: the same channel lists once Graph answers.
      const now = await get(`/api/channels/${channel.id}/templates`, agent(0));
      assert.equal(now.status, 200);
      assert.deepEqual(
        (now.json.templates as { name: string }[]).map((x) => x.name),
        ['retomar_conversa'],
      );
    });

    it('is for users who may see chats of the channel; 404 for others and other accounts', async () => {
      const channel = await whatsappChannel(10, '900000000000001');
      const outsider = await get(`/api/channels/${channel.id}/templates`, agent(1));
      assert.deepEqual([outsider.status, outsider.body], [404, NOT_FOUND]);
      const foreign = await get(`/api/channels/${channel.id}/templates`, bearer(other.adminToken));
      assert.deepEqual([foreign.status, foreign.body], [404, NOT_FOUND]);
      const unknown = await get('/api/channels/0123456789abcdef01234567/templates', admin());
      assert.deepEqual([unknown.status, unknown.body], [404, NOT_FOUND]);
      const bad = await get('/api/channels/xyz/templates', admin());
      assert.deepEqual([bad.status, bad.body], [400, badRequest('id must be a 24-character hexadecimal id')]);
      assert.equal((await t.request('GET', `/api/channels/${channel.id}/templates`)).status, 401);

      // Agent 1 attends a chat of that channel (transferred to them): now they may.
      const row = await f.services.repos.channels.find(f.accountId, channel.id);
      assert.ok(row);
      const received = await f.services.inbound.receive(row, {
        contact: { value: '5511987659999', name: 'Cliente', providerAddress: '5511987659999' },
        type: 'text',
        content: { text: 'Oi' },
        summary: 'Oi',
        providerMessageId: 'wamid.templates.visibility',
      });
      assert.equal(received.duplicate, false);
      const chatId = received.duplicate ? '' : received.chatId;
      assert.equal(
        (await post(`/api/chats/${chatId}/transfer`, admin(), { userId: f.agents[1]!.id })).status,
        200,
      );
      const attendant = await get(`/api/channels/${channel.id}/templates`, agent(1));
      assert.equal(attendant.status, 200);
    });

    it('takes the business account id as digits in the channel settings', async () => {
      const r = await post('/api/channels', admin(), {
        name: 'WhatsApp ruim',
        provider: 'whatsapp-cloud',
        defaultTeamId: f.teams[0]!.id,
        providerConfig: {
          phoneNumberId: '123',
          accessToken: 't',
          appSecret: 's',
          verifyToken: 'v',
          businessAccountId: 'waba-1',
        },
      });
      assert.deepEqual(
        [r.status, r.body],
        [400, badRequest('providerConfig.businessAccountId must match ^[0-9]{1,32}$ regular expression')],
      );
    });
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { FakeGraph } from '../helpers/fake-graph.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { createWhatsAppChannel } from '../helpers/whatsapp.js';

// Agent API on a chat: message history, replies through the provider, capture, close and read.

interface Chat {
  id: string;
  status: string;
  queue: string;
  channelId: string;
  teamId: string;
  userId: string | null;
  contact: { id: string; name: string; value: string };
  unreadMessages: number;
  lastMessage: { id: string; origin: string; type: string; content: string; createdAt: string } | null;
  createdAt: string;
  updatedAt: string;
}
interface Message {
  id: string;
  chatId: string;
  origin: string;
  type: string;
  content: Record<string, unknown>;
  status: string;
  providerMessageId: string | null;
  error: { code: string; message: string } | null;
  requestId: string | null;
  userId: string | null;
  bySupervisor: boolean;
  automation: 'flow' | 'bot' | null;
  botId: string | null;
  createdAt: string;
  updatedAt: string;
}
interface MessageRow {
  id: string;
  chat_id: string;
  origin: string;
  type: string;
  content: Record<string, unknown>;
  status: string;
  provider_message_id: string | null;
  error: { code: string; message: string } | null;
  request_id: string | null;
  user_id: string | null;
  by_supervisor: boolean;
  automation: 'flow' | 'bot' | null;
  bot_id: string | null;
  created_at: Date;
  updated_at: Date;
}

const NOT_FOUND = { statusCode: 404, message: 'Not Found', error: 'Not Found' };
const BUSY = { statusCode: 409, message: 'O chat ja esta sendo processado.', error: 'Conflict' };
const CAPTURED = { statusCode: 409, message: 'O chat já foi capturado', error: 'Conflict' };
const NOT_WAITING = {
  statusCode: 409,
  message: 'Somente um chat na fila Espera ou Automação pode ser capturado',
  error: 'Conflict',
};
const CLOSED = { statusCode: 409, message: 'O chat está encerrado', error: 'Conflict' };
const CLOSE_FORBIDDEN = {
  statusCode: 403,
  message: 'Somente o atendente do chat ou um supervisor pode encerrá-lo',
  error: 'Forbidden',
};
const ONLY_ATTENDANT = {
  statusCode: 403,
  message: 'Somente o atendente do chat pode enviar mensagens; capture ou transfira o chat primeiro',
  error: 'Forbidden',
};
const NEEDS_ATTEND = { statusCode: 403, message: 'Permissão necessária: chats:attend', error: 'Forbidden' };
const badRequest = (...message: string[]) => ({ statusCode: 400, message, error: 'Bad Request' });
const UNKNOWN_ID = '0123456789abcdef01234567';
/** A 1×1 PNG. */
const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

let phoneSeq = 0;
const phone = () => `5511987${String(++phoneSeq).padStart(6, '0')}`;

describe('Agent messaging', () => {
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
  const stored = (chatId: string): Promise<Chat> => f.services.chats.getForUser(f.admin, chatId);
  const row = async (id: string) =>
    (await db.query<MessageRow>('SELECT * FROM messages WHERE id = $1', [id])).rows[0];
  /** A message as the API shows it, from the stored row. */
  const shown = async (id: string): Promise<Message> => {
    const r = await row(id);
    assert.ok(r, `message ${id} is stored`);
    return {
      id: r.id,
      chatId: r.chat_id,
      origin: r.origin,
      type: r.type,
      content: r.content,
      status: r.status,
      providerMessageId: r.provider_message_id,
      error: r.error,
      requestId: r.request_id,
      userId: r.user_id,
      bySupervisor: r.by_supervisor,
      automation: r.automation,
      botId: r.bot_id,
      createdAt: r.created_at.toISOString(),
      updatedAt: r.updated_at.toISOString(),
    };
  };
  /**
   * Bounded polling of the row until the worker's outcome is stored. The sandbox records `sent` and
   * then `delivered` in two steps, so its tests wait for the final one (`final`).
   */
  const settled = async (id: string, final = false): Promise<Message> => {
    for (let i = 0; i < 300; i++) {
      const m = await shown(id);
      if (final ? m.status === 'delivered' || m.status === 'failed' : m.status !== 'queued') return m;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.fail(`message ${id} is still queued`);
  };
  /** A customer message on channel `channelIndex`; returns the chat and message ids. */
  const customer = async (channelIndex: number, from: string, text: string) =>
    f.services.inbound.receiveSandbox(f.admin, f.channels[channelIndex]!.id, { from, text });
  /** An open chat on channel 0 (team 0) captured by agent 0. */
  const attended = async () => {
    const chatId = await f.inbound(0, phone(), 'Preciso de ajuda');
    assert.equal((await post(`/api/chats/${chatId}/capture`, agent(0))).status, 200);
    return chatId;
  };

  before(async () => {
    graph = await FakeGraph.start();
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

  describe('GET /api/chats/:id/messages', () => {
    it('pages newest first with the `before` cursor until nextBefore is null', async () => {
      const from = phone();
      const ids: string[] = [];
      let chatId = '';
      for (let i = 1; i <= 5; i++) {
        const r = await customer(0, from, `mensagem ${i}`);
        chatId = r.chatId;
        ids.push(r.messageId);
      }
      const [m1, m2, m3, m4, m5] = await Promise.all(ids.map(shown));
      assert.deepEqual(m1!.content, { text: 'mensagem 1' });

      const page1 = await get(`/api/chats/${chatId}/messages?limit=2`, agent(0));
      assert.equal(page1.status, 200);
      assert.deepEqual(page1.body, { messages: [m5, m4], nextBefore: m4!.id, nextAfter: null });
      const page2 = await get(`/api/chats/${chatId}/messages?limit=2&before=${m4!.id}`, agent(0));
      assert.deepEqual(page2.body, { messages: [m3, m2], nextBefore: m2!.id, nextAfter: m3!.id });
      const page3 = await get(`/api/chats/${chatId}/messages?limit=2&before=${m2!.id}`, agent(0));
      assert.deepEqual(page3.body, { messages: [m1], nextBefore: null, nextAfter: m1!.id });

      // Default limit (50) takes them all; a page that ends exactly at the last message has no next.
      const all = await get(`/api/chats/${chatId}/messages`, admin());
      assert.deepEqual(all.body, { messages: [m5, m4, m3, m2, m1], nextBefore: null, nextAfter: null });
      const exact = await get(`/api/chats/${chatId}/messages?limit=5`, admin());
      assert.deepEqual(exact.body, { messages: [m5, m4, m3, m2, m1], nextBefore: null, nextAfter: null });
      const oldest = await get(`/api/chats/${chatId}/messages?before=${m1!.id}`, admin());
      assert.deepEqual(oldest.body, { messages: [], nextBefore: null, nextAfter: null });
    });

    it('refuses a cursor that is not a message of the chat, and bad limits', async () => {
      const chatId = await f.inbound(0, phone(), 'Oi');
      const elsewhere = await customer(0, phone(), 'Outro chat');
      for (const before of [UNKNOWN_ID, elsewhere.messageId]) {
        const r = await get(`/api/chats/${chatId}/messages?before=${before}`, agent(0));
        assert.deepEqual(
          [r.status, r.body],
          [400, badRequest('before must be the id of a message of this chat')],
        );
      }
      const cases: Array<[string, string]> = [
        ['limit=0', 'limit must not be less than 1'],
        ['limit=101', 'limit must not be greater than 100'],
        ['limit=abc', 'limit must be an integer number'],
        ['before=xyz', 'before must be a 24-character hexadecimal id'],
        ['page=1', 'property page should not exist'],
      ];
      for (const [query, message] of cases) {
        const r = await get(`/api/chats/${chatId}/messages?${query}`, agent(0));
        assert.deepEqual([query, r.status, r.body], [query, 400, badRequest(message)]);
      }
    });

    it('is 404 for whoever may not see the chat, and 401 without a token', async () => {
      const chatId = await f.inbound(0, phone(), 'Oi');
      for (const headers of [agent(1), bearer(other.adminToken)]) {
        const r = await get(`/api/chats/${chatId}/messages`, headers);
        assert.deepEqual([r.status, r.body], [404, NOT_FOUND]);
      }
      const unknown = await get(`/api/chats/${UNKNOWN_ID}/messages`, admin());
      assert.deepEqual([unknown.status, unknown.body], [404, NOT_FOUND]);
      const anonymous = await t.request('GET', `/api/chats/${chatId}/messages`);
      assert.equal(anonymous.status, 401);
    });
  });

  describe('POST /api/chats/:id/capture', () => {
    it('gives a waiting chat to the caller in Em Atendimento', async () => {
      const chatId = await f.inbound(0, phone(), 'Quero atendimento');
      const waiting = await stored(chatId);
      assert.deepEqual([waiting.queue, waiting.userId], ['Espera', null]);

      const r = await post(`/api/chats/${chatId}/capture`, agent(0));
      const after = await stored(chatId);
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, after);
      assert.deepEqual(
        { ...after, updatedAt: waiting.updatedAt },
        { ...waiting, queue: 'Em Atendimento', userId: f.agents[0]!.id },
      );
    });

    it('is 409 once captured, outside Espera, or closed; 404 for another team or account', async () => {
      const chatId = await attended();
      const captured = await stored(chatId);
      for (const headers of [agent(0), admin()]) {
        const r = await post(`/api/chats/${chatId}/capture`, headers);
        assert.deepEqual([r.status, r.body], [409, CAPTURED]);
      }
      assert.deepEqual(await stored(chatId), captured);

      const elsewhere = await f.inbound(0, phone(), 'Oi');
      assert.equal(
        // Automação is capturable too (a channel's flow holds conversations there): Observação is not.
        (await post(`/api/chats/${elsewhere}/queue`, agent(0), { queue: 'Observação' })).status,
        200,
      );
      const r = await post(`/api/chats/${elsewhere}/capture`, agent(0));
      assert.deepEqual([r.status, r.body], [409, NOT_WAITING]);

      const closed = await f.inbound(0, phone(), 'Oi');
      assert.equal((await post(`/api/chats/${closed}/close`, admin())).status, 200);
      const c = await post(`/api/chats/${closed}/capture`, agent(0));
      assert.deepEqual([c.status, c.body], [409, CLOSED]);

      const waiting = await f.inbound(0, phone(), 'Oi');
      for (const headers of [agent(1), bearer(other.adminToken)]) {
        const n = await post(`/api/chats/${waiting}/capture`, headers);
        assert.deepEqual([n.status, n.body], [404, NOT_FOUND]);
      }
      assert.equal((await stored(waiting)).userId, null);
    });

    it('answers 409 at once while another operation holds the chat', async () => {
      const chatId = await f.inbound(0, phone(), 'Oi');
      const before = await stored(chatId);
      const holder = new pg.Client({ connectionString: t.databaseUrl });
      await holder.connect();
      try {
        await holder.query('BEGIN');
        await holder.query('SELECT id FROM chats WHERE id = $1 FOR UPDATE', [chatId]);
        const r = await post(`/api/chats/${chatId}/capture`, agent(0));
        assert.deepEqual([r.status, r.body], [409, BUSY]);
      } finally {
        await holder.query('ROLLBACK');
        await holder.end();
      }
      assert.deepEqual(await stored(chatId), before);
      assert.equal((await post(`/api/chats/${chatId}/capture`, agent(0))).status, 200);
    });

    it('needs chats:attend', async () => {
      const chatId = await other.inbound(0, phone(), 'Oi');
      await db.query(
        `UPDATE roles SET permissions = array_remove(permissions, 'chats:attend')
          WHERE account_id = $1 AND name = 'agent'`,
        [other.accountId],
      );
      try {
        const r = await post(`/api/chats/${chatId}/capture`, bearer(other.agents[0]!.token));
        assert.deepEqual([r.status, r.body], [403, NEEDS_ATTEND]);
        assert.equal((await other.services.chats.getForUser(other.admin, chatId)).userId, null);
      } finally {
        await db.query(
          `UPDATE roles SET permissions = array_append(permissions, 'chats:attend')
            WHERE account_id = $1 AND name = 'agent'`,
          [other.accountId],
        );
      }
    });
  });

  describe('POST /api/chats/:id/close', () => {
    it('closes the attendant’s chat, records when, and refuses a second close', async () => {
      const chatId = await attended();
      const open = await stored(chatId);
      const r = await post(`/api/chats/${chatId}/close`, agent(0));
      const closed = await stored(chatId);
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, closed);
      assert.deepEqual({ ...closed, updatedAt: open.updatedAt }, { ...open, status: 'closed' });
      const at = await db.query<{ closed_at: Date | null }>('SELECT closed_at FROM chats WHERE id = $1', [
        chatId,
      ]);
      assert.ok(at.rows[0]!.closed_at instanceof Date);

      const again = await post(`/api/chats/${chatId}/close`, agent(0));
      assert.deepEqual([again.status, again.body], [409, CLOSED]);
      // A customer writing again opens a new conversation.
      assert.notEqual(await f.inbound(0, closed.contact.value, 'Voltei'), chatId);
    });

    it('is for the attendant or chats:read_all; others get 403 or 404', async () => {
      const waiting = await f.inbound(0, phone(), 'Oi');
      const r = await post(`/api/chats/${waiting}/close`, agent(0));
      assert.deepEqual([r.status, r.body], [403, CLOSE_FORBIDDEN]);
      const foreign = await post(`/api/chats/${waiting}/close`, agent(1));
      assert.deepEqual([foreign.status, foreign.body], [404, NOT_FOUND]);
      const otherAccount = await post(`/api/chats/${waiting}/close`, bearer(other.adminToken));
      assert.deepEqual([otherAccount.status, otherAccount.body], [404, NOT_FOUND]);
      assert.equal((await stored(waiting)).status, 'open');

      const bySupervisor = await post(`/api/chats/${waiting}/close`, admin());
      assert.equal(bySupervisor.status, 200);
      assert.equal((bySupervisor.json as unknown as Chat).status, 'closed');
    });
  });

  describe('POST /api/chats/:id/read', () => {
    it('resets the unread counter; the next customer message counts from 1', async () => {
      const from = phone();
      const chatId = await f.inbound(0, from, 'Um');
      await f.inbound(0, from, 'Dois');
      assert.equal((await stored(chatId)).unreadMessages, 2);

      const r = await post(`/api/chats/${chatId}/read`, agent(0));
      const read = await stored(chatId);
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, read);
      assert.equal(read.unreadMessages, 0);

      await f.inbound(0, from, 'Três');
      assert.equal((await stored(chatId)).unreadMessages, 1);

      for (const headers of [agent(1), bearer(other.adminToken)]) {
        const n = await post(`/api/chats/${chatId}/read`, headers);
        assert.deepEqual([n.status, n.body], [404, NOT_FOUND]);
      }
      assert.equal((await stored(chatId)).unreadMessages, 1);
    });
  });

  describe('POST /api/chats/:id/messages', () => {
    it('stores a text reply as queued, makes it the last message, and the sandbox delivers it', async () => {
      const chatId = await attended();
      const r = await post(`/api/chats/${chatId}/messages`, agent(0), { text: 'Olá! Como posso ajudar?' });
      assert.equal(r.status, 201);
      const body = r.json as unknown as Message;
      const queued: Message = {
        id: body.id,
        chatId,
        origin: 'user',
        type: 'text',
        content: { text: 'Olá! Como posso ajudar?' },
        status: 'queued',
        providerMessageId: null,
        error: null,
        requestId: null,
        userId: f.agents[0]!.id,
        bySupervisor: false,
        automation: null,
        botId: null,
        createdAt: body.createdAt,
        updatedAt: body.updatedAt,
      };
      assert.deepEqual(body, queued);
      assert.deepEqual((await stored(chatId)).lastMessage, {
        id: body.id,
        origin: 'user',
        type: 'text',
        content: 'Olá! Como posso ajudar?',
        createdAt: body.createdAt,
        userId: f.agents[0]!.id,
      });

      const done = await settled(body.id, true);
      assert.match(done.providerMessageId ?? '', /^sandbox\./);
      assert.deepEqual(done, {
        ...queued,
        status: 'delivered',
        providerMessageId: done.providerMessageId,
        updatedAt: done.updatedAt,
      });
      const history = await get(`/api/chats/${chatId}/messages?limit=1`, agent(0));
      assert.deepEqual(history.body, { messages: [done], nextBefore: done.id, nextAfter: null });
    });

    it('sends a media reply after uploading it, and keeps the file viewable', async () => {
      const chatId = await attended();
      const r = await post(`/api/chats/${chatId}/messages`, agent(0), {
        media: {
          mimetype: 'image/png',
          base64: PNG_BASE64,
          filename: 'ponto.png',
          caption: 'Segue a imagem',
        },
      });
      assert.equal(r.status, 201);
      const body = r.json as unknown as Message;
      const bytes = Buffer.from(PNG_BASE64, 'base64');
      const media = {
        kind: 'image',
        mimetype: 'image/png',
        filename: 'ponto.png',
        caption: 'Segue a imagem',
        status: 'ready',
        size: bytes.length,
      };
      assert.deepEqual([body.type, body.content, body.status], ['image', { media }, 'queued']);
      assert.equal((await stored(chatId)).lastMessage?.content, 'Segue a imagem');

      const done = await settled(body.id, true);
      assert.equal(done.status, 'delivered');
      const { mediaId, ...rest } = done.content.media as Record<string, unknown>;
      assert.deepEqual(rest, media);
      assert.match(String(mediaId), /^sandbox-media\./);
      // Sent, the file stays in the media store for agents to open.
      const file = await fetch(`${t.url}/api/messages/${body.id}/media`, { headers: agent(0) });
      assert.equal(file.status, 200);
      assert.deepEqual(Buffer.from(await file.arrayBuffer()), bytes);
    });

    it('refuses invalid content with the Channel API’s sentences, storing nothing', async () => {
      const chatId = await attended();
      const before = await stored(chatId);
      const cases: Array<[unknown, string[]]> = [
        [
          { media: { mimetype: 'image/png', base64: 'not base64!' } },
          ['media.base64 must be base64 encoded'],
        ],
        [{ media: { mimetype: 'image/png', base64: '' } }, ['Base64 payload is required']],
        [
          { media: { mimetype: 'image/png', base64: `data:image/png;base64,${PNG_BASE64}` } },
          ['media.base64 must not have a data: prefix'],
        ],
        [
          { media: { mimetype: 'audio/ogg', base64: PNG_BASE64, caption: 'x' } },
          ['media.caption is not allowed for audio'],
        ],
        [{ text: '   ' }, ['text should not be empty']],
        [{ text: 'x'.repeat(4097) }, ['text must be shorter than or equal to 4096 characters']],
        [{}, ['exactly one of text, media or template must be given']],
        [
          { text: 'Oi', media: { mimetype: 'image/png', base64: PNG_BASE64 } },
          ['exactly one of text, media or template must be given'],
        ],
        [{ text: 'Oi', extra: 1 }, ['property extra should not exist']],
      ];
      for (const [body, message] of cases) {
        const r = await post(`/api/chats/${chatId}/messages`, agent(0), body);
        assert.deepEqual([body, r.status, r.body], [body, 400, badRequest(...message)]);
      }
      assert.deepEqual(await stored(chatId), before);
      const count = await db.query('SELECT 1 FROM messages WHERE chat_id = $1 AND origin = $2', [
        chatId,
        'user',
      ]);
      assert.equal(count.rowCount, 0);
    });

    it('is for the attendant of an open chat only', async () => {
      const chatId = await attended();
      // Seeing the chat is not enough (a supervisor of its team or an admin steps in, marked as such:
      // test/chats/supervisors-step-in.test.ts); nobody replies in a chat without attendant.
      const waiting = await f.inbound(0, phone(), 'Oi');
      const notCaptured = await post(`/api/chats/${waiting}/messages`, agent(0), { text: 'Oi' });
      assert.deepEqual([notCaptured.status, notCaptured.body], [403, ONLY_ATTENDANT]);
      for (const headers of [agent(1), bearer(other.adminToken)]) {
        const r = await post(`/api/chats/${chatId}/messages`, headers, { text: 'Oi' });
        assert.deepEqual([r.status, r.body], [404, NOT_FOUND]);
      }
      assert.equal((await post(`/api/chats/${chatId}/close`, agent(0))).status, 200);
      const closed = await post(`/api/chats/${chatId}/messages`, agent(0), { text: 'Oi' });
      assert.deepEqual([closed.status, closed.body], [409, CLOSED]);
      const count = await db.query('SELECT 1 FROM messages WHERE chat_id IN ($1, $2) AND origin = $3', [
        chatId,
        waiting,
        'user',
      ]);
      assert.equal(count.rowCount, 0);
    });

    describe('replies on a WhatsApp channel', () => {
      /**
       * A WhatsApp chat captured by agent 0 whose customer's `wa_id` lacks the ninth digit the
       * normalized contact value has: replies must go to the `wa_id`.
       */
      const whatsappChat = async (n: number) => {
        const channel = await createWhatsAppChannel(f, { phoneNumberId: `1065403522429${n}` });
        const row = await f.services.repos.channels.find(f.accountId, channel.id);
        assert.ok(row);
        const received = await f.services.inbound.receive(row, {
          contact: { value: `55119876500${n}`, name: 'Cliente', providerAddress: `5511876500${n}` },
          type: 'text',
          content: { text: 'Oi' },
          summary: 'Oi',
          providerMessageId: `wamid.inbound.${n}`,
        });
        assert.equal(received.duplicate, false);
        const chatId = received.duplicate ? '' : received.chatId;
        assert.equal((await post(`/api/chats/${chatId}/capture`, agent(0))).status, 200);
        return { chatId, phoneNumberId: channel.phoneNumberId, waId: `+5511876500${n}` };
      };

      it('sends text to the contact’s wa_id and keeps the provider’s id', async () => {
        const chat = await whatsappChat(1);
        const r = await post(`/api/chats/${chat.chatId}/messages`, agent(0), { text: 'Bom dia!' });
        assert.equal(r.status, 201);
        const sent = await graph.nextRequest();
        assert.deepEqual(
          [sent.method, sent.path, sent.json],
          [
            'POST',
            `/v23.0/${chat.phoneNumberId}/messages`,
            {
              messaging_product: 'whatsapp',
              recipient_type: 'individual',
              to: chat.waId,
              type: 'text',
              text: { body: 'Bom dia!', preview_url: false },
            },
          ],
        );
        const done = await settled(r.json.id as string);
        // WhatsApp reports delivery later through its webhook; until then the message is `sent`.
        assert.deepEqual([done.status, done.error], ['sent', null]);
        assert.match(done.providerMessageId ?? '', /^wamid\./);
      });

      it('uploads media first, then sends it by id', async () => {
        const chat = await whatsappChat(2);
        const r = await post(`/api/chats/${chat.chatId}/messages`, agent(0), {
          media: { mimetype: 'image/png', base64: PNG_BASE64, caption: 'Comprovante' },
        });
        assert.equal(r.status, 201);
        const upload = await graph.nextRequest();
        assert.equal(upload.path, `/v23.0/${chat.phoneNumberId}/media`);
        const file = upload.form?.file;
        assert.ok(file && 'bytes' in file);
        assert.deepEqual([file.contentType, file.bytes], ['image/png', Buffer.from(PNG_BASE64, 'base64')]);
        const send = await graph.nextRequest();
        const done = await settled(r.json.id as string);
        const mediaId = (done.content.media as { mediaId?: string }).mediaId;
        assert.match(mediaId ?? '', /^media\./);
        assert.deepEqual(send.json, {
          messaging_product: 'whatsapp',
          recipient_type: 'individual',
          to: chat.waId,
          type: 'image',
          image: { id: mediaId, caption: 'Comprovante' },
        });
        assert.equal(done.status, 'sent');
      });

      it('marks the message failed with the provider’s reason when it refuses for good', async () => {
        const chat = await whatsappChat(3);
        graph.failNext({ code: 131026, message: 'Message undeliverable' });
        const r = await post(`/api/chats/${chat.chatId}/messages`, agent(0), { text: 'Olá?' });
        assert.equal(r.status, 201);
        await graph.nextRequest();
        const done = await settled(r.json.id as string);
        assert.deepEqual(
          [done.status, done.providerMessageId, done.error],
          ['failed', null, { code: '131026', message: 'Message undeliverable' }],
        );
      });
    });
  });
});

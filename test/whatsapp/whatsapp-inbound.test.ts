import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { newId } from '../../src/lib/ids.js';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import {
  createWhatsAppChannel,
  customerText,
  GRAPH_MESSAGE_TIMESTAMP,
  graphWebhook,
  hubSignature,
  statusUpdate,
  type WhatsAppChannel,
} from '../helpers/whatsapp.js';

const NOT_FOUND = { statusCode: 404, message: 'Not Found', error: 'Not Found' };
const badRequest = (message: string | string[]) => ({ statusCode: 400, message, error: 'Bad Request' });
const unauthorized = (message: string) => ({ statusCode: 401, message, error: 'Unauthorized' });
const FORBIDDEN = { statusCode: 403, message: 'Verify token mismatch', error: 'Forbidden' };

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const sign = (raw: string | Buffer, secret: string) => hubSignature(secret, raw);

function expectStatus(res: TestResponse, status: number, label = ''): void {
  assert.equal(res.status, status, `${label} ${JSON.stringify(res.body)}`);
}

function iso(value: unknown): string {
  assert.equal(typeof value, 'string', `not a timestamp: ${JSON.stringify(value)}`);
  assert.equal(new Date(value as string).toISOString(), value);
  return value as string;
}

type WaChannel = WhatsAppChannel;

let seq = 0;
const wamid = (p = 'in') => `wamid.${p}.${Date.now().toString(36)}.${(seq++).toString(36)}`;

const webhook = graphWebhook;

const textMessage = (from: string, id: string, body: string, name = 'Maria') =>
  customerText({ from, id, body, name });

/** The customer's timestamp of `textMessage`, kept as `content.sentAt`. */
const SENT_AT = new Date(Number(GRAPH_MESSAGE_TIMESTAMP) * 1000).toISOString();

const status = (id: string, s: string, extra: Record<string, unknown> = {}) =>
  statusUpdate({ id, status: s, extra });

describe('WhatsApp Cloud channels and inbound webhooks', () => {
  let t: TestApp;
  let f: Fixture;
  const admin = () => bearer(f.adminToken);

  before(async () => {
    t = await startTestApp();
    f = await seedAccount(t.server.services);
  });
  after(async () => t?.close());

  const createChannel = (opts: { queue?: string } = {}): Promise<WaChannel> => createWhatsAppChannel(f, opts);

  const post = (ch: WaChannel, body: unknown, headers?: Record<string, string>) => {
    const raw = typeof body === 'string' ? body : JSON.stringify(body);
    return t.request('POST', `/webhooks/whatsapp/${ch.id}`, {
      headers: headers ?? {
        'content-type': 'application/json',
        'x-hub-signature-256': sign(raw, ch.appSecret),
      },
      raw,
    });
  };

  const events = (channelId: string) =>
    t.server.services.db
      .selectFrom('inbound_webhook_events')
      .select(['id', 'processed_at'])
      .where('channel_id', '=', channelId)
      .execute();

  /** Waits (bounded) until the job has processed every stored delivery of the channel. */
  async function settled(channelId: string): Promise<void> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const rows = await events(channelId);
      if (rows.every((r) => r.processed_at !== null)) return;
      if (Date.now() > deadline) assert.fail(`webhook deliveries of ${channelId} still unprocessed`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Posts a signed delivery, expects 200 and waits until it is processed. */
  async function deliver(ch: WaChannel, body: unknown): Promise<void> {
    const res = await post(ch, body);
    expectStatus(res, 200);
    assert.deepEqual(res.body, { status: 'ok' });
    await settled(ch.id);
  }

  const messagesOf = (channelId: string) =>
    t.server.services.db
      .selectFrom('messages')
      .select(['id', 'chat_id', 'origin', 'type', 'content', 'status', 'provider_message_id', 'error'])
      .where('channel_id', '=', channelId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();

  const chatsOf = (channelId: string) =>
    t.server.services.db
      .selectFrom('chats')
      .select(['id', 'contact_id'])
      .where('channel_id', '=', channelId)
      .execute();

  const chat = async (id: string) => {
    const res = await t.request('GET', `/api/chats/${id}`, { headers: admin() });
    expectStatus(res, 200);
    return res.json;
  };

  const contact = (id: string) =>
    t.server.services.db
      .selectFrom('contacts')
      .select(['value', 'name', 'provider_address'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  describe('channels', () => {
    it('creates a WhatsApp channel and never answers with its secrets', async () => {
      const body = {
        name: 'WhatsApp Vendas',
        provider: 'whatsapp-cloud',
        defaultTeamId: f.teams[1]!.id,
        queue: 'Triagem',
        providerConfig: {
          phoneNumberId: '106540352242922',
          accessToken: 'EAAG-very-secret-token',
          appSecret: 'the-app-secret',
          verifyToken: 'the-verify-token',
        },
      };
      const created = await t.request('POST', '/api/channels', { headers: admin(), body });
      expectStatus(created, 201);
      const id = created.json.id as string;
      const expected = {
        id,
        name: 'WhatsApp Vendas',
        provider: 'whatsapp-cloud',
        providerConfig: {
          phoneNumberId: '106540352242922',
          accessTokenSet: true,
          appSecretSet: true,
          verifyTokenSet: true,
        },
        apiEnabled: true,
        hasApiKey: false,
        defaultTeamId: f.teams[1]!.id,
        queue: 'Triagem',
        health: 'ok',
        healthReason: null,
        unhealthySince: null,
        sendReadReceipts: false,
        // No bot routing.
        botId: null,
        botHours: null,
        createdAt: iso(created.json.createdAt),
        updatedAt: iso(created.json.updatedAt),
      };
      assert.deepEqual(created.body, expected);

      const got = await t.request('GET', `/api/channels/${id}`, { headers: admin() });
      assert.deepEqual(got.body, expected);
      const list = await t.request('GET', '/api/channels', { headers: admin() });
      assert.deepEqual(
        (list.body as { id: string }[]).find((c) => c.id === id),
        expected,
      );
      for (const res of [created, got, list]) {
        const text = JSON.stringify(res.body);
        for (const secret of ['EAAG-very-secret-token', 'the-app-secret', 'the-verify-token']) {
          assert.ok(!text.includes(secret), `${secret} leaked`);
        }
      }

      // A change sends only what changes; the other settings stay.
      const patched = await t.request('PATCH', `/api/channels/${id}`, {
        headers: admin(),
        body: { providerConfig: { accessToken: 'EAAG-rotated-token' } },
      });
      expectStatus(patched, 200);
      assert.deepEqual(patched.body, { ...expected, updatedAt: iso(patched.json.updatedAt) });
      const stored = await t.server.services.db
        .selectFrom('channels')
        .select('provider_config')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(stored.provider_config, { ...body.providerConfig, accessToken: 'EAAG-rotated-token' });
    });

    it('refuses incomplete or foreign provider settings with the fields named', async () => {
      const base = { name: 'X', defaultTeamId: f.teams[0]!.id };
      const full = { phoneNumberId: '1', accessToken: 'a', appSecret: 's', verifyToken: 'v' };
      const cases: [unknown, string[]][] = [
        // Required by the WhatsApp branch of the schema itself (generated clients know it).
        [{ ...base, provider: 'whatsapp-cloud' }, ['providerConfig should not be empty']],
        [
          { ...base, provider: 'whatsapp-cloud', providerConfig: { ...full, appSecret: undefined } },
          ['providerConfig.appSecret should not be empty'],
        ],
        [
          { ...base, provider: 'whatsapp-cloud', providerConfig: { ...full, verifyToken: '' } },
          ['providerConfig.verifyToken should not be empty'],
        ],
        [
          { ...base, provider: 'whatsapp-cloud', providerConfig: { ...full, phoneNumberId: '../me' } },
          ['providerConfig.phoneNumberId must match ^[0-9]{1,32}$ regular expression'],
        ],
        [
          { ...base, provider: 'whatsapp-cloud', providerConfig: { ...full, token: 'x' } },
          ['property providerConfig.token should not exist'],
        ],
        [
          { ...base, provider: 'sandbox', providerConfig: { accessToken: 'a' } },
          ['property providerConfig.accessToken should not exist'],
        ],
        [
          { ...base, provider: 'telegram' },
          ['provider must be one of the following values: sandbox, whatsapp-cloud'],
        ],
      ];
      for (const [body, message] of cases) {
        const res = await t.request('POST', '/api/channels', { headers: admin(), body });
        assert.deepEqual(res.body, badRequest(message), JSON.stringify(body));
      }

      const sandbox = f.channels[0]!.id;
      const patch = (id: string, body: unknown) =>
        t.request('PATCH', `/api/channels/${id}`, { headers: admin(), body });
      assert.deepEqual(
        (await patch(sandbox, { providerConfig: { appSecret: 's' } })).body,
        badRequest(['property providerConfig.appSecret should not exist']),
      );
      // Becoming a WhatsApp channel takes the complete settings.
      assert.deepEqual(
        (await patch(sandbox, { provider: 'whatsapp-cloud', providerConfig: { accessToken: 'a' } })).body,
        badRequest([
          'providerConfig.phoneNumberId should not be empty',
          'providerConfig.appSecret should not be empty',
          'providerConfig.verifyToken should not be empty',
        ]),
      );
      const wa = await createChannel();
      const emptied = await patch(wa.id, { providerConfig: { accessToken: '' } });
      assert.deepEqual(emptied.body, badRequest(['providerConfig.accessToken should not be empty']));
    });

    it('turns a sandbox channel into a WhatsApp channel and back', async () => {
      const ch = await f.services.channels.create(f.admin, {
        name: 'Teste',
        provider: 'sandbox',
        defaultTeamId: f.teams[0]!.id,
      });
      const full = { phoneNumberId: '42', accessToken: 'a', appSecret: 's', verifyToken: 'v' };
      const up = await t.request('PATCH', `/api/channels/${ch.id}`, {
        headers: admin(),
        body: { provider: 'whatsapp-cloud', providerConfig: full },
      });
      expectStatus(up, 200);
      assert.equal(up.json.provider, 'whatsapp-cloud');
      assert.deepEqual(up.json.providerConfig, {
        phoneNumberId: '42',
        accessTokenSet: true,
        appSecretSet: true,
        verifyTokenSet: true,
      });
      const back = await t.request('PATCH', `/api/channels/${ch.id}`, {
        headers: admin(),
        body: { provider: 'sandbox' },
      });
      expectStatus(back, 200);
      assert.equal(back.json.provider, 'sandbox');
      assert.deepEqual(back.json.providerConfig, {});
      const stored = await t.server.services.db
        .selectFrom('channels')
        .select('provider_config')
        .where('id', '=', ch.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(stored.provider_config, {});
    });
  });

  describe('verification handshake', () => {
    let ch: WaChannel;
    before(async () => {
      ch = await createChannel();
    });
    const verify = (channelId: string, query: Record<string, string>) =>
      t.request('GET', `/webhooks/whatsapp/${channelId}?${new URLSearchParams(query).toString()}`);

    it("echoes the challenge as text when the channel's verify token matches", async () => {
      const res = await verify(ch.id, {
        'hub.mode': 'subscribe',
        'hub.verify_token': ch.verifyToken,
        'hub.challenge': '1158201444',
      });
      expectStatus(res, 200);
      assert.equal(res.body, 1158201444);
      assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
      const text = await fetch(
        `${t.url}/webhooks/whatsapp/${ch.id}?hub.mode=subscribe&hub.verify_token=${ch.verifyToken}&hub.challenge=abc`,
      );
      assert.equal(await text.text(), 'abc');
    });

    it('answers 403 to a wrong or missing token or mode', async () => {
      const cases: Record<string, string>[] = [
        { 'hub.mode': 'subscribe', 'hub.verify_token': 'wrong', 'hub.challenge': '1' },
        { 'hub.mode': 'subscribe', 'hub.verify_token': `${ch.verifyToken}x`, 'hub.challenge': '1' },
        { 'hub.mode': 'unsubscribe', 'hub.verify_token': ch.verifyToken, 'hub.challenge': '1' },
        { 'hub.mode': 'subscribe', 'hub.challenge': '1' },
        { 'hub.mode': 'subscribe', 'hub.verify_token': ch.verifyToken },
        {},
      ];
      for (const query of cases) {
        const res = await verify(ch.id, query);
        assert.deepEqual([res.status, res.body], [403, FORBIDDEN], JSON.stringify(query));
      }
    });

    it('answers 404 for an unknown channel, a sandbox channel and a malformed id', async () => {
      const query = { 'hub.mode': 'subscribe', 'hub.verify_token': ch.verifyToken, 'hub.challenge': '1' };
      for (const id of [newId(), f.channels[0]!.id, 'not-an-id']) {
        const res = await verify(id, query);
        assert.deepEqual([res.status, res.body], [404, NOT_FOUND], id);
        const posted = await post({ ...ch, id }, webhook(ch.phoneNumberId, {}));
        assert.deepEqual([posted.status, posted.body], [404, NOT_FOUND], id);
      }
    });
  });

  describe('deliveries', () => {
    it('opens a chat in the channel queue for its default team, then appends and counts unread', async () => {
      const ch = await createChannel({ queue: 'Triagem WhatsApp' });
      const first = wamid();
      await deliver(ch, webhook(ch.phoneNumberId, textMessage('5511987654321', first, 'Oi')));

      const [opened] = await chatsOf(ch.id);
      assert.ok(opened);
      const [m1] = await messagesOf(ch.id);
      assert.deepEqual(m1, {
        id: m1!.id,
        chat_id: opened.id,
        origin: 'contact',
        type: 'text',
        content: { text: 'Oi', sentAt: SENT_AT },
        status: 'received',
        provider_message_id: first,
        error: null,
      });
      const view = await chat(opened.id);
      assert.deepEqual(view, {
        id: opened.id,
        status: 'open',
        queue: 'Triagem WhatsApp',
        channelId: ch.id,
        teamId: f.teams[0]!.id,
        userId: null,
        contact: { id: opened.contact_id, name: 'Maria', value: '5511987654321' },
        customerId: opened.contact_id,
        unreadMessages: 1,
        lastMessage: {
          id: m1!.id,
          origin: 'contact',
          type: 'text',
          content: 'Oi',
          createdAt: iso((view.lastMessage as { createdAt: unknown }).createdAt),
        },
        createdAt: iso(view.createdAt),
        updatedAt: iso(view.updatedAt),
        labels: [],
        // The customer's message opened the 24-hour window.
        window: {
          open: true,
          expiresAt: new Date(
            Date.parse(String((view.lastMessage as { createdAt: unknown }).createdAt)) + 24 * 3600 * 1000,
          ).toISOString(),
        },
        snooze: null,
        // No SLA on the team; no bot holds it.
        sla: null,
        botId: null,
      });
      assert.deepEqual(await contact(opened.contact_id), {
        value: '5511987654321',
        name: 'Maria',
        provider_address: '5511987654321',
      });

      await deliver(ch, webhook(ch.phoneNumberId, textMessage('5511987654321', wamid(), 'Tudo bem?')));
      const msgs = await messagesOf(ch.id);
      assert.equal(msgs.length, 2);
      assert.ok(msgs.every((m) => m.chat_id === opened.id));
      const appended = await chat(opened.id);
      assert.equal(appended.unreadMessages, 2);
      assert.deepEqual(appended.lastMessage, {
        id: msgs[1]!.id,
        origin: 'contact',
        type: 'text',
        content: 'Tudo bem?',
        createdAt: iso((appended.lastMessage as { createdAt: unknown }).createdAt),
      });
      assert.deepEqual((await chatsOf(ch.id)).length, 1);
    });

    it('stores deliveries arriving together in one transaction, and turns each into its chat', async () => {
      const ch = await createChannel();
      const numbers = Array.from({ length: 30 }, (_, i) => `55119876${String(54000 + i)}`);
      const ids = numbers.map(() => wamid());
      const answers = await Promise.all(
        numbers.map((n, i) => post(ch, webhook(ch.phoneNumberId, textMessage(n, ids[i]!, `Oi ${i}`)))),
      );
      for (const res of answers) expectStatus(res, 200);
      await settled(ch.id);

      // Deliveries that arrived together were stored together: rows of one transaction share its start
      // time, their `received_at`.
      const { rows } = await sql<{ id: string; tx: string }>`
        SELECT id, received_at::text AS tx FROM inbound_webhook_events WHERE channel_id = ${ch.id}`.execute(
        t.server.services.db,
      );
      assert.equal(rows.length, 30);
      const transactions = new Set(rows.map((r) => r.tx)).size;
      assert.ok(transactions < 30, `${transactions} transactions for 30 deliveries arriving together`);
      // Each has its own job, which every version's worker reads.
      const jobs = await sql<{ id: string }>`
        SELECT data->>'eventId' AS id FROM atende_jobs.job
        WHERE name = 'inbound-webhook' AND data->>'eventId' = ANY(${rows.map((r) => r.id)}::text[])`.execute(
        t.server.services.db,
      );
      assert.deepEqual(jobs.rows.map((j) => j.id).sort(), rows.map((r) => r.id).sort());

      const msgs = await messagesOf(ch.id);
      assert.deepEqual(msgs.map((m) => m.provider_message_id).sort(), [...ids].sort());
      assert.equal(new Set(msgs.map((m) => m.chat_id)).size, 30);
      assert.equal((await chatsOf(ch.id)).length, 30);
    });

    it('stores media with its id and type, summarized in the chat list', async () => {
      const ch = await createChannel();
      const id = wamid();
      await deliver(
        ch,
        webhook(ch.phoneNumberId, {
          contacts: [{ profile: { name: 'Ana' }, wa_id: '5521987650000' }],
          messages: [
            {
              from: '5521987650000',
              id,
              timestamp: '1744344496',
              type: 'image',
              image: { id: 'media-1', mime_type: 'image/jpeg', sha256: 'abc=', caption: 'Comprovante' },
            },
          ],
        }),
      );
      const [m] = await messagesOf(ch.id);
      assert.equal(m!.type, 'image');
      // `status`/`error` are the download's outcome (test/media/media.test.ts), written by its own job.
      const { status: _status, error: _error, ...media } = m!.content.media as Record<string, unknown>;
      assert.deepEqual(
        { ...m!.content, media },
        {
          text: 'Comprovante',
          media: { id: 'media-1', mimetype: 'image/jpeg', sha256: 'abc=', caption: 'Comprovante' },
          sentAt: SENT_AT,
        },
      );
      const view = await chat(m!.chat_id);
      assert.equal((view.lastMessage as { content: string }).content, '[image] Comprovante');
      assert.equal((view.lastMessage as { type: string }).type, 'image');
    });

    it('answers 401 to a missing or wrong signature and stores nothing', async () => {
      const ch = await createChannel();
      const raw = JSON.stringify(webhook(ch.phoneNumberId, textMessage('5511987654321', wamid(), 'Oi')));
      const cases: [Record<string, string>, string][] = [
        [{ 'content-type': 'application/json' }, 'Missing x-hub-signature-256 header'],
        [
          { 'content-type': 'application/json', 'x-hub-signature-256': sign(raw, 'another-secret') },
          'Invalid x-hub-signature-256 signature',
        ],
        [
          { 'content-type': 'application/json', 'x-hub-signature-256': sign(`${raw} `, ch.appSecret) },
          'Invalid x-hub-signature-256 signature',
        ],
        [
          { 'content-type': 'application/json', 'x-hub-signature-256': 'sha256=nothex' },
          'Invalid x-hub-signature-256 signature',
        ],
        [
          { 'content-type': 'application/json', 'x-hub-signature-256': sign(raw, ch.appSecret).slice(7) },
          'Invalid x-hub-signature-256 signature',
        ],
      ];
      for (const [headers, message] of cases) {
        const res = await post(ch, raw, headers);
        assert.deepEqual([res.status, res.body], [401, unauthorized(message)], JSON.stringify(headers));
      }
      assert.deepEqual(await events(ch.id), []);
      assert.deepEqual(await messagesOf(ch.id), []);
    });

    it('answers 400 to a signed body that is not JSON, 413 to an oversize one', async () => {
      const ch = await createChannel();
      for (const raw of ['{"entry": [', 'not json', '']) {
        const res = await post(ch, raw, {
          'content-type': 'application/json',
          'x-hub-signature-256': sign(raw, ch.appSecret),
        });
        assert.deepEqual([res.status, res.body], [400, badRequest('Malformed JSON body')], raw);
      }
      const huge = JSON.stringify({ object: 'x', pad: 'x'.repeat(4 * 1024 * 1024) });
      const res = await post(ch, huge);
      assert.deepEqual(
        [res.status, res.body],
        [413, { statusCode: 413, message: 'Request body is too large', error: 'Payload Too Large' }],
      );
      assert.deepEqual(await events(ch.id), []);
    });

    it('accepts a delivery of almost 3 MB', async () => {
      const ch = await createChannel();
      const body = webhook(ch.phoneNumberId, {
        ...textMessage('5511987654321', wamid(), 'Oi'),
        padding: 'x'.repeat(3 * 1024 * 1024 - 1000),
      });
      await deliver(ch, body);
      assert.equal((await messagesOf(ch.id)).length, 1);
    });

    it('ignores a redelivered message (same wamid): one message, unread unchanged', async () => {
      const ch = await createChannel();
      const id = wamid();
      const body = webhook(ch.phoneNumberId, textMessage('5511987654321', id, 'Oi'));
      await deliver(ch, body);
      await deliver(ch, body);
      // Both deliveries in flight at once.
      const again = webhook(ch.phoneNumberId, textMessage('5511987654321', wamid(), 'De novo'));
      const both = await Promise.all([post(ch, again), post(ch, again)]);
      assert.deepEqual(
        both.map((r) => r.status),
        [200, 200],
      );
      await settled(ch.id);
      const msgs = await messagesOf(ch.id);
      assert.deepEqual(
        msgs.map((m) => m.content),
        [
          { text: 'Oi', sentAt: SENT_AT },
          { text: 'De novo', sentAt: SENT_AT },
        ],
      );
      assert.equal((await events(ch.id)).length, 4);
      const view = await chat(msgs[0]!.chat_id);
      assert.equal(view.unreadMessages, 2);
      assert.equal((await chatsOf(ch.id)).length, 1);
    });

    it('lands a Brazilian reply from the number without the ninth digit in the same chat', async () => {
      const ch = await createChannel();
      await deliver(ch, webhook(ch.phoneNumberId, textMessage('5511987654321', wamid(), 'Oi', 'Maria')));
      const [opened] = await chatsOf(ch.id);
      assert.ok(opened);
      // An account from before the ninth digit: Meta's wa_id and `from` have 12 digits.
      await deliver(
        ch,
        webhook(ch.phoneNumberId, textMessage('551187654321', wamid(), 'Sou eu', 'Maria S.')),
      );
      assert.deepEqual(
        (await chatsOf(ch.id)).map((c) => c.id),
        [opened.id],
      );
      const view = await chat(opened.id);
      assert.equal(view.unreadMessages, 2);
      assert.deepEqual(view.contact, { id: opened.contact_id, name: 'Maria S.', value: '5511987654321' });
      // Replies go to the address Meta last gave.
      assert.deepEqual(await contact(opened.contact_id), {
        value: '5511987654321',
        name: 'Maria S.',
        provider_address: '551187654321',
      });
      // A landline keeps its 8 digits and is another contact.
      await deliver(ch, webhook(ch.phoneNumberId, textMessage('551133334444', wamid(), 'Empresa')));
      const chats = await chatsOf(ch.id);
      assert.equal(chats.length, 2);
      const other = chats.find((c) => c.id !== opened.id)!;
      assert.equal((await contact(other.contact_id)).value, '551133334444');
    });

    it('skips changes addressed to another phone number of the same Meta app', async () => {
      const ch = await createChannel();
      await deliver(ch, webhook('999999999', textMessage('5511987654321', wamid(), 'Não é daqui')));
      assert.deepEqual(await messagesOf(ch.id), []);
      assert.deepEqual(await chatsOf(ch.id), []);
    });

    it('processes junk, unknown fields and types without failing the job', async () => {
      const ch = await createChannel();
      const hologram = wamid();
      const bodies: unknown[] = [
        {},
        [],
        'text',
        42,
        null,
        { object: 'whatsapp_business_account', entry: 'x' },
        { entry: [{ changes: [{ field: 'messages', value: { messages: [{ id: 5 }], statuses: [{}] } }] }] },
        { entry: [{ changes: [{ field: 'account_update', value: { foo: 'bar' } }] }] },
        webhook(ch.phoneNumberId, {
          messages: [{ from: '5511987654321', id: hologram, timestamp: 'x', type: 'hologram', hologram: {} }],
          statuses: [{ id: 'wamid.x', status: 'teleported', timestamp: '1' }],
          unknown_field: { nested: [1, 2, 3] },
        }),
        webhook(ch.phoneNumberId, {
          messages: [{ from: 'not-a-number', id: wamid(), type: 'text', text: { body: 'x' } }],
        }),
      ];
      for (const body of bodies) await deliver(ch, JSON.stringify(body));
      // JSON escapes PostgreSQL's jsonb refuses: NUL and a lone surrogate, in a value and in a key.
      const id = wamid();
      await deliver(
        ch,
        JSON.stringify(
          webhook(ch.phoneNumberId, textMessage('5511987654321', id, 'a\u0000b\ud800c')),
        ).replace('"metadata"', '"meta\\u0000x":1,"metadata"'),
      );
      assert.equal((await events(ch.id)).length, bodies.length + 1);
      const msgs = await messagesOf(ch.id);
      // A type the platform does not know is kept as `unsupported` (see whatsapp-inbound-types).
      assert.deepEqual(
        msgs.map((m) => [m.provider_message_id, m.type]),
        [
          [hologram, 'unsupported'],
          [id, 'text'],
        ],
      );
      assert.deepEqual(msgs[1]!.content, { text: 'ab\ufffdc', sentAt: SENT_AT });
    });
  });

  describe('statuses', () => {
    let ch: WaChannel;
    let chatId: string;
    before(async () => {
      ch = await createChannel();
      await deliver(ch, webhook(ch.phoneNumberId, textMessage('5511987654321', wamid(), 'Oi')));
      chatId = (await chatsOf(ch.id))[0]!.id;
    });

    /** A message sent on the channel, as the send pipeline leaves it once the provider accepted it. */
    async function sent(initial: 'sent' | 'queued' = 'sent'): Promise<{ id: string; wamid: string }> {
      const services = t.server.services;
      const id = newId();
      const providerId = wamid('out');
      await services.db.transaction().execute((tx) =>
        services.repos.messages.insert(tx, {
          id,
          account_id: f.accountId,
          chat_id: chatId,
          channel_id: ch.id,
          origin: 'api',
          type: 'text',
          content: { text: 'Seu pedido saiu' },
          status: initial,
          provider_message_id: providerId,
        }),
      );
      return { id, wamid: providerId };
    }

    const stateOf = (id: string) =>
      t.server.services.db
        .selectFrom('messages')
        .select(['status', 'error'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();

    it('never moves backwards: read, then delivered, then sent ends read', async () => {
      const m = await sent();
      for (const s of ['read', 'delivered', 'sent'])
        await deliver(ch, webhook(ch.phoneNumberId, status(m.wamid, s)));
      assert.deepEqual(await stateOf(m.id), { status: 'read', error: null });
      const history = await t.server.services.db
        .selectFrom('message_status_events')
        .select('status')
        .where('channel_id', '=', ch.id)
        .where('provider_message_id', '=', m.wamid)
        .orderBy('status')
        .execute();
      assert.deepEqual(
        history.map((h) => h.status),
        ['delivered', 'read', 'sent'],
      );
    });

    it('moves forward step by step, and in one delivery out of order', async () => {
      const m = await sent('queued');
      await deliver(ch, webhook(ch.phoneNumberId, status(m.wamid, 'sent')));
      assert.deepEqual(await stateOf(m.id), { status: 'sent', error: null });
      await deliver(ch, webhook(ch.phoneNumberId, status(m.wamid, 'delivered')));
      assert.deepEqual(await stateOf(m.id), { status: 'delivered', error: null });

      const n = await sent();
      await deliver(
        ch,
        webhook(ch.phoneNumberId, {
          statuses: ['delivered', 'read', 'sent'].map((s) => status(n.wamid, s).statuses[0]),
        }),
      );
      assert.deepEqual(await stateOf(n.id), { status: 'read', error: null });
    });

    it('stores a failure with its code and message; a later read proves delivery', async () => {
      const failure = {
        errors: [{ code: 131049, title: 'Not delivered', message: 'This message was not delivered' }],
      };
      const m = await sent();
      await deliver(ch, webhook(ch.phoneNumberId, status(m.wamid, 'failed', failure)));
      const failed = {
        status: 'failed',
        error: { code: '131049', message: 'This message was not delivered' },
      };
      assert.deepEqual(await stateOf(m.id), failed);
      // Failed is final against delivered and sent, and a redelivered failure changes nothing.
      for (const s of ['delivered', 'sent']) await deliver(ch, webhook(ch.phoneNumberId, status(m.wamid, s)));
      await deliver(ch, webhook(ch.phoneNumberId, status(m.wamid, 'failed', failure)));
      assert.deepEqual(await stateOf(m.id), failed);
      await deliver(ch, webhook(ch.phoneNumberId, status(m.wamid, 'read')));
      assert.deepEqual(await stateOf(m.id), { status: 'read', error: null });

      // A failure after delivery was proven does not undo it.
      const n = await sent();
      await deliver(ch, webhook(ch.phoneNumberId, status(n.wamid, 'delivered')));
      await deliver(ch, webhook(ch.phoneNumberId, status(n.wamid, 'failed', failure)));
      assert.deepEqual(await stateOf(n.id), { status: 'delivered', error: null });
    });

    it('ignores statuses of unknown messages and of messages the customer sent', async () => {
      const snapshot = await messagesOf(ch.id);
      await deliver(ch, webhook(ch.phoneNumberId, status('wamid.unknown', 'read')));
      const inbound = snapshot.find((m) => m.origin === 'contact')!;
      await deliver(ch, webhook(ch.phoneNumberId, status(inbound.provider_message_id!, 'read')));
      assert.deepEqual(await messagesOf(ch.id), snapshot);
    });

    it('applies statuses that outran the storing of the message id once the send pipeline catches up', async () => {
      const services = t.server.services;
      const providerId = wamid('early');
      await deliver(ch, webhook(ch.phoneNumberId, status(providerId, 'delivered')));
      await deliver(ch, webhook(ch.phoneNumberId, status(providerId, 'sent')));
      const id = newId();
      await services.db.transaction().execute(async (tx) => {
        await services.repos.messages.insert(tx, {
          id,
          account_id: f.accountId,
          chat_id: chatId,
          channel_id: ch.id,
          origin: 'api',
          type: 'text',
          content: { text: 'Rápido demais' },
          status: 'sent',
          provider_message_id: providerId,
        });
        await services.messageStatuses.catchUpMany(tx, [{ channelId: ch.id, providerMessageId: providerId }]);
      });
      assert.deepEqual(await stateOf(id), { status: 'delivered', error: null });
    });

    it('changes nothing twice when a delivery is processed again after a crash', async () => {
      const m = await sent();
      const newMessage = wamid();
      const body = webhook(ch.phoneNumberId, {
        ...textMessage('5511987654321', newMessage, 'Chegou?'),
        ...status(m.wamid, 'delivered'),
      });
      await deliver(ch, body);
      const msgsBefore = await messagesOf(ch.id);
      const chatBefore = await chat(chatId);
      assert.deepEqual(await stateOf(m.id), { status: 'delivered', error: null });

      // The job died after its work but before marking the delivery processed: it runs again.
      const services = t.server.services;
      const [last] = await services.db
        .selectFrom('inbound_webhook_events')
        .select('id')
        .where('channel_id', '=', ch.id)
        .orderBy('received_at', 'desc')
        .limit(1)
        .execute();
      await services.db
        .updateTable('inbound_webhook_events')
        .set({ processed_at: null })
        .where('id', '=', last!.id)
        .execute();
      await services.providerWebhooks.process(last!.id);
      assert.deepEqual(await messagesOf(ch.id), msgsBefore);
      assert.deepEqual(await chat(chatId), chatBefore);
      assert.deepEqual(await stateOf(m.id), { status: 'delivered', error: null });
      await settled(ch.id);
    });
  });

  it('keeps the sandbox inbound route on its JSON body', async () => {
    const res = await t.request('POST', `/api/sandbox/channels/${f.channels[0]!.id}/inbound`, {
      headers: admin(),
      body: { from: '5511912345678', text: 'Oi' },
    });
    expectStatus(res, 201);
    const bad = await t.request('POST', `/api/sandbox/channels/${f.channels[0]!.id}/inbound`, {
      headers: { ...admin(), 'content-type': 'application/json' },
      raw: '{"from":',
    });
    assert.deepEqual(bad.body, badRequest('Malformed JSON body'));
  });
});

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../src/lib/ids.js';
import type { RepairReport } from '../../src/modules/contacts/contact-repair.service.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { FakeGraph } from '../helpers/fake-graph.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { CLI, runNode } from '../helpers/processes.js';
import { createWhatsAppChannel, graphWebhook, type WhatsAppChannel } from '../helpers/whatsapp.js';

// `atende doctor` on a contact as the earlier reading of numbers left it: a Singapore customer
// (wa_id 6591234567) read as the Brazilian mobile 5565991234567 and merged with that Brazilian
// customer — one contact, shared chats, name and reply address of whoever wrote last. Their messages'
// senders were not recorded then; only the stored webhooks say who wrote.

const TIMEOUT = 180_000;
/** Minutes of an afternoon that ended an hour ago: recent enough for the 24-hour window. */
const START = Math.floor(Date.now() / 60_000) * 60_000 - 2 * 3600_000;
const minute = (n: number) => new Date(START + n * 60_000);

interface Seeded {
  merged: string;
  oldChat: string;
  sharedChat: string;
  renumbered: string;
  brazilian12: string;
  ids: Record<'b0' | 'a1' | 'u1' | 'b1' | 'p1' | 'b2' | 'c1' | 'n1' | 'n2' | 'm1' | 'm2' | 'm3', string>;
  requestId: string;
}

describe('atende doctor', () => {
  let t: TestApp;
  let f: Fixture;
  let graph: FakeGraph;
  let ch: WhatsAppChannel;
  let seeded: Seeded;
  const env = () => ({ DATABASE_URL: t.databaseUrl });
  const db = () => t.server.services.db;
  const agent = () => ({ authorization: `Bearer ${f.agents[0]!.token}` });

  before(async () => {
    graph = await FakeGraph.start();
    t = await startTestApp({ env: { WHATSAPP_GRAPH_BASE_URL: graph.url } });
    f = await seedAccount(t.server.services);
    ch = await createWhatsAppChannel(f, { name: 'WhatsApp Vendas' });
    seeded = await seedMerged();
  });
  after(async () => {
    await t?.close();
    await graph?.close();
  });

  /** A customer's message as a stored webhook (received then, already processed). */
  async function storedWebhook(
    waId: string,
    name: string,
    id: string,
    at: Date,
    content: Record<string, unknown> = { type: 'text', text: { body: id } },
  ): Promise<void> {
    const body = graphWebhook(ch.phoneNumberId, {
      contacts: [{ profile: { name }, wa_id: waId }],
      messages: [{ from: waId, id, timestamp: String(Math.floor(at.getTime() / 1000)), ...content }],
    });
    await db()
      .insertInto('inbound_webhook_events')
      .values({
        id: newId(),
        account_id: f.accountId,
        channel_id: ch.id,
        provider: 'whatsapp-cloud',
        body: JSON.stringify(body),
        received_at: at,
        processed_at: at,
      })
      .execute();
  }

  /** What the earlier code stored: contacts, chats and messages, with no sender on the messages. */
  async function seedMerged(): Promise<Seeded> {
    const contact = async (value: string, name: string, address: string) => {
      const id = newId();
      await db()
        .insertInto('contacts')
        .values({
          id,
          account_id: f.accountId,
          channel_id: ch.id,
          type: 'phone',
          value,
          name,
          provider_address: address,
          last_inbound_at: minute(50),
        })
        .execute();
      return id;
    };
    const chat = async (contactId: string, status: 'open' | 'closed', createdAt: Date, unread: number) => {
      const id = newId();
      await db()
        .insertInto('chats')
        .values({
          id,
          account_id: f.accountId,
          channel_id: ch.id,
          contact_id: contactId,
          team_id: f.teams[0]!.id,
          queue: 'Espera',
          status,
          unread_messages: unread,
          created_at: createdAt,
          closed_at: status === 'closed' ? minute(5) : null,
        })
        .execute();
      return id;
    };
    const ids = {
      b0: 'wamid.sg.0',
      a1: 'wamid.br.1',
      u1: newId(),
      b1: 'wamid.sg.1',
      p1: newId(),
      b2: 'wamid.sg.2',
      c1: 'wamid.cg.1',
      n1: 'wamid.br12.1',
      n2: 'wamid.br12.2',
      m1: 'wamid.moved.1',
      m2: 'wamid.moved.2',
      m3: 'wamid.moved.3',
    };
    const message = async (
      chatId: string,
      key: keyof typeof ids,
      origin: 'contact' | 'user' | 'api',
      text: string,
      at: Date,
      extra: { user_id?: string; request_id?: string; type?: string; content?: string } = {},
    ) => {
      const id = origin === 'contact' ? newId() : ids[key];
      await db()
        .insertInto('messages')
        .values({
          id,
          account_id: f.accountId,
          chat_id: chatId,
          channel_id: ch.id,
          origin,
          type: 'text',
          content: JSON.stringify({ text }),
          status: origin === 'contact' ? 'received' : 'delivered',
          provider_message_id: origin === 'contact' ? ids[key] : `wamid.out.${key}`,
          created_at: at,
          updated_at: at,
          ...extra,
        })
        .execute();
      if (origin === 'contact') ids[key] = id;
    };

    // Singapore wrote first, then the Brazilian customer, then Singapore again: the contact is keyed
    // by the Brazilian number and carries Singapore's name and address (the last writer's).
    const merged = await contact('5565991234567', 'Wei Ling', '6591234567');
    const oldChat = await chat(merged, 'closed', minute(0), 0);
    await storedWebhook('6591234567', 'Wei Ling', ids.b0, minute(1));
    await message(oldChat, 'b0', 'contact', 'Hello, is the shop open?', minute(1));
    const sharedChat = await chat(merged, 'open', minute(10), 2);
    await storedWebhook('5565991234567', 'Joana', ids.a1, minute(11));
    await message(sharedChat, 'a1', 'contact', 'Oi, meu pedido chegou?', minute(11));
    await message(sharedChat, 'u1', 'user', 'Olá Joana, chegou sim', minute(12), {
      user_id: f.agents[0]!.id,
    });
    await storedWebhook('6591234567', 'Wei Ling', ids.b1, minute(13));
    await message(sharedChat, 'b1', 'contact', 'Hello?', minute(13));
    const requestId = randomUUID();
    await message(sharedChat, 'p1', 'api', 'Your order shipped', minute(14), { request_id: requestId });
    await db()
      .insertInto('request_logs')
      .values({
        request_id: requestId,
        account_id: f.accountId,
        channel_id: ch.id,
        status: 'sent',
        contact: JSON.stringify({ type: 'phone', value: '5565991234567', name: null }),
        message_type: 'text',
        payload: JSON.stringify({ message: { type: 'text', text: 'Your order shipped' } }),
        metadata: JSON.stringify({}),
        message_id: ids.p1,
        chat_id: sharedChat,
      })
      .execute();
    await storedWebhook('6591234567', 'Wei Ling', ids.b2, minute(15));
    await message(sharedChat, 'b2', 'contact', 'Thanks!', minute(15));
    await db()
      .updateTable('chats')
      .set({
        last_message: JSON.stringify({
          id: ids.b2,
          origin: 'contact',
          type: 'text',
          content: 'Thanks!',
          createdAt: minute(15).toISOString(),
        }),
      })
      .where('id', '=', sharedChat)
      .execute();

    // A Congolese wa_id read as a landline of area 24: one customer, under a number not theirs.
    const renumbered = await contact('552423423243', 'Jean', '2423423243');
    const cgChat = await chat(renumbered, 'closed', minute(20), 0);
    await storedWebhook('2423423243', 'Jean', ids.c1, minute(21));
    await message(cgChat, 'c1', 'contact', 'Mbote', minute(21));

    // One Brazilian customer writing from both spellings of a mobile: nothing to repair.
    const brazilian12 = await contact('5511987654321', 'Maria', '551187654321');
    const brChat = await chat(brazilian12, 'open', minute(30), 2);
    await storedWebhook('5511987654321', 'Maria', ids.n1, minute(31));
    await message(brChat, 'n1', 'contact', 'Oi', minute(31));
    await storedWebhook('551187654321', 'Maria', ids.n2, minute(32));
    await message(brChat, 'n2', 'contact', 'Sou eu', minute(32));

    // A customer who changed numbers: the contact took the new one; the old one's messages are theirs.
    const changed = await contact('5511912345678', 'Rita', '5511912345678');
    const changedChat = await chat(changed, 'open', minute(40), 1);
    await storedWebhook('5511955554444', 'Rita', ids.m1, minute(41));
    await message(changedChat, 'm1', 'contact', 'Oi', minute(41));
    const system = {
      body: 'Rita changed her number',
      new_wa_id: '5511912345678',
      type: 'user_changed_number',
    };
    await storedWebhook('5511955554444', 'Rita', ids.m2, minute(42), { type: 'system', system });
    await message(changedChat, 'm2', 'contact', '', minute(42), {
      type: 'system',
      content: JSON.stringify({
        text: system.body,
        system: { kind: 'user_changed_number', body: system.body, newAddress: '5511912345678' },
      }),
    });
    await storedWebhook('5511912345678', 'Rita', ids.m3, minute(43));
    await message(changedChat, 'm3', 'contact', 'Meu número novo', minute(43));
    return { merged, oldChat, sharedChat, renumbered, brazilian12, ids, requestId };
  }

  /** Everything the repair may change, to compare before and after a dry run. */
  const snapshot = async () => ({
    contacts: await db()
      .selectFrom('contacts')
      .selectAll()
      .where('channel_id', '=', ch.id)
      .orderBy('id')
      .execute(),
    chats: await db().selectFrom('chats').selectAll().where('channel_id', '=', ch.id).orderBy('id').execute(),
    messages: await db()
      .selectFrom('messages')
      .selectAll()
      .where('channel_id', '=', ch.id)
      .orderBy('id')
      .execute(),
    notifications: await db()
      .selectFrom('notifications')
      .selectAll()
      .where('account_id', '=', f.accountId)
      .execute(),
    events: await db().selectFrom('events').select('seq').where('account_id', '=', f.accountId).execute(),
  });

  /** What a repair writes (without what the send worker keeps changing: statuses, events). */
  const repairable = async () => ({
    contacts: await db()
      .selectFrom('contacts')
      .selectAll()
      .where('channel_id', '=', ch.id)
      .orderBy('id')
      .execute(),
    chats: await db()
      .selectFrom('chats')
      .select(['id', 'contact_id', 'status', 'unread_messages', 'closed_at'])
      .where('channel_id', '=', ch.id)
      .orderBy('id')
      .execute(),
    messages: await db()
      .selectFrom('messages')
      .select(['id', 'chat_id', 'sender_address', 'sender_name'])
      .where('channel_id', '=', ch.id)
      .orderBy('id')
      .execute(),
    notifications: await db()
      .selectFrom('notifications')
      .selectAll()
      .where('account_id', '=', f.accountId)
      .execute(),
  });

  const chatOf = (messageId: string) =>
    db().selectFrom('messages').select('chat_id').where('id', '=', messageId).executeTakeFirstOrThrow();

  it('reports with --dry-run and changes nothing', { timeout: TIMEOUT }, async () => {
    const before = await snapshot();
    const res = await runNode(CLI, ['doctor', '--dry-run'], env());
    assert.equal(res.code, 0, res.stderr);
    const out = res.stdout;
    assert.match(out, /^Dry run: nothing is changed\./);
    assert.match(out, /10 older messages have no recorded sender/);
    assert.match(out, /2 contacts have messages from more than one customer/);
    assert.ok(out.includes(`Account "`) && out.includes(`channel "WhatsApp Vendas" (${ch.id})`), out);
    assert.ok(
      out.includes(`Contact 5565991234567 "Wei Ling" (${seeded.merged}): 2 messages of its own number`),
      out,
    );
    assert.ok(
      out.includes(
        '4 messages of 6591234567 "Wei Ling" (from 6591234567): would move to a new contact (1 chat moved whole, 1 chat split)',
      ),
      out,
    );
    assert.ok(
      out.includes(`Contact 552423423243 "Jean" (${seeded.renumbered}): 0 messages of its own number`),
      out,
    );
    assert.ok(
      out.includes('1 message of 2423423243 "Jean" (from 2423423243): the contact would take this number'),
      out,
    );
    assert.ok(!out.includes('5511987654321'), 'a ninth-digit spelling is the same customer');
    assert.ok(!out.includes('5511912345678'), 'a customer who changed numbers is one customer');
    assert.deepEqual(await snapshot(), before);
  });

  it(
    'splits the merged contact: contacts, chats, messages, names, reply addresses, events, notice',
    {
      timeout: TIMEOUT,
    },
    async () => {
      const res = await runNode(CLI, ['doctor', '--json'], env());
      assert.equal(res.code, 0, res.stderr);
      const report = JSON.parse(res.stdout) as RepairReport;
      assert.deepEqual([report.dryRun, report.withoutSender, report.sendersRecorded], [false, 10, 10]);
      assert.equal(report.findings.length, 2);

      const contacts = await db()
        .selectFrom('contacts')
        .select(['id', 'value', 'name', 'provider_address', 'last_inbound_at'])
        .where('channel_id', '=', ch.id)
        .orderBy('value')
        .execute();
      const singapore = contacts.find((c) => c.value === '6591234567');
      const changedId = contacts.find((c) => c.value === '5511912345678')?.id;
      assert.ok(singapore, JSON.stringify(contacts));
      assert.deepEqual(
        contacts.map((c) => [c.id, c.value, c.name, c.provider_address]),
        [
          [seeded.renumbered, '2423423243', 'Jean', '2423423243'],
          [changedId, '5511912345678', 'Rita', '5511912345678'],
          [seeded.brazilian12, '5511987654321', 'Maria', '551187654321'],
          [seeded.merged, '5565991234567', 'Joana', '5565991234567'],
          [singapore.id, '6591234567', 'Wei Ling', '6591234567'],
        ],
      );
      // The 24-hour window is each customer's own.
      assert.deepEqual(contacts.find((c) => c.id === seeded.merged)!.last_inbound_at, minute(11));
      assert.deepEqual(singapore.last_inbound_at, minute(15));

      const merged = report.findings.find((x) => x.action === 'split');
      const renumbered = report.findings.find((x) => x.action === 'renumber');
      assert.ok(merged && renumbered, res.stdout);
      const chats = await db()
        .selectFrom('chats')
        .select(['id', 'contact_id', 'status', 'unread_messages', 'last_message', 'team_id', 'queue'])
        .where('channel_id', '=', ch.id)
        .execute();
      const newChat = chats.find((c) => c.contact_id === singapore.id && c.id !== seeded.oldChat);
      assert.ok(newChat, JSON.stringify(chats));
      assert.deepEqual(merged, {
        accountId: f.accountId,
        accountName: merged.accountName,
        channelId: ch.id,
        channelName: 'WhatsApp Vendas',
        contact: { id: seeded.merged, value: '5565991234567', name: 'Wei Ling' },
        action: 'split',
        ownMessages: 2,
        customers: [
          {
            value: '6591234567',
            address: '6591234567',
            name: 'Wei Ling',
            messages: 4,
            contactId: singapore.id,
            chats: [
              { from: seeded.oldChat, into: seeded.oldChat, messages: 1 },
              { from: seeded.sharedChat, into: newChat.id, messages: 3 },
            ],
          },
        ],
      });
      assert.equal(renumbered.action, 'renumber');
      assert.equal(renumbered.customers[0]!.contactId, seeded.renumbered);

      // The shared chat stays the Brazilian customer's with her message and the reply she got; the
      // Singapore customer's messages, and the send that reached him, are in a chat of his own, open
      // in the same queue and team, with his unread messages; his older chat moved whole.
      const { ids } = seeded;
      for (const id of [ids.a1, ids.u1]) assert.equal((await chatOf(id)).chat_id, seeded.sharedChat);
      for (const id of [ids.b1, ids.p1, ids.b2]) assert.equal((await chatOf(id)).chat_id, newChat.id);
      assert.equal((await chatOf(ids.b0)).chat_id, seeded.oldChat);
      const shared = chats.find((c) => c.id === seeded.sharedChat)!;
      assert.deepEqual(
        [shared.contact_id, shared.status, shared.unread_messages, shared.last_message],
        [
          seeded.merged,
          'open',
          0,
          {
            id: ids.u1,
            origin: 'user',
            type: 'text',
            content: 'Olá Joana, chegou sim',
            createdAt: minute(12).toISOString(),
            userId: f.agents[0]!.id,
          },
        ],
      );
      assert.deepEqual(
        [newChat.status, newChat.unread_messages, newChat.team_id, newChat.queue, newChat.last_message],
        [
          'open',
          2,
          f.teams[0]!.id,
          'Espera',
          {
            id: ids.b2,
            origin: 'contact',
            type: 'text',
            content: 'Thanks!',
            createdAt: minute(15).toISOString(),
          },
        ],
      );
      assert.deepEqual(
        chats.filter((c) => c.id === seeded.oldChat).map((c) => [c.contact_id, c.status]),
        [[singapore.id, 'closed']],
      );
      const request = await db()
        .selectFrom('request_logs')
        .select('chat_id')
        .where('request_id', '=', seeded.requestId)
        .executeTakeFirstOrThrow();
      assert.equal(request.chat_id, newChat.id);
      // Every customer's message now says who sent it.
      const unrecorded = await db()
        .selectFrom('messages')
        .select('id')
        .where('channel_id', '=', ch.id)
        .where('origin', '=', 'contact')
        .where('sender_address', 'is', null)
        .execute();
      assert.deepEqual(unrecorded, []);

      // Events for what changed; the account's admin is told, once per contact.
      const events = await db()
        .selectFrom('events')
        .select(['event', 'data'])
        .where('account_id', '=', f.accountId)
        .orderBy('seq')
        .execute();
      const split = events.find((e) => e.event === 'chat.split');
      assert.ok(split, JSON.stringify(events.map((e) => e.event)));
      const data = split.data as {
        chat: { id: string };
        into: { id: string; contact: unknown };
        messageIds: string[];
      };
      assert.deepEqual(
        [data.chat.id, data.into.id, data.into.contact, data.messageIds],
        [
          seeded.sharedChat,
          newChat.id,
          { id: singapore.id, name: 'Wei Ling', value: '6591234567' },
          [ids.b1, ids.p1, ids.b2],
        ],
      );
      assert.ok(
        events.some(
          (e) => e.event === 'chat.new' && (e.data as { chat: { id: string } }).chat.id === newChat.id,
        ),
      );
      const notices = await db()
        .selectFrom('notifications')
        .select(['user_id', 'kind', 'data'])
        .where('account_id', '=', f.accountId)
        .execute();
      assert.deepEqual(
        notices
          .map((n) => [n.user_id, n.kind, (n.data as { contact: { value: string } }).contact.value])
          .sort(),
        [
          [f.admin.userId, 'contact.split', '552423423243'],
          [f.admin.userId, 'contact.split', '5565991234567'],
        ],
      );

      // Agents now answer each customer at their own address.
      for (const [chatId, to] of [
        [seeded.sharedChat, '+5565991234567'],
        [newChat.id, '+6591234567'],
      ] as const) {
        const captured = await t.request('POST', `/api/chats/${chatId}/capture`, { headers: agent() });
        assert.equal(captured.status, 200, JSON.stringify(captured.body));
        const sent = await t.request('POST', `/api/chats/${chatId}/messages`, {
          headers: agent(),
          body: { text: 'Oi' },
        });
        assert.equal(sent.status, 201, JSON.stringify(sent.body));
        assert.equal(((await graph.nextRequest()).json as { to: string }).to, to);
        const id = sent.json.id as string;
        for (let i = 0; i < 400; i++) {
          const row = await db()
            .selectFrom('messages')
            .select('status')
            .where('id', '=', id)
            .executeTakeFirstOrThrow();
          if (row.status !== 'queued') break;
          await new Promise((r) => setTimeout(r, 25));
        }
      }
    },
  );

  it('finds nothing on a second run', { timeout: TIMEOUT }, async () => {
    const before = await repairable();
    const res = await runNode(CLI, ['doctor'], env());
    assert.equal(res.code, 0, res.stderr);
    assert.equal(
      res.stdout,
      'Checked every contact against the senders of its messages.\n' +
        'No contact has messages from more than one customer: nothing to repair.\n',
    );
    assert.deepEqual(await repairable(), before);
  });
});

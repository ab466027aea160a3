import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { FakeGraph } from '../helpers/fake-graph.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import {
  createWhatsAppChannel,
  customerText,
  deliveriesProcessed,
  GRAPH_MESSAGE_TIMESTAMP,
  signedDelivery,
  type WhatsAppChannel,
} from '../helpers/whatsapp.js';

// A channel's built-in flow on WhatsApp Cloud, through signed webhooks: the greeting and the menu go
// to the (fake) Graph API as a text and interactive reply buttons (a list past three options), the
// customer's tap on a button routes the conversation, and the CSAT question at the close is a list
// whose answer is recorded.

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('built-in flows on WhatsApp Cloud', () => {
  let graph: FakeGraph;
  let t: TestApp;
  let f: Fixture;
  let db: pg.Pool;
  let wa: WhatsAppChannel;
  let n = 0;
  const wamid = () => `wamid.flow.${Date.now().toString(36)}.${++n}`;

  const flow = (options: { label: string; teamId: string }[]) => ({
    enabled: true,
    greeting: 'Olá!',
    menu: {
      prompt: 'Escolha:',
      options,
      interactive: true,
      invalidReply: 'Opção inválida.',
      maxAttempts: 3,
      timeoutMinutes: 10,
    },
    outOfHoursMessage: null,
    awayMessage: 'Ninguém online.',
    autoClose: null,
    csat: { question: 'Avalie de 1 a 5', thanks: 'Obrigado!', invalidReply: 'De 1 a 5.', windowHours: 2 },
  });

  const deliver = async (value: Record<string, unknown>) => {
    const res = await t.request(
      'POST',
      `/webhooks/whatsapp/${wa.id}`,
      signedDelivery(wa.phoneNumberId, wa.appSecret, value),
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.ok(await deliveriesProcessed(t.server.services.db, wa.id, { tries: 800, everyMs: 25 }));
  };
  const interactiveReply = (
    from: string,
    kind: 'button_reply' | 'list_reply',
    id: string,
    title: string,
  ) => ({
    contacts: [{ profile: { name: 'Maria' }, wa_id: from }],
    messages: [
      {
        from,
        id: wamid(),
        timestamp: GRAPH_MESSAGE_TIMESTAMP,
        type: 'interactive',
        interactive: { type: kind, [kind]: { id, title } },
      },
    ],
  });
  const chatOf = async (waId: string) =>
    (
      await db.query(
        `SELECT c.id, c.queue, c.team_id, c.status FROM chats c JOIN contacts ct ON ct.id = c.contact_id
         WHERE ct.channel_id = $1 AND ct.provider_address = $2 ORDER BY c.created_at DESC LIMIT 1`,
        [wa.id, waId],
      )
    ).rows[0] as { id: string; queue: string; team_id: string; status: string };
  /** The next message Graph receives; a test waiting for one never sent fails within 15 s, not at the file's timeout. */
  const sent = async () => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('no message reached Graph within 15 s')), 15_000);
    });
    try {
      return (await Promise.race([graph.nextRequest(), late])).json as Record<string, unknown>;
    } finally {
      clearTimeout(timer);
    }
  };

  before(async () => {
    graph = await FakeGraph.start();
    t = await startTestApp({ env: { WHATSAPP_GRAPH_BASE_URL: graph.url } });
    f = await seedAccount(t.server.services);
    db = new pg.Pool({ connectionString: t.databaseUrl, max: 2 });
    wa = await createWhatsAppChannel(f);
  });
  after(async () => {
    await db?.end();
    await t?.close();
    await graph?.close();
  });

  it('greets in the menu’s message of reply buttons, and a tap routes the conversation', async () => {
    const put = await t.request('PUT', `/api/channels/${wa.id}/flow`, {
      headers: bearer(f.adminToken),
      body: flow([
        { label: 'Vendas', teamId: f.teams[0]!.id },
        { label: 'Suporte', teamId: f.teams[1]!.id },
      ]),
    });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    const from = '5511987650001';
    await deliver(customerText({ from, id: wamid(), body: 'Oi' }));
    const to = `+${from}`;
    assert.deepEqual(await sent(), {
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to,
      type: 'interactive',
      interactive: {
        type: 'button',
        body: { text: 'Olá!\n\nEscolha:\n\n1. Vendas\n2. Suporte' },
        action: {
          buttons: [
            { type: 'reply', reply: { id: 'flow.option.1', title: 'Vendas' } },
            { type: 'reply', reply: { id: 'flow.option.2', title: 'Suporte' } },
          ],
        },
      },
    });
    assert.equal((await chatOf(from)).queue, 'Automação');
    await deliver(interactiveReply(from, 'button_reply', 'flow.option.2', 'Suporte'));
    const chat = await chatOf(from);
    assert.deepEqual([chat.queue, chat.team_id], ['Espera', f.teams[1]!.id]);
    assert.deepEqual((await sent()).text, { body: 'Ninguém online.', preview_url: false });

    // The close asks the rating as a list of five; the customer's choice is recorded.
    const agent = f.agents[1]!;
    assert.equal(
      (await t.request('POST', `/api/chats/${chat.id}/capture`, { headers: bearer(agent.token) })).status,
      200,
    );
    assert.equal(
      (await t.request('POST', `/api/chats/${chat.id}/close`, { headers: bearer(agent.token) })).status,
      200,
    );
    const question = await sent();
    assert.deepEqual(question.interactive, {
      type: 'list',
      body: { text: 'Avalie de 1 a 5' },
      action: {
        button: 'Avaliar',
        sections: [
          {
            rows: [
              { id: 'flow.csat.1', title: '1 – Muito insatisfeito' },
              { id: 'flow.csat.2', title: '2 – Insatisfeito' },
              { id: 'flow.csat.3', title: '3 – Neutro' },
              { id: 'flow.csat.4', title: '4 – Satisfeito' },
              { id: 'flow.csat.5', title: '5 – Muito satisfeito' },
            ],
          },
        ],
      },
    });
    await deliver(interactiveReply(from, 'list_reply', 'flow.csat.5', '5 – Muito satisfeito'));
    assert.deepEqual((await sent()).text, { body: 'Obrigado!', preview_url: false });
    const after = await chatOf(from);
    assert.deepEqual([after.id, after.status], [chat.id, 'closed']);
    const csat = await t.request('GET', `/api/chats/${chat.id}/csat`, { headers: bearer(f.adminToken) });
    assert.deepEqual(
      [(csat.json.csat as { score: number }).score, (csat.json.csat as { userId: string }).userId],
      [5, agent.id],
    );
  });

  it('past three options the menu is a list', async () => {
    const options = ['Vendas', 'Suporte', 'Financeiro', 'Outros'].map((label, i) => ({
      label,
      teamId: f.teams[i % 2]!.id,
    }));
    assert.equal(
      (
        await t.request('PUT', `/api/channels/${wa.id}/flow`, {
          headers: bearer(f.adminToken),
          body: flow(options),
        })
      ).status,
      200,
    );
    const from = '5511987650002';
    await deliver(customerText({ from, id: wamid(), body: 'Oi' }));
    const menu = await sent();
    assert.deepEqual(menu.interactive, {
      type: 'list',
      body: { text: 'Olá!\n\nEscolha:\n\n1. Vendas\n2. Suporte\n3. Financeiro\n4. Outros' },
      action: {
        button: 'Opções',
        sections: [
          {
            rows: options.map((o, i) => ({ id: `flow.option.${i + 1}`, title: o.label })),
          },
        ],
      },
    });
    // Typed text works as well as a tap.
    await deliver(customerText({ from, id: wamid(), body: 'financeiro' }));
    assert.deepEqual((await chatOf(from)).team_id, f.teams[0]!.id);
    await sent(); // the away message
  });
});

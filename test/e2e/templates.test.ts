import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { FakeGraph } from '../helpers/fake-graph.js';
import { graphWebhook, hubSignature } from '../helpers/whatsapp.js';
import { startE2E, type E2E, type Person } from './harness.js';

// Reaching a customer after 24 hours, in a real browser: the conversation shows its window closed,
// the agent sends an approved template picked from the channel's list (served by the fake Graph API,
// which receives the template), and the customer's answer opens the window and the reply box.

const bubble = (page: Page, text: string) => page.locator('.messages .msg', { hasText: text });

const WABA = '900000000000077';
const CONFIG = {
  phoneNumberId: '106540352242977',
  accessToken: 'test-token',
  appSecret: 'e2e-templates-secret',
  verifyToken: 'e2e-templates-verify',
  businessAccountId: WABA,
};
const CUSTOMER = '5511987650077';

describe('templates from the console', () => {
  let e2e: E2E;
  let graph: FakeGraph;
  let carla: Person;
  let team: { id: string };

  before(async () => {
    graph = await FakeGraph.start();
    graph.setTemplates(WABA, [
      {
        name: 'pedido_confirmado',
        language: 'pt_BR',
        status: 'APPROVED',
        category: 'UTILITY',
        parameter_format: 'POSITIONAL',
        components: [
          { type: 'HEADER', format: 'TEXT', text: 'Pedido {{1}}' },
          { type: 'BODY', text: 'Olá {{1}}, seu pedido {{2}} saiu para entrega.' },
          {
            type: 'BUTTONS',
            buttons: [{ type: 'URL', text: 'Acompanhar', url: 'https://loja.example/p/{{1}}' }],
          },
        ],
      },
      {
        name: 'rascunho',
        language: 'pt_BR',
        status: 'REJECTED',
        category: 'UTILITY',
        components: [{ type: 'BODY', text: 'Não aprovado' }],
      },
    ]);
    e2e = await startE2E({ env: { WHATSAPP_GRAPH_BASE_URL: graph.url } });
    carla = await e2e.createUser({ name: 'Carla Dias' });
    team = await e2e.createTeam('Entregas', [carla.id]);
  });
  after(async () => {
    await e2e?.close();
    await graph?.close();
  });

  it('past the 24-hour window an agent sends an approved template, and the customer’s answer reopens it', async () => {
    const channel = await e2e.admin.api.ok<{ id: string }>('POST', '/api/channels', {
      name: 'WhatsApp Entregas',
      provider: 'whatsapp-cloud',
      defaultTeamId: team.id,
      apiEnabled: true,
      providerConfig: CONFIG,
    });
    // An ERP wrote to the customer through the Channel API: a chat the customer never wrote in.
    const { apiKey } = await e2e.admin.api.ok<{ apiKey: string }>(
      'POST',
      `/api/channels/${channel.id}/api-key`,
    );
    const sent = await fetch(`${e2e.url}/channel-api/messages/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-channel-api-key': apiKey },
      body: JSON.stringify({
        contact: { value: CUSTOMER, name: 'Rafael' },
        message: { type: 'text', text: { value: 'Seu pedido foi faturado' } },
      }),
    });
    assert.equal(sent.status, 201);
    const { requestId } = (await sent.json()) as { requestId: string };
    // Sent (its chat opened and no longer held by the send) before the chat is given to Carla.
    let status = 'queued';
    for (let i = 0; i < 200 && status !== 'sent'; i++) {
      const log = await e2e.admin.api.ok<{ items: { status: string }[] }>(
        'GET',
        `/api/channels/${channel.id}/request-logs?requestId=${requestId}`,
      );
      status = log.items[0]?.status ?? 'queued';
      if (status !== 'sent') await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(status, 'sent');
    const chats = await e2e.admin.api.ok<{ chats: { id: string }[] }>(
      'GET',
      `/api/chats?channelId=${channel.id}`,
    );
    const chatId = chats.chats[0]?.id;
    assert.ok(chatId, 'the send opened a chat');
    await e2e.admin.api.ok('POST', `/api/chats/${chatId}/transfer`, { userId: carla.id });
    const seen = graph.requests.length;

    const { page } = await e2e.newPage('carla');
    await e2e.loginUi(page, carla);
    await page.goto(`${e2e.url}/inbox/${chatId}`);
    await bubble(page, 'Seu pedido foi faturado').waitFor();
    await page
      .locator('.window-badge[data-window="closed"]', { hasText: 'Janela de 24 h fechada' })
      .waitFor();
    // No reply box: only a template reaches the customer now.
    assert.equal(await page.getByLabel('Mensagem', { exact: true }).count(), 0);
    await e2e.screenshot(page, 'window-closed');

    await page.locator('.composer-note').getByRole('button', { name: 'Enviar modelo' }).click();
    const dialog = page.getByRole('dialog', { name: 'Enviar um modelo (template)' });
    await dialog.getByLabel('Modelo aprovado').selectOption({ label: 'pedido_confirmado · pt_BR' });
    // Only approved templates are offered.
    assert.deepEqual(
      await dialog.getByLabel('Modelo aprovado').locator('option:not([disabled])').allInnerTexts(),
      ['pedido_confirmado · pt_BR'],
    );
    await dialog.getByLabel('Cabeçalho {{1}}').fill('A-77');
    await dialog.getByLabel('Corpo {{1}}').fill('Rafael');
    await dialog.getByLabel('Corpo {{2}}').fill('A-77');
    await dialog.getByLabel('Botão 1 {{1}}').fill('A-77');
    await dialog.getByText('Olá Rafael, seu pedido A-77 saiu para entrega.').waitFor();
    await e2e.screenshot(page, 'template-form');
    await dialog.getByRole('button', { name: 'Enviar modelo' }).click();
    await dialog.waitFor({ state: 'detached' });

    const sentTemplate = bubble(page, 'Modelo pedido_confirmado');
    await sentTemplate.waitFor();
    assert.match(await sentTemplate.innerText(), /A-77 · Rafael · A-77/);
    await sentTemplate.locator('.tick[data-status="sent"]').waitFor();

    // What the fake Graph API received: the template, to the customer, with the values in place.
    const templateRequest = graph.requests
      .slice(seen)
      .find((r) => (r.json as { type?: string } | undefined)?.type === 'template');
    assert.ok(templateRequest, 'Graph received the template');
    assert.deepEqual(templateRequest.json, {
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: `+${CUSTOMER}`,
      type: 'template',
      template: {
        name: 'pedido_confirmado',
        language: { code: 'pt_BR', policy: 'deterministic' },
        components: [
          { type: 'header', parameters: [{ type: 'text', text: 'A-77' }] },
          {
            type: 'body',
            parameters: [
              { type: 'text', text: 'Rafael' },
              { type: 'text', text: 'A-77' },
            ],
          },
          { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: 'A-77' }] },
        ],
      },
    });
    const listed = graph.requests.slice(seen).find((r) => r.path.endsWith('/message_templates'));
    assert.equal(listed?.query.status, 'APPROVED');

    // The customer answers on WhatsApp: the window opens, and the reply box comes back.
    const raw = JSON.stringify(
      graphWebhook(CONFIG.phoneNumberId, {
        contacts: [{ profile: { name: 'Rafael' }, wa_id: CUSTOMER }],
        messages: [
          {
            from: CUSTOMER,
            id: 'wamid.e2e.templates.1',
            timestamp: String(Math.floor(Date.now() / 1000)),
            type: 'text',
            text: { body: 'Obrigado, vou acompanhar' },
          },
        ],
      }),
    );
    const res = await fetch(`${e2e.url}/webhooks/whatsapp/${channel.id}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-hub-signature-256': hubSignature(CONFIG.appSecret, raw),
      },
      body: raw,
    });
    assert.equal(res.status, 200);
    await bubble(page, 'vou acompanhar').waitFor();
    await page.locator('.window-badge[data-window="open"]', { hasText: 'fecha em 23 h' }).waitFor();
    await page.getByLabel('Mensagem', { exact: true }).fill('Qualquer dúvida, estou aqui!');
    await page.keyboard.press('Enter');
    await bubble(page, 'estou aqui').locator('.tick[data-status="sent"]').waitFor();
    e2e.assertNoBrowserErrors();
  });

  it('on a sandbox channel the agent types the template by hand, and the simulated customer gets it', async () => {
    const sandbox = await e2e.createChannel({ name: 'Sandbox Entregas', defaultTeamId: team.id });
    const chatId = await e2e.inbound(sandbox.id, '5511987650078', 'Cadê meu pedido?', 'Sofia');
    await carla.api.ok('POST', `/api/chats/${chatId}/capture`);

    const { page } = await e2e.newPage('carla-sandbox');
    await e2e.loginUi(page, carla);
    await page.goto(`${e2e.url}/inbox/${chatId}`);
    await bubble(page, 'Cadê meu pedido?').waitFor();
    await page.locator('.window-badge[data-window="open"]').waitFor();
    await page.locator('.convo-actions').getByRole('button', { name: 'Usar modelo' }).click();
    const dialog = page.getByRole('dialog', { name: 'Enviar um modelo (template)' });
    await dialog.getByText('O canal não lista modelos').waitFor();
    await dialog.getByLabel('Nome do modelo').fill('pedido_atrasado');
    await dialog.getByLabel('Valores do corpo (um por linha)').fill('Sofia\nA-78');
    await dialog.getByRole('button', { name: 'Enviar modelo' }).click();
    const sent = bubble(page, 'Modelo pedido_atrasado');
    await sent.locator('.tick[data-status="delivered"]').waitFor();
    assert.match(await sent.innerText(), /Sofia · A-78/);

    // The sandbox "delivered" it: the customer's side of the conversation has it.
    const history = await e2e.admin.api.ok<{
      messages: { type: string; status: string; content: unknown }[];
    }>('GET', `/api/chats/${chatId}/messages`);
    assert.deepEqual(
      [history.messages[0]?.type, history.messages[0]?.status, history.messages[0]?.content],
      [
        'template',
        'delivered',
        {
          template: {
            name: 'pedido_atrasado',
            language: 'pt_BR',
            header: [],
            body: [{ text: 'Sofia' }, { text: 'A-78' }],
            urlButtons: [],
            orderDetails: [],
          },
        },
      ],
    );
    e2e.assertNoBrowserErrors();
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FakeGraph } from '../helpers/fake-graph.js';
import { startE2E, type E2E, type TestPage } from './harness.js';

// A WhatsApp channel whose token Meta refused, in the console: the admin is notified (bell), the
// channel's page says what happened and what to do, and saving a new token (with read receipts turned
// on in the same form) makes it healthy again.

describe('channel health in the console', () => {
  let fake: FakeGraph;
  let e2e: E2E;
  let admin: TestPage;
  let channelId = '';

  before(async () => {
    fake = await FakeGraph.start();
    e2e = await startE2E({ env: { WHATSAPP_GRAPH_BASE_URL: fake.url } });
    const team = await e2e.createTeam('Suporte', [e2e.admin.id]);
    const channel = await e2e.admin.api.ok<{ id: string }>('POST', '/api/channels', {
      name: 'WhatsApp Loja',
      provider: 'whatsapp-cloud',
      defaultTeamId: team.id,
      providerConfig: {
        phoneNumberId: '4440001111',
        accessToken: 'expired-token',
        appSecret: 'secret',
        verifyToken: 'verify',
      },
    });
    channelId = channel.id;
    admin = await e2e.newPage('admin');
    await e2e.loginUi(admin.page, e2e.admin);
  });
  after(async () => {
    await e2e?.close();
    await fake?.close();
  });

  it('shows a refused token on the channel page and the bell, and a new token clears it', async () => {
    const { page } = admin;
    const { apiKey } = await e2e.admin.api.ok<{ apiKey: string }>(
      'POST',
      `/api/channels/${channelId}/api-key`,
    );
    const sent = await fetch(`${e2e.url}/channel-api/messages/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-channel-api-key': apiKey },
      body: JSON.stringify({
        contact: { value: '5511987654321' },
        message: { type: 'text', text: { value: 'Oi' } },
      }),
    });
    assert.equal(sent.status, 201);

    // The notification arrives live in the bell of the signed-in admin.
    await page.getByRole('button', { name: 'Abrir notificações (1 não lidas)' }).click();
    await page
      .getByRole('region', { name: 'Notificações' })
      .getByRole('button', { name: /A Meta recusou o token do canal WhatsApp Loja/ })
      .click();
    await page.getByRole('heading', { name: 'Canal WhatsApp Loja' }).waitFor();
    assert.match(page.url(), new RegExp(`/admin/channels/${channelId}$`));
    const alert = page.getByTestId('channel-unhealthy');
    await alert.waitFor();
    assert.match(await alert.innerText(), /A Meta recusou o token de acesso deste canal/);
    assert.match(await alert.innerText(), /190 — Invalid OAuth access token/);
    await e2e.screenshot(page, 'admin-channel-unhealthy');

    const receipts = page.getByLabel(
      'Enviar confirmação de leitura (tiques azuis) quando um atendente lê a conversa',
    );
    assert.equal(await receipts.isChecked(), false);
    await receipts.check();
    await page.getByLabel('Access token').fill('test-token');
    await page.getByRole('button', { name: 'Salvar' }).click();
    await page.getByText('Canal salvo').waitFor();
    await alert.waitFor({ state: 'detached' });

    const stored = await e2e.admin.api.ok<{ health: string; sendReadReceipts: boolean }>(
      'GET',
      `/api/channels/${channelId}`,
    );
    assert.deepEqual([stored.health, stored.sendReadReceipts], ['ok', true]);
    await page.reload();
    await page.getByRole('heading', { name: 'Canal WhatsApp Loja' }).waitFor();
    assert.equal(await receipts.isChecked(), true);
    assert.equal(await page.getByTestId('channel-unhealthy').count(), 0);
    e2e.assertNoBrowserErrors();
  });
});

import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { PHONE, startE2E, type E2E, type TestPage } from './harness.js';

// The admin screens in a real browser: a channel's API tab (enable, key shown once, a send with it in
// the request log and its detail), account API keys (scopes, token once, revoke), users, teams and
// webhooks, inline validation messages, keyboard use and the phone layout; and the API reference.

/** The browser logs every 4xx answer as a console error; these tests provoke some on purpose. */
const EXPECTED_400 = /status of 400 \(Bad Request\)/;

async function send(e2e: E2E, key: string, body: unknown) {
  const res = await fetch(`${e2e.url}/channel-api/messages/send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-channel-api-key': key },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function channelApi(e2e: E2E, token: string, path: string) {
  const res = await fetch(`${e2e.url}/channel-api${path}`, { headers: { authorization: `ApiKey ${token}` } });
  await res.arrayBuffer();
  return res.status;
}

/** Polls `check` (a page refresh, a list read) until it holds; bounded so that a failure ends the test. */
async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`still waiting for ${what}`);
  }
}

/** The row of a table whose text contains `text`. */
const row = (page: Page, testId: string, text: string) =>
  page.getByTestId(testId).locator('tbody tr', { hasText: text });

describe('admin screens', () => {
  let e2e: E2E;
  let admin: TestPage;
  let support: { id: string; name: string };
  let channelId = '';
  let channelKey = '';

  before(async () => {
    // The webhook receiver of these tests listens on 127.0.0.1.
    e2e = await startE2E({ env: { ATENDE_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
    support = await e2e.createTeam('Suporte', [e2e.admin.id]);
    await e2e.createTeam('Financeiro', []);
    admin = await e2e.newPage('admin');
    await e2e.loginUi(admin.page, e2e.admin);
  });
  after(async () => {
    await e2e?.close();
  });

  it('creates a sandbox channel, enables its API and shows the generated key only once', async () => {
    const { page } = admin;
    await page.goto(`${e2e.url}/admin/channels`);
    await page.getByRole('heading', { name: 'Canais' }).waitFor();
    await page.getByRole('button', { name: 'Novo canal' }).click();
    const dialog = page.getByRole('dialog', { name: 'Novo canal' });
    await dialog.getByLabel('Nome').fill('Loja API');
    await dialog.getByLabel('Sandbox (testes)').check();
    await dialog.getByLabel('Equipe padrão').selectOption({ label: 'Suporte' });
    assert.equal(await dialog.getByLabel('Fila de entrada').inputValue(), 'Espera');
    await dialog.getByRole('button', { name: 'Criar' }).click();
    await dialog.waitFor({ state: 'detached' });
    await row(page, 'channels-table', 'Loja API').waitFor();
    await e2e.screenshot(page, 'admin-channels');

    await page.getByRole('link', { name: 'API: Loja API' }).click();
    await page.getByRole('heading', { name: 'Canal Loja API' }).waitFor();
    channelId = new URL(page.url()).pathname.split('/')[3] ?? '';
    assert.match(page.url(), /\/admin\/channels\/[0-9a-f]{24}\/api$/);
    const stored = await e2e.admin.api.ok<{ defaultTeamId: string; apiEnabled: boolean }>(
      'GET',
      `/api/channels/${channelId}`,
    );
    assert.equal(stored.defaultTeamId, support.id);
    assert.equal(stored.apiEnabled, false);

    const apiSwitch = page.getByRole('switch');
    assert.equal(await apiSwitch.isChecked(), false);
    await apiSwitch.click();
    await page.locator('[data-testid="api-enabled"]:checked').waitFor();
    assert.equal(
      (await e2e.admin.api.ok<{ apiEnabled: boolean }>('GET', `/api/channels/${channelId}`)).apiEnabled,
      true,
    );

    await page.getByText('Nenhuma chave gerada.').waitFor();
    await page.getByRole('button', { name: 'Gerar chave' }).click();
    const shown = page.getByTestId('channel-key');
    await shown.waitFor();
    await shown.getByText('Copie agora: este valor não será mostrado novamente.').waitFor();
    const key = await page.getByTestId('channel-key-value').inputValue();
    assert.ok(key.length >= 20, `a channel key: ${key}`);
    await e2e.screenshot(page, 'admin-channel-key');

    await page.getByRole('button', { name: 'Já copiei' }).click();
    await shown.waitFor({ state: 'detached' });
    // Gone from the page, and not shown again after a reload either.
    assert.equal((await page.content()).includes(key), false);
    await page.reload();
    await page.getByRole('button', { name: 'Gerar nova chave' }).waitFor();
    await page.getByText('Uma chave foi gerada.', { exact: false }).waitFor();
    assert.equal((await page.content()).includes(key), false);
    channelKey = key;
    e2e.assertNoBrowserErrors();
  });

  it('lists a send made with the key in the request log, with filters and the entry’s detail', async () => {
    const { page } = admin;
    const key = channelKey;
    const sent = await send(e2e, key, {
      contact: { value: '5511987650001', name: 'Maria Clara' },
      message: { type: 'text', text: { value: 'Seu pedido saiu para entrega' } },
      flowId: 'pedido-4242',
      metadata: { pedido: '4242', origem: 'erp' },
    });
    assert.equal(sent.status, 201, JSON.stringify(sent.body));
    const requestId = String(sent.body.requestId);

    await page.getByRole('button', { name: 'Atualizar' }).click();
    const details = page.getByRole('button', { name: `Detalhes: ${requestId}` });
    await details.waitFor();
    const line = row(page, 'request-log', '5511987650001');
    assert.match(await line.innerText(), /Maria Clara[\s\S]*text[\s\S]*pedido-4242/);
    await e2e.screenshot(page, 'admin-channel-api');

    await details.click();
    const detail = page.getByTestId('request-detail');
    await detail.waitFor();
    assert.equal(await detail.getByLabel('ID da requisição').inputValue(), requestId);
    const text = await detail.innerText();
    assert.match(text, /Flow ID\s+pedido-4242/);
    assert.match(text, /Tentativas\s+\d/);
    assert.match(text, /Contato\s+5511987650001/);
    assert.match(text, /Nome do contato\s+Maria Clara/);
    assert.match(text, /pedido\s+4242/);
    assert.match(text, /origem\s+erp/);
    await e2e.screenshot(page, 'admin-request-detail');
    await page.getByRole('button', { name: 'Fechar' }).click();
    await detail.waitFor({ state: 'detached' });

    // Filters: a flow id that matches, then one that does not.
    await page.getByLabel('Flow ID').fill('pedido-4242');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await details.waitFor();
    await page.getByLabel('Flow ID').fill('outro-fluxo');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await page.getByText('Nenhuma requisição registrada').waitFor();
    // A request id that is not a UUID: the API's message, under the filters.
    await page.getByRole('button', { name: 'Limpar' }).click();
    await details.waitFor();
    await page.getByLabel('ID da requisição').fill('not-a-uuid');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await page.getByRole('alert').filter({ hasText: 'requestId deve ser um UUID' }).waitFor();
    await page.getByRole('button', { name: 'Limpar' }).click();
    await details.waitFor();

    // A new key: confirmed first, and the previous key stops working at once.
    await page.getByRole('button', { name: 'Gerar nova chave' }).click();
    const confirm = page.getByRole('dialog', { name: 'Gerar nova chave' });
    await confirm.getByText('A chave atual deixará de funcionar.').waitFor();
    await confirm.getByRole('button', { name: 'Gerar nova chave' }).click();
    await page
      .getByTestId('channel-key')
      .getByText('A chave anterior deste canal deixou de funcionar.')
      .waitFor();
    const next = await page.getByTestId('channel-key-value').inputValue();
    assert.notEqual(next, key);
    await page.getByRole('button', { name: 'Já copiei' }).click();
    const old = await send(e2e, key, {
      contact: { value: '5511987650001' },
      message: { type: 'text', text: { value: 'x' } },
    });
    assert.deepEqual([old.status, old.body.message], [404, 'Invalid API token']);
    const fresh = await send(e2e, next, {
      contact: { value: '5511987650001' },
      message: { type: 'text', text: { value: 'y' } },
    });
    assert.equal(fresh.status, 201);
    e2e.assertNoBrowserErrors([EXPECTED_400]);
    admin.errors.length = 0;
  });

  it('creates an account API key with scopes and a channel, shows the token once and revokes it', async () => {
    const { page } = admin;
    await page.goto(`${e2e.url}/admin/api-keys`);
    await page.getByRole('button', { name: 'Nova chave' }).click();
    const dialog = page.getByRole('dialog', { name: 'Nova chave' });
    await dialog.getByLabel('Nome da chave').fill('ERP');
    await dialog.getByRole('checkbox', { name: /chats:read/ }).check();
    await dialog.getByRole('checkbox', { name: /teams:read/ }).check();
    await dialog.getByLabel('Canais selecionados').check();
    await dialog.getByRole('checkbox', { name: 'Loja API' }).check();
    await e2e.screenshot(page, 'admin-api-key-create');
    await dialog.getByRole('button', { name: 'Criar' }).click();

    const shown = page.getByTestId('api-key-token');
    await shown.waitFor();
    const token = await page.getByTestId('api-key-token-value').inputValue();
    assert.ok(token.length >= 20);
    await shown.getByText('Authorization: ApiKey', { exact: false }).waitFor();
    await page.getByRole('button', { name: 'Já copiei' }).click();
    await shown.waitFor({ state: 'detached' });
    assert.equal((await page.content()).includes(token), false);

    const line = row(page, 'api-keys-table', 'ERP');
    await line.waitFor();
    assert.match(await line.innerText(), /chats:read[\s\S]*teams:read[\s\S]*Loja API[\s\S]*Ativa/);
    const stored = await e2e.admin.api.ok<{ name: string; scopes: string[]; channelIds: string[] | null }[]>(
      'GET',
      '/api/api-keys',
    );
    assert.deepEqual(
      stored.map((k) => [k.name, k.scopes, k.channelIds]),
      [['ERP', ['chats:read', 'teams:read'], [channelId]]],
    );
    assert.equal(await channelApi(e2e, token, '/teams'), 200);
    assert.equal(await channelApi(e2e, token, '/users'), 404); // no users:read scope
    await e2e.screenshot(page, 'admin-api-keys');

    await page.getByRole('button', { name: 'Revogar: ERP' }).click();
    const confirm = page.getByRole('dialog', { name: 'Revogar' });
    await confirm.getByText('Revogar a chave "ERP"?', { exact: false }).waitFor();
    await confirm.getByRole('button', { name: 'Revogar' }).click();
    await confirm.waitFor({ state: 'detached' });
    await line.getByText('Revogada', { exact: false }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Revogar: ERP' }).count(), 0);
    assert.equal(await channelApi(e2e, token, '/teams'), 401);
    e2e.assertNoBrowserErrors();
  });

  it('creates a user with the API’s validation messages inline, then changes role and status', async () => {
    const { page } = admin;
    await page.goto(`${e2e.url}/admin/users`);
    await row(page, 'users-table', e2e.admin.email).waitFor();

    // Keyboard: the dialog opens from the button, its first field has the focus, Escape gives it back.
    const open = page.getByRole('button', { name: 'Novo usuário' });
    await open.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Novo usuário' });
    await dialog.waitFor();
    await dialog.locator('input[name="name"]:focus').waitFor();
    await page.keyboard.type('Carla Dias');
    await page.keyboard.press('Tab');
    await page.keyboard.type('carla-not-an-email');
    await page.keyboard.press('Tab');
    await page.keyboard.type('short');
    await page.keyboard.press('Enter');
    await dialog.getByText('email deve ser um e-mail').waitFor();
    await dialog.getByText('password deve ter pelo menos 8 caracteres').waitFor();
    assert.equal(await dialog.getByLabel('E-mail').getAttribute('aria-invalid'), 'true');
    await e2e.screenshot(page, 'admin-user-errors');

    await dialog.getByLabel('E-mail').fill('carla@e2e.atende.test');
    await dialog.getByLabel('Senha inicial').fill('carla-password-1');
    await dialog.getByLabel('Perfil').selectOption('agent');
    await dialog.getByLabel('Status').selectOption('onboarding');
    await dialog.getByRole('button', { name: 'Criar' }).click();
    await dialog.waitFor({ state: 'detached' });
    const line = row(page, 'users-table', 'carla@e2e.atende.test');
    assert.match(await line.innerText(), /Carla Dias[\s\S]*Atendente[\s\S]*Em integração/);

    // Escape closes without saving and gives the focus back to the button.
    await open.focus();
    await page.keyboard.press('Enter');
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    assert.equal(await page.locator(':focus').innerText(), 'Novo usuário');

    await page.getByRole('button', { name: 'Editar Carla Dias' }).click();
    const edit = page.getByRole('dialog', { name: 'Editar Carla Dias' });
    await edit.getByText('Em nenhuma equipe').waitFor();
    await edit.getByLabel('Perfil').selectOption('supervisor');
    await edit.getByLabel('Status').selectOption('active');
    await edit.getByRole('button', { name: 'Salvar' }).click();
    await edit.waitFor({ state: 'detached' });
    assert.match(await line.innerText(), /Supervisor[\s\S]*Ativo/);

    // The status filter.
    await page.getByLabel('Status').selectOption('onboarding');
    await page.getByText('Nada encontrado com estes filtros.').waitFor();
    await page.getByLabel('Status').selectOption('active');
    await line.waitFor();
    await page.getByLabel('Status').selectOption('');

    const users = await e2e.admin.api.ok<{ email: string; status: string; role: { name: string } }[]>(
      'GET',
      '/api/users',
    );
    const carla = users.find((u) => u.email === 'carla@e2e.atende.test');
    assert.deepEqual([carla?.role.name, carla?.status], ['supervisor', 'active']);
    await e2e.screenshot(page, 'admin-users');
    e2e.assertNoBrowserErrors([EXPECTED_400]);
    admin.errors.length = 0;
  });

  it('creates a team, changes its members, and deactivates it', async () => {
    const { page } = admin;
    await page.goto(`${e2e.url}/admin/teams`);
    await page.getByRole('button', { name: 'Nova equipe' }).click();
    const dialog = page.getByRole('dialog', { name: 'Nova equipe' });
    await dialog.getByLabel('Nome').fill('Vendas');
    await dialog.getByLabel('Descrição (opcional)').fill('Pré-venda e orçamentos');
    await dialog.getByRole('checkbox', { name: /Carla Dias/ }).check();
    await dialog.getByRole('button', { name: 'Criar' }).click();
    await dialog.waitFor({ state: 'detached' });
    const line = row(page, 'teams-table', 'Vendas');
    assert.match(await line.innerText(), /Pré-venda e orçamentos[\s\S]*Ativa[\s\S]*1 membro\b/);

    await page.getByRole('button', { name: 'Membros de Vendas' }).click();
    const members = page.getByRole('dialog', { name: 'Membros de Vendas' });
    await members.getByRole('checkbox', { name: /Admin/ }).check();
    await members.getByRole('checkbox', { name: /Carla Dias/ }).uncheck();
    await members.getByRole('button', { name: 'Salvar' }).click();
    await members.waitFor({ state: 'detached' });
    await line.getByText('1 membro', { exact: true }).waitFor();

    await line.getByRole('button', { name: 'Desativar' }).click();
    await line.getByText('Inativa').waitFor();
    const teams = await e2e.admin.api.ok<{ name: string; status: string; members: string[] }[]>(
      'GET',
      '/api/teams',
    );
    const vendas = teams.find((t) => t.name === 'Vendas');
    assert.deepEqual([vendas?.status, vendas?.members], ['inactive', [e2e.admin.id]]);
    await e2e.screenshot(page, 'admin-teams');
    e2e.assertNoBrowserErrors();
  });

  it('creates a webhook (secret once), lists its deliveries and replays one', async () => {
    const { page } = admin;
    // The receiver: each request's Atende-Delivery, and a wait for the n-th request.
    const received: string[] = [];
    const waiting: { n: number; resolve: () => void }[] = [];
    const receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received.push(String(req.headers['atende-delivery']));
        res.end('ok');
        for (const w of waiting.filter((x) => received.length >= x.n)) w.resolve();
      });
    });
    const receivedCount = (n: number) =>
      received.length >= n ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ n, resolve }));
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/atende`;
      await page.goto(`${e2e.url}/admin/webhooks`);
      await page.getByRole('button', { name: 'Novo webhook' }).click();
      const dialog = page.getByRole('dialog', { name: 'Novo webhook' });
      await dialog.getByLabel('URL').fill(url);
      await dialog.getByRole('checkbox', { name: /^chat\.new/ }).check();
      await dialog.getByRole('checkbox', { name: /^chat\.close/ }).check();
      await dialog.getByRole('button', { name: 'Criar' }).click();
      const shown = page.getByTestId('webhook-secret');
      await shown.waitFor();
      const secret = await page.getByTestId('webhook-secret-value').inputValue();
      assert.ok(secret.length >= 16);
      await page.getByRole('button', { name: 'Já copiei' }).click();
      await shown.waitFor({ state: 'detached' });
      assert.equal((await page.content()).includes(secret), false);
      const line = row(page, 'webhooks-table', url);
      assert.match(await line.innerText(), /chat\.new[\s\S]*chat\.close[\s\S]*Ativo/);
      await e2e.screenshot(page, 'admin-webhooks');

      // A customer writes: a conversation enters the queue (chat.new), delivered to the receiver.
      await e2e.inbound(channelId, '5511987650009', 'Quero saber do meu pedido', 'Paulo');
      await line.getByRole('link', { name: `Entregas: ${url}` }).click();
      await page.getByRole('heading', { name: `Entregas para ${url}` }).waitFor();
      await receivedCount(1);
      const delivered = row(page, 'deliveries-table', 'chat.new');
      // The job records the answer after the receiver's 200: refresh until the log shows it.
      const refresh = page.getByRole('button', { name: 'Atualizar' });
      await until('the delivery shown as delivered', async () => {
        await Promise.all([page.waitForResponse((r) => r.url().includes('/deliveries')), refresh.click()]);
        return (await delivered.count()) > 0 && /Entregue/.test(await delivered.innerText());
      });
      assert.match(await delivered.innerText(), /Entregue[\s\S]*1[\s\S]*HTTP 200/);
      assert.equal(received.length, 1);
      await delivered.getByRole('button', { name: /^Reenviar/ }).click();
      await delivered.getByText('Reenvio agendado').waitFor();
      await receivedCount(2);
      assert.equal(received[1], received[0]); // the same delivery, sent again
      await e2e.screenshot(page, 'admin-webhook-deliveries');
      e2e.assertNoBrowserErrors();
    } finally {
      receiver.close();
    }
  });

  it('works at phone width: lists become cards and the API tab stays usable', async () => {
    const phone = await e2e.newPage('admin-phone', { viewport: PHONE });
    const { page } = phone;
    await e2e.loginUi(page, e2e.admin);
    for (const [path, name, testId] of [
      ['/admin/users', 'admin-users-phone', 'users-table'],
      ['/admin/teams', 'admin-teams-phone', 'teams-table'],
      ['/admin/api-keys', 'admin-api-keys-phone', 'api-keys-table'],
      [`/admin/channels/${channelId}/api`, 'admin-channel-api-phone', 'request-log'],
    ] as const) {
      await page.goto(`${e2e.url}${path}`);
      const table = page.getByTestId(testId);
      await table.locator('tbody tr').first().waitFor();
      assert.equal(await table.locator('thead').isVisible(), false, `${path}: headers hidden`);
      // Nothing wider than the screen (the console scrolls inside <main>).
      const overflow = await page.locator('main').evaluate((main) => main.scrollWidth - main.clientWidth);
      assert.ok(overflow === 0, `${path} overflows by ${overflow}px`);
      await table.scrollIntoViewIfNeeded();
      await e2e.screenshot(page, name);
    }
    await page.goto(`${e2e.url}/admin/channels/${channelId}`);
    await page.getByRole('button', { name: 'Salvar' }).waitFor();
    await e2e.screenshot(page, 'admin-channel-phone');
    e2e.assertNoBrowserErrors();
  });

  it('shows the API reference at /docs under its content security policy', async () => {
    const docs = await e2e.newPage('docs');
    const { page } = docs;
    await page.goto(`${e2e.url}/docs`);
    // Rendered: the operations, one of them opened (a refused style or script is a console error).
    await page.locator('.opblock').first().waitFor();
    await page.locator('.opblock-summary').first().click();
    await page.getByRole('button', { name: 'Try it out' }).waitFor();
    await e2e.screenshot(page, 'docs');
    e2e.assertNoBrowserErrors();
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startE2E, waitForValue, type E2E, type Person, type TestPage } from './harness.js';

// Automatic assignment in a real browser: an admin sets a team to assign by capacity from the teams
// page, by keyboard; two agents say they are online from the top bar (one by keyboard); an arriving
// conversation goes to the least-loaded online agent, whose console shows it in their own list and
// tells them (toast, bell); its timeline says it was assigned automatically. Then in English.

const chatItem = (page: Page, chatId: string) => page.locator(`.chat-item[data-chat-id="${chatId}"]`);
const teamRow = (page: Page, name: string) =>
  page.getByTestId('teams-table').locator('tr', { hasText: name });

describe('automatic assignment in the console', () => {
  let e2e: E2E;
  let ana: Person;
  let bruno: Person;
  let anaTab: TestPage;
  let brunoTab: TestPage;
  let team: { id: string; name: string };
  let channel: { id: string; name: string };

  before(async () => {
    e2e = await startE2E();
    ana = await e2e.createUser({ name: 'Ana Atribuída' });
    bruno = await e2e.createUser({ name: 'Bruno Ocupado' });
    team = await e2e.createTeam('Vendas', [ana.id, bruno.id]);
    channel = await e2e.createChannel({ name: 'Loja', defaultTeamId: team.id });
  });
  after(async () => {
    await e2e?.close();
  });

  it('an admin sets the team to assign by capacity, by keyboard', async () => {
    const tab = await e2e.newPage('admin');
    const { page } = tab;
    await e2e.loginUi(page, { email: e2e.admin.email, password: e2e.admin.password });
    await page.goto(`${e2e.url}/admin/teams`);
    const line = teamRow(page, 'Vendas');
    await line.getByText('Desligada', { exact: true }).waitFor();
    await line.getByRole('button', { name: 'Atribuição automática de Vendas' }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Atribuição automática de Vendas' });
    const capacity = dialog.getByRole('radio', { name: 'Por capacidade' });
    await capacity.check();
    // Without a maximum the server says what is missing.
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.getByText('maxOpen é obrigatório no modo capacity').waitFor();
    await dialog.getByRole('spinbutton', { name: 'Máximo de conversas abertas por atendente' }).fill('3');
    await dialog.getByRole('spinbutton', { name: 'Máximo de Bruno Ocupado' }).fill('5');
    await e2e.screenshot(page, 'assignment-editor');
    await dialog.getByRole('button', { name: 'Salvar' }).press('Enter');
    await dialog.waitFor({ state: 'detached' });
    await line.getByText('Por capacidade').waitFor();
    await line.getByText('até 3 cada').waitFor();
    const stored = await e2e.admin.api.ok<{ mode: string; maxOpen: number; overrides: unknown[] }>(
      'GET',
      `/api/teams/${team.id}/assignment`,
    );
    assert.deepEqual(
      [stored.mode, stored.maxOpen, stored.overrides],
      ['capacity', 3, [{ userId: bruno.id, maxOpen: 5 }]],
    );
    await tab.context.close();
  });

  it('an arriving conversation goes to the least-loaded online agent, who is notified', async () => {
    anaTab = await e2e.newPage('ana');
    brunoTab = await e2e.newPage('bruno');
    await e2e.loginUi(anaTab.page, ana);
    await e2e.loginUi(brunoTab.page, bruno);
    // Bruno goes online first and gets a conversation; then Ana, by keyboard.
    await waitForValue(brunoTab.page.getByTestId('availability'), 'offline');
    await brunoTab.page.getByTestId('availability').selectOption('online');
    const first = await e2e.inbound(channel.id, '5511987651001', 'Quero comprar', 'Carlos');
    await brunoTab.page.getByRole('tab', { name: /Em Atendimento/ }).click();
    await chatItem(brunoTab.page, first).waitFor();

    const a = anaTab.page;
    const select = a.getByTestId('availability');
    await waitForValue(select, 'offline');
    await select.focus();
    // The second choice's answer: the server has Ana online.
    const saved = a.waitForResponse(
      (r) =>
        r.url().endsWith('/api/me/availability') &&
        r.request().method() === 'PUT' &&
        (r.request().postData() ?? '').includes('"online"'),
    );
    await a.keyboard.press('ArrowUp');
    await waitForValue(select, 'away');
    await a.keyboard.press('ArrowUp');
    await waitForValue(select, 'online');
    assert.equal((await saved).status(), 200);

    // Bruno has one open, Ana none: the next one is Ana's.
    const chatId = await e2e.inbound(channel.id, '5511987651002', 'Tem desconto?', 'Diana');
    const toast = a.locator('.toast', {
      hasText: 'Conversa com Diana (5511987651002) atribuída a você automaticamente',
    });
    await toast.waitFor();
    await a.getByRole('button', { name: 'Abrir notificações (1 não lidas)' }).waitFor();
    await a.getByRole('tab', { name: /Em Atendimento/ }).click();
    await chatItem(a, chatId).waitFor();
    await e2e.screenshot(a, 'assignment-notified');
    await toast.getByRole('button', { name: 'Abrir conversa' }).click();
    await a.waitForURL(`${e2e.url}/inbox/${chatId}`);
    await a.locator('[data-kind="assign.auto"]', { hasText: 'Atribuída automaticamente a Você' }).waitFor();
    // The admin's save without a maximum answered 400 on purpose.
    e2e.assertNoBrowserErrors([/status of 400/]);
  });

  it('in English, and the platform’s own change shows live in the top bar', async () => {
    const a = anaTab.page;
    await a.locator('.topbar-end').getByRole('combobox', { name: 'Idioma' }).selectOption('en');
    await a.getByTestId('availability').locator('option', { hasText: 'Away' }).waitFor({ state: 'attached' });
    // Set away through the API (another tab): this one shows it.
    await ana.api.ok('PUT', '/api/me/availability', { availability: 'away' });
    await waitForValue(a.getByTestId('availability'), 'away');
    e2e.assertNoBrowserErrors([/status of 400/]);
  });
});

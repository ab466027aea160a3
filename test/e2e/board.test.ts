import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startE2E, type E2E, type Person, type TestPage } from './harness.js';

// The live board in a real browser: a supervisor reaches it from the top bar by keyboard and sees their
// team only; a customer's message arrives (the sandbox's inbound API) and the waiting figure changes
// without a reload; an agent's availability change shows; a figure, opened by keyboard, lists exactly
// the conversations it counts. Then in English.

describe('the live board in the console', () => {
  let e2e: E2E;
  let sofia: Person;
  let ana: Person;
  let tab: TestPage;
  let team: { id: string; name: string };
  let other: { id: string; name: string };
  let channel: { id: string; name: string };
  let chatId: string;

  before(async () => {
    e2e = await startE2E();
    sofia = await e2e.createUser({ name: 'Sofia Supervisora', role: 'supervisor' });
    ana = await e2e.createUser({ name: 'Ana Agente' });
    team = await e2e.createTeam('Suporte', [sofia.id, ana.id]);
    other = await e2e.createTeam('Vendas', []);
    channel = await e2e.createChannel({ name: 'Loja', defaultTeamId: team.id });
  });
  after(async () => {
    await e2e?.close();
  });

  it('a supervisor opens the board from the navigation, by keyboard: their team only', async () => {
    tab = await e2e.newPage('sofia');
    const { page } = tab;
    await e2e.loginUi(page, sofia);
    await page.getByRole('navigation').getByRole('link', { name: 'Painel ao vivo' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(`${e2e.url}/board`);
    await page.getByRole('heading', { name: 'Painel ao vivo' }).waitFor();
    const waiting = page.getByTestId(`waiting-${team.id}`);
    await waiting.waitFor();
    assert.equal(await waiting.textContent(), '0');
    assert.equal(await page.getByTestId(`team-${other.id}`).count(), 0);
  });

  it('a customer writes: the waiting figure changes live; an agent comes online: it shows', async () => {
    const { page } = tab;
    chatId = await e2e.inbound(channel.id, '5511987650001', 'Meu pedido não chegou', 'Carla');
    const waiting = page.getByTestId(`waiting-${team.id}`);
    await waiting.filter({ hasText: /^1$/ }).waitFor();
    assert.equal(await waiting.getAttribute('aria-label'), 'Aguardando — Suporte: 1');
    await page.getByTestId(`waiting-${channel.id}`).filter({ hasText: '1' }).waitFor();
    await page.getByTestId(`longest-${team.id}`).filter({ hasText: '< 1 min' }).waitFor();

    // The agents of the team, opened by keyboard; Ana comes online elsewhere and the board follows.
    await page.getByTestId(`presence-${team.id}`).focus();
    await page.keyboard.press('Enter');
    const anaLine = page.getByTestId(`agent-${team.id}-${ana.id}`);
    await anaLine.waitFor();
    assert.equal(await anaLine.getAttribute('data-availability'), 'offline');
    await ana.api.ok('PUT', '/api/me/availability', { availability: 'online' });
    await page.locator(`[data-testid="agent-${team.id}-${ana.id}"][data-availability="online"]`).waitFor();
    await page.getByTestId(`presence-${team.id}`).filter({ hasText: '1 online' }).waitFor();
    await e2e.screenshot(page, 'live-board');
  });

  it('a figure opens the conversations it counts', async () => {
    const { page } = tab;
    await page.getByTestId(`waiting-${team.id}`).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/inbox\?/);
    const url = new URL(page.url());
    assert.equal(url.searchParams.get('queue'), 'Espera');
    assert.equal(url.searchParams.get('assignee'), 'unassigned');
    assert.equal(url.searchParams.get('teamId'), team.id);
    // The filter bar's tab, with those filters, listing exactly the waiting conversation.
    await page.getByRole('tab', { name: /Filtrar|Filtros/, selected: true }).waitFor();
    await page.getByTestId('count-filter').filter({ hasText: '1' }).waitFor();
    await page.locator(`.chat-item[data-chat-id="${chatId}"]`).waitFor();
    assert.equal(await page.locator('select[data-filter="teamId"]').inputValue(), team.id);
    assert.equal(await page.locator('select[data-filter="queue"]').inputValue(), 'Espera');
  });

  it('in English', async () => {
    const { page } = tab;
    await page.goto(`${e2e.url}/board`);
    await page.locator('.topbar-end').getByRole('combobox', { name: 'Idioma' }).selectOption('en');
    await page.getByRole('heading', { name: 'Live board' }).waitFor();
    await page.getByRole('table', { name: 'By team' }).waitFor();
    assert.equal(
      await page.getByTestId(`waiting-${team.id}`).getAttribute('aria-label'),
      'Waiting — Suporte: 1',
    );
    e2e.assertNoBrowserErrors();
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startE2E, waitForValue, type E2E, type Person, type TestPage } from './harness.js';

// SLAs in a real browser: an admin sets a team's targets from the teams page by keyboard (a value the
// form refuses, one the server refuses, then good ones) and the list shows them; an agent of the team
// sees each conversation's time left in the list and the header, near its due time in another colour,
// and overdue live once the worker raises the breach; then in English.

interface Sla {
  firstResponseMinutes: number | null;
  resolutionMinutes: number | null;
}

const teamRow = (page: Page, name: string) =>
  page.getByTestId('teams-table').locator('tr', { hasText: name });
const chatItem = (page: Page, id: string) => page.locator(`.chat-item[data-chat-id="${id}"]`);

describe('SLAs in the console', () => {
  let e2e: E2E;
  let ana: Person;
  let team: { id: string; name: string };
  let channel: { id: string };
  let admin: TestPage;

  before(async () => {
    e2e = await startE2E();
    ana = await e2e.createUser({ name: 'Ana Souza' });
    team = await e2e.createTeam('Suporte', [ana.id]);
    channel = await e2e.createChannel({ name: 'Sandbox', defaultTeamId: team.id });
  });
  after(async () => {
    await e2e?.close();
  });

  it('an admin sets a team’s targets by keyboard; the list shows them', async () => {
    admin = await e2e.newPage('admin');
    const { page } = admin;
    await e2e.loginUi(page, { email: e2e.admin.email, password: e2e.admin.password });
    await page.goto(`${e2e.url}/admin/teams`);
    await page.getByRole('heading', { name: 'Equipes' }).waitFor();
    const line = teamRow(page, 'Suporte');
    await line.getByText('sem metas').waitFor();

    await line.getByRole('button', { name: 'SLA de Suporte' }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'SLA de Suporte' });
    const first = dialog.getByRole('textbox', { name: 'Primeira resposta (minutos)' });
    await waitForValue(first, '');
    // Not a number: the form says so; zero: the server's sentence, under the field.
    await first.fill('meia hora');
    await page.keyboard.press('Enter');
    await dialog.getByText('firstResponseMinutes deve ser um número inteiro de minutos').waitFor();
    await first.fill('0');
    await page.keyboard.press('Enter');
    await dialog.getByText('firstResponseMinutes não pode ser menor que 1').waitFor();
    await first.fill('30');
    await page.keyboard.press('Tab');
    await page.keyboard.type('480');
    await e2e.screenshot(page, 'sla-editor');
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });

    const stored = await e2e.admin.api.ok<Sla>('GET', `/api/teams/${team.id}/sla`);
    assert.deepEqual(
      { first: stored.firstResponseMinutes, resolution: stored.resolutionMinutes },
      { first: 30, resolution: 480 },
    );
    await line.getByText('Primeira resposta: 30 min').waitFor();
    await line.getByText('Resolução: 8 h').waitFor();
    // A reload reads them back into the editor.
    await page.reload();
    // By keyboard, as above: a mouse click here once left no dialog open. The row's columns fill in one
    // team setting at a time after a reload, so the button can move under a click.
    await line.getByText('Primeira resposta: 30 min').waitFor();
    await line.getByRole('button', { name: 'SLA de Suporte' }).focus();
    await page.keyboard.press('Enter');
    await waitForValue(dialog.getByRole('textbox', { name: 'Primeira resposta (minutos)' }), '30');
    await waitForValue(dialog.getByRole('textbox', { name: 'Resolução (minutos)' }), '480');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  it('an agent sees the time left in the list and the header, near its end, and overdue live', async () => {
    const { page } = await e2e.newPage('ana');
    await e2e.loginUi(page, ana);
    await page.goto(`${e2e.url}/inbox`);
    await page.locator('.shell[data-conn="online"]').waitFor();

    const chatId = await e2e.inbound(channel.id, '5511987650101', 'Preciso de ajuda', 'Paula');
    const badge = chatItem(page, chatId).getByTestId('sla-badge');
    await badge.filter({ hasText: /^1ª resposta em (29|30) min$/ }).waitFor();
    assert.equal(await badge.getAttribute('data-sla'), 'ok');
    await chatItem(page, chatId).getByRole('link').click();
    const header = page.locator('.convo').getByTestId('sla-badge');
    await header.filter({ hasText: /^1ª resposta em (29|30) min$/ }).waitFor();
    await e2e.screenshot(page, 'sla-conversation');

    // The agent answers: the resolution target runs now (8 business hours; the team is always open).
    await ana.api.ok('POST', `/api/chats/${chatId}/capture`);
    await ana.api.ok('POST', `/api/chats/${chatId}/messages`, { text: 'Olá, Paula!' });
    await header.filter({ hasText: /^Resolução em 7 h 5\d min|^Resolução em 8 h 0 min/ }).waitFor();

    // A one-minute target: near at once, overdue when the worker raises the breach at its time.
    await e2e.admin.api.ok('PUT', `/api/teams/${team.id}/sla`, { firstResponseMinutes: 1 });
    await page.goto(`${e2e.url}/inbox`);
    const late = await e2e.inbound(channel.id, '5511987650102', 'Alô?', 'Rui');
    const lateBadge = chatItem(page, late).getByTestId('sla-badge');
    await lateBadge.filter({ hasText: '1ª resposta em 1 min' }).waitFor();
    assert.equal(await lateBadge.getAttribute('data-sla'), 'near');
    await page
      .locator(`.chat-item[data-chat-id="${late}"] [data-sla="breached"]`)
      .waitFor({ timeout: 90_000 });
    await lateBadge.filter({ hasText: /^1ª resposta atrasada há \d+ min$/ }).waitFor();
    const chat = await ana.api.ok<{ sla: { firstResponseBreached: boolean } }>('GET', `/api/chats/${late}`);
    assert.equal(chat.sla.firstResponseBreached, true);
    await e2e.screenshot(page, 'sla-breached');

    await page.getByRole('combobox', { name: 'Idioma' }).selectOption('en');
    await lateBadge.filter({ hasText: /^First response overdue by \d+ min$/ }).waitFor();
    await page.getByRole('combobox', { name: 'Language' }).selectOption('pt-BR');
  });

  it('the admin page speaks English', async () => {
    const { page } = admin;
    await page.getByRole('combobox', { name: 'Idioma' }).selectOption('en');
    const line = teamRow(page, 'Suporte');
    await line.getByText('First response: 1 min').waitFor();
    await line.getByRole('button', { name: 'SLA of Suporte' }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'SLA of Suporte' });
    await waitForValue(dialog.getByRole('textbox', { name: 'First response (minutes)' }), '1');
    await waitForValue(dialog.getByRole('textbox', { name: 'Resolution (minutes)' }), '');
    await page.keyboard.press('Escape');
    await page.getByRole('combobox', { name: 'Language' }).selectOption('pt-BR');
    e2e.assertNoBrowserErrors([/status of 400/]);
  });
});

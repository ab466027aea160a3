import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startE2E, type E2E, type Person, type TestPage } from './harness.js';

// Supervisors step in, in a real browser (ADR 79): a supervisor opens a conversation an agent attends,
// replies with the "replying as supervisor" hint, and the agent's console shows the message marked as
// the supervisor's, live; the supervisor takes the conversation over with one click and it leaves the
// agent's list. Then the agent labels and closes a few of their conversations in bulk from the list,
// by keyboard, and reads the summary. Then in English.

const chatItem = (page: Page, chatId: string) => page.locator(`.chat-item[data-chat-id="${chatId}"]`);

describe('supervisors step in, and bulk actions', () => {
  let e2e: E2E;
  let ana: Person;
  let maria: Person;
  let anaTab: TestPage;
  let mariaTab: TestPage;
  let channel: { id: string; name: string };
  let chat = '';

  before(async () => {
    e2e = await startE2E();
    ana = await e2e.createUser({ name: 'Ana Souza' });
    maria = await e2e.createUser({ name: 'Maria Lima', role: 'supervisor' });
    const support = await e2e.createTeam('Suporte', [ana.id, maria.id]);
    channel = await e2e.createChannel({ name: 'Loja', defaultTeamId: support.id });
    chat = await e2e.inbound(channel.id, '5511987652001', 'Quero cancelar meu pedido', 'Rita Moreira');
    await e2e.admin.api.ok('POST', `/api/chats/${chat}/transfer`, { userId: ana.id });
  });
  after(async () => {
    await e2e?.close();
  });

  it('a supervisor replies in the agent’s conversation; the agent sees it marked as the supervisor’s', async () => {
    anaTab = await e2e.newPage('ana');
    await e2e.loginUi(anaTab.page, ana);
    await anaTab.page.locator('.shell[data-conn="online"]').waitFor();
    await anaTab.page.goto(`${e2e.url}/inbox/${chat}`);
    await anaTab.page.locator('.convo-head').getByRole('heading', { name: 'Rita Moreira' }).waitFor();

    mariaTab = await e2e.newPage('maria');
    const { page } = mariaTab;
    await e2e.loginUi(page, maria);
    await page.locator('.shell[data-conn="online"]').waitFor();
    await page.goto(`${e2e.url}/inbox/${chat}`);
    await page.locator('.convo-head').getByRole('heading', { name: 'Rita Moreira' }).waitFor();
    await page
      .locator('.supervisor-hint', {
        hasText: 'Respondendo como supervisor(a): Ana Souza atende esta conversa',
      })
      .waitFor();
    const box = page.getByLabel('Mensagem');
    await box.fill('Olá Rita, aqui é a supervisora. Vamos resolver.');
    await box.press('Enter');
    const mine = page.locator('.messages .msg.by-supervisor', { hasText: 'aqui é a supervisora' });
    await mine.waitFor();
    assert.equal(await mine.locator('.msg-author').innerText(), 'Supervisor(a) Maria Lima');
    await e2e.screenshot(page, 'supervisor-reply');

    // The agent's console, live: the message is there, marked as the supervisor's.
    const seen = anaTab.page.locator('.messages .msg.by-supervisor', { hasText: 'aqui é a supervisora' });
    await seen.waitFor();
    assert.equal(await seen.locator('.msg-author').innerText(), 'Supervisor(a) Maria Lima');
    await e2e.screenshot(anaTab.page, 'supervisor-reply-agent');
  });

  it('the supervisor takes it over with one click; it leaves the agent’s list live', async () => {
    const { page } = mariaTab;
    await anaTab.page.getByRole('tab', { name: /Em Atendimento/ }).click();
    await chatItem(anaTab.page, chat).waitFor();

    await page.locator('.convo-head').getByRole('button', { name: 'Assumir' }).click();
    await page.locator('.convo-head').getByRole('button', { name: 'Assumir' }).waitFor({ state: 'detached' });
    await page.locator('.supervisor-hint').waitFor({ state: 'detached' });
    await page
      .locator('.activity-line[data-kind="takeover"]', { hasText: 'Você assumiu a conversa' })
      .waitFor();

    await chatItem(anaTab.page, chat).waitFor({ state: 'detached' });
    await anaTab.page.locator('.convo-head .convo-meta', { hasText: 'Maria Lima' }).waitFor();
    await anaTab.page
      .locator('.activity-line[data-kind="takeover"]', { hasText: 'Maria Lima assumiu a conversa' })
      .waitFor();
  });

  it('an agent labels and closes a few conversations in bulk, by keyboard, and reads the summary', async () => {
    const { page } = anaTab;
    const ids: string[] = [];
    for (const [i, name] of ['Caio Lima', 'Bia Reis', 'Davi Costa'].entries()) {
      const id = await e2e.inbound(channel.id, `551198765210${i}`, 'Oi', name);
      await e2e.admin.api.ok('POST', `/api/chats/${id}/transfer`, { userId: ana.id });
      ids.push(id);
    }
    await e2e.admin.api.ok('POST', '/api/labels', { name: 'Retorno', color: '#7c3aed' });
    await page.goto(`${e2e.url}/inbox`);
    await page.getByRole('tab', { name: /Em Atendimento/ }).click();
    for (const id of ids) await chatItem(page, id).waitFor();

    // Space toggles the focused checkbox; the bar appears with the count.
    for (const name of ['Caio Lima', 'Bia Reis']) {
      await page.getByRole('checkbox', { name: `Selecionar a conversa com ${name}` }).focus();
      await page.keyboard.press('Space');
    }
    const bar = page.getByRole('form', { name: 'Ação em massa nas conversas selecionadas' });
    await bar.getByText('2 selecionadas').waitFor();
    await bar.getByRole('combobox', { name: 'Ação' }).selectOption({ label: 'Adicionar etiqueta' });
    await bar.getByRole('combobox', { name: 'Aplicar a' }).selectOption({ label: 'Retorno' });
    await bar.getByRole('button', { name: 'Aplicar' }).press('Enter');
    await page.getByRole('status').filter({ hasText: '2 concluídas' }).waitFor();
    await chatItem(page, ids[0]!).locator('.label-chip', { hasText: 'Retorno' }).waitFor();
    await chatItem(page, ids[1]!).locator('.label-chip', { hasText: 'Retorno' }).waitFor();
    assert.equal(await chatItem(page, ids[2]!).locator('.label-chip').count(), 0);
    await e2e.screenshot(page, 'bulk-label');

    // Shift+click selects the range; close (the bar's first action) ends all three.
    await page.getByRole('checkbox', { name: 'Selecionar a conversa com Caio Lima' }).click();
    await page
      .getByRole('checkbox', { name: 'Selecionar a conversa com Davi Costa' })
      .click({ modifiers: ['Shift'] });
    await bar.getByText('3 selecionadas').waitFor();
    await bar.getByRole('combobox', { name: 'Ação' }).selectOption({ label: 'Encerrar' });
    await bar.getByRole('button', { name: 'Aplicar' }).click();
    await page.getByRole('status').filter({ hasText: '3 concluídas' }).waitFor();
    for (const id of ids) await chatItem(page, id).waitFor({ state: 'detached' });
    const closed = await ana.api.ok<{ status: string }>('GET', `/api/chats/${ids[2]}`);
    assert.equal(closed.status, 'closed');
  });

  it('speaks English', async () => {
    const { page } = mariaTab;
    await page.getByRole('combobox', { name: 'Idioma' }).selectOption('en');
    const other = await e2e.inbound(channel.id, '5511987652100', 'Hello', 'Enzo Alves');
    await e2e.admin.api.ok('POST', `/api/chats/${other}/transfer`, { userId: ana.id });
    await page.goto(`${e2e.url}/inbox/${other}`);
    await page
      .locator('.supervisor-hint', { hasText: 'Replying as supervisor: Ana Souza attends' })
      .waitFor();
    await page.locator('.convo-head').getByRole('button', { name: 'Take over' }).waitFor();
    await page.getByRole('combobox', { name: 'Language' }).selectOption('pt-BR');
    e2e.assertNoBrowserErrors();
  });
});

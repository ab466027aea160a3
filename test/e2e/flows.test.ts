import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startE2E, waitForValue, type E2E, type Person, type TestPage } from './harness.js';

// A channel's built-in flow in a real browser: the admin sets it on the channel's Flow tab by
// keyboard (the server's sentence shows under the option it names), the tester plays a customer in
// the simulator, gets the greeting and the menu, answers "2" and the conversation lands in Suporte's
// waiting queue, live in the Suporte agent's inbox; the flow's messages are marked as automated. Then
// the tab in English.

const bubble = (page: Page, text: string) => page.locator('.messages .msg', { hasText: text });

interface Flow {
  enabled: boolean;
  greeting: string | null;
  menu: { prompt: string; options: { label: string; teamId: string }[]; listButton?: string };
  csat: { labels?: string[]; listButton?: string } | null;
}

describe('built-in flows in the console', () => {
  let e2e: E2E;
  let bruno: Person;
  let sales: { id: string; name: string };
  let support: { id: string; name: string };
  let channel: { id: string; name: string };
  let admin: TestPage;

  before(async () => {
    e2e = await startE2E();
    const ana = await e2e.createUser({ name: 'Ana Vendas' });
    bruno = await e2e.createUser({ name: 'Bruno Suporte' });
    sales = await e2e.createTeam('Vendas', [ana.id, e2e.admin.id]);
    support = await e2e.createTeam('Suporte', [bruno.id]);
    channel = await e2e.createChannel({ name: 'Loja', defaultTeamId: sales.id });
  });
  after(async () => {
    await e2e?.close();
  });

  it('an admin sets the channel’s flow by keyboard; a wrong option shows the server’s sentence', async () => {
    admin = await e2e.newPage('admin');
    const { page } = admin;
    await e2e.loginUi(page, { email: e2e.admin.email, password: e2e.admin.password });
    await page.goto(`${e2e.url}/admin/channels/${channel.id}`);
    const tab = page.getByRole('link', { name: 'Fluxo' });
    await tab.focus();
    await page.keyboard.press('Enter');
    const form = page.getByTestId('channel-flow');
    const enabled = form.getByRole('checkbox', {
      name: 'Novas conversas passam pelo fluxo (fila Automação)',
    });
    await enabled.waitFor();
    assert.equal(await enabled.isChecked(), false);
    await enabled.focus();
    await page.keyboard.press('Space');
    await form.getByRole('textbox', { name: 'Saudação' }).fill('Olá! Bem-vindo à Loja.');
    await form
      .getByRole('textbox', { name: 'Texto do menu (antes das opções numeradas)' })
      .fill('Como podemos ajudar?');
    await waitForValue(form.getByRole('textbox', { name: 'Opção 1: rótulo' }), 'Vendas');
    await form.getByRole('button', { name: 'Adicionar opção' }).press('Enter');
    await form.getByRole('combobox', { name: 'Opção 2: equipe' }).selectOption(support.id);
    // The label left empty: the server says so, under the option.
    await form.getByRole('button', { name: 'Salvar' }).press('Enter');
    const option2 = form.getByRole('group', { name: 'Opção 2' });
    await option2.getByText(/menu\.options\.1\.label/).waitFor();
    await form.getByRole('textbox', { name: 'Opção 2: rótulo' }).fill('Suporte');
    await e2e.screenshot(page, 'flow-editor');
    await form.getByRole('button', { name: 'Salvar' }).click();
    await form.getByText('Fluxo salvo.').waitFor();
    const stored = await e2e.admin.api.ok<Flow>('GET', `/api/channels/${channel.id}/flow`);
    assert.equal(stored.enabled, true);
    assert.equal(stored.greeting, 'Olá! Bem-vindo à Loja.');
    assert.deepEqual(stored.menu.options, [
      { label: 'Vendas', teamId: sales.id },
      { label: 'Suporte', teamId: support.id },
    ]);
  });

  it('a customer answers "2" and lands in Suporte', async () => {
    const agent = await e2e.newPage('bruno');
    await e2e.loginUi(agent.page, bruno);
    await agent.page.locator('.shell[data-conn="online"]').waitFor();

    const sim = (await e2e.newPage('simulator')).page;
    await e2e.loginUi(sim, e2e.admin);
    await sim.goto(`${e2e.url}/simulator`);
    await sim.getByRole('heading', { name: 'Simulador de cliente' }).waitFor();
    await sim.getByLabel('Canal sandbox').selectOption(channel.id);
    await sim.getByLabel('Telefone do cliente').fill('5511987659876');
    await sim.getByLabel('Nome do cliente').fill('Clara Menu');
    await sim.getByLabel('Mensagem do cliente').fill('Oi');
    await sim.keyboard.press('Enter');
    await bubble(sim, 'Bem-vindo à Loja').waitFor();
    const menu = bubble(sim, 'Como podemos ajudar?');
    await menu.getByText('2. Suporte').waitFor();
    assert.equal(await menu.getAttribute('data-automation'), 'flow');
    await e2e.screenshot(sim, 'flow-menu-simulator');
    // Not in Suporte yet: the flow holds it in Automação.
    assert.equal(await agent.page.locator('.chat-item', { hasText: 'Clara Menu' }).count(), 0);

    await sim.getByLabel('Mensagem do cliente').fill('2');
    await sim.keyboard.press('Enter');
    const item = agent.page.locator('.chat-item', { hasText: 'Clara Menu' });
    await item.waitFor();
    await item.getByRole('link').click();
    await agent.page.locator('.convo[data-queue="Espera"]').waitFor();
    await bubble(agent.page, 'Como podemos ajudar?').waitFor();
    await e2e.screenshot(agent.page, 'flow-landed-in-support');
    const chatId = (await item.getAttribute('data-chat-id'))!;
    const chat = await e2e.admin.api.ok<{ teamId: string; queue: string }>('GET', `/api/chats/${chatId}`);
    assert.deepEqual([chat.teamId, chat.queue], [support.id, 'Espera']);
  });

  it('an admin words the menu’s list button and the rating’s answers in the customers’ language', async () => {
    const { page } = admin;
    const form = page.getByTestId('channel-flow');
    await form.getByRole('textbox', { name: 'Botão que abre a lista' }).fill('Choose');
    const csat = form.getByRole('checkbox', {
      name: 'Pedir ao cliente uma nota de 1 a 5 ao encerrar a conversa',
    });
    await csat.focus();
    await page.keyboard.press('Space');
    const labels = ['Very poor', 'Poor', 'Fair', 'Good', 'Excellent'];
    await form.getByRole('textbox', { name: 'As cinco respostas, de 1 a 5' }).fill(labels.join('\n'));
    await form.getByRole('textbox', { name: 'Botão que abre a lista da avaliação' }).fill('Rate us');
    await form.getByRole('button', { name: 'Salvar' }).press('Enter');
    await form.getByText('Fluxo salvo.').waitFor();
    const stored = await e2e.admin.api.ok<Flow>('GET', `/api/channels/${channel.id}/flow`);
    assert.equal(stored.menu.listButton, 'Choose');
    assert.deepEqual([stored.csat?.labels, stored.csat?.listButton], [labels, 'Rate us']);
  });

  it('speaks English', async () => {
    const { page } = admin;
    await page.getByRole('combobox', { name: 'Idioma' }).selectOption('en');
    await page.getByRole('link', { name: 'Flow' }).waitFor();
    await page
      .getByRole('checkbox', { name: 'New conversations go through the flow (queue Automação)' })
      .waitFor();
    await page.getByRole('textbox', { name: 'Option 2: label' }).waitFor();
    await page.getByRole('combobox', { name: 'Language' }).selectOption('pt-BR');
    e2e.assertNoBrowserErrors([/status of 400/]);
    admin.errors.length = 0;
  });
});

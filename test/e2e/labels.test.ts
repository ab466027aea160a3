import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startE2E, type E2E, type Person, type TestPage } from './harness.js';

// Labels and the lists that organise the day, in a real browser: an admin defines a label on the
// labels page; an agent puts it on a conversation from its header and sees it on the list item; the
// admin renames it and the agent's chip follows live; the agent filters by it, saves the filter as a
// view whose tab counts exactly and live, and takes the label off — all by keyboard. Then in English.

const chatItem = (page: Page, chatId: string) => page.locator(`.chat-item[data-chat-id="${chatId}"]`);

describe('labels and saved views', () => {
  let e2e: E2E;
  let ana: Person;
  let channel: { id: string; name: string };
  let adminTab: TestPage;
  let anaTab: TestPage;
  let chatA = '';
  let chatB = '';
  let labelId = '';

  before(async () => {
    e2e = await startE2E();
    ana = await e2e.createUser({ name: 'Ana Souza' });
    const support = await e2e.createTeam('Suporte', [ana.id]);
    channel = await e2e.createChannel({ name: 'Loja', defaultTeamId: support.id });
    chatA = await e2e.inbound(channel.id, '5511987651001', 'Quero trocar o produto', 'Rita Moreira');
    chatB = await e2e.inbound(channel.id, '5511987651002', 'Meu boleto venceu', 'Caio Lima');
  });
  after(async () => {
    await e2e?.close();
  });

  it('an admin defines a label on the labels page', async () => {
    adminTab = await e2e.newPage('admin');
    const { page } = adminTab;
    await e2e.loginUi(page, { email: e2e.admin.email, password: e2e.admin.password });
    await page.goto(`${e2e.url}/admin/labels`);
    await page.getByRole('heading', { name: 'Etiquetas' }).waitFor();
    await page.getByText('Nenhuma etiqueta ainda').waitFor();
    await page.getByRole('button', { name: 'Nova etiqueta' }).click();
    const dialog = page.getByRole('dialog', { name: 'Nova etiqueta' });
    await dialog.getByLabel('Nome').fill('VIP');
    await dialog.getByLabel('Cor (#rrggbb)').fill('#7c3aed');
    await dialog.getByLabel('Descrição (opcional)').fill('Clientes que compram muito');
    await dialog.getByLabel('Nome').press('Enter');
    await dialog.waitFor({ state: 'detached' });
    const row = page.getByTestId('labels-table').locator('tr', { hasText: 'VIP' });
    await row.waitFor();
    assert.match(await row.innerText(), /Clientes que compram muito/);
    // A second label of the same name, whatever its case, is refused with the server's sentence.
    await page.getByRole('button', { name: 'Nova etiqueta' }).click();
    const again = page.getByRole('dialog', { name: 'Nova etiqueta' });
    await again.getByLabel('Nome').fill('vip');
    await again.getByRole('button', { name: 'Criar' }).click();
    await again.getByText('Já existe uma etiqueta com este nome').waitFor();
    await again.getByRole('button', { name: 'Cancelar' }).click();
    await e2e.screenshot(page, 'labels-admin');
    const labels = await e2e.admin.api.ok<{ id: string; name: string }[]>('GET', '/api/labels');
    labelId = labels.find((l) => l.name === 'VIP')!.id;
  });

  it('an agent puts it on a conversation by keyboard; the chip follows a rename live', async () => {
    anaTab = await e2e.newPage('ana');
    const { page } = anaTab;
    await e2e.loginUi(page, ana);
    await page.locator('.shell[data-conn="online"]').waitFor();
    await chatItem(page, chatA).locator('a').focus();
    await page.keyboard.press('Enter');
    const header = page.locator('.convo-head');
    await header.getByRole('heading', { name: 'Rita Moreira' }).waitFor();
    const add = header.getByRole('combobox', { name: 'Adicionar etiqueta' });
    await add.focus();
    await add.selectOption({ label: 'VIP' });
    const chip = header.locator(`.label-chip[data-label-id="${labelId}"]`);
    await chip.waitFor();
    assert.match(await chip.innerText(), /VIP/);
    await chatItem(page, chatA).locator('.label-chip', { hasText: 'VIP' }).waitFor();

    // The admin renames it: Ana's chips change without a reload.
    await e2e.admin.api.ok('PATCH', `/api/labels/${labelId}`, { name: 'Cliente VIP' });
    await chip.getByText('Cliente VIP').waitFor();
    await chatItem(page, chatA).locator('.label-chip', { hasText: 'Cliente VIP' }).waitFor();
    await e2e.screenshot(page, 'labels-conversation');
  });

  it('the agent filters by the label, saves a view, and its tab counts exactly and live', async () => {
    const { page } = anaTab;
    await page.getByRole('tab', { name: /Filtros/ }).click();
    const bar = page.getByRole('form', { name: 'Filtros das conversas' });
    await bar.getByRole('combobox', { name: 'Etiqueta' }).selectOption({ label: 'Cliente VIP' });
    const list = page.locator('.chat-list[data-list="filtered"]');
    await list.locator(`.chat-item[data-chat-id="${chatA}"]`).waitFor();
    assert.equal(await list.locator('.chat-item').count(), 1);
    await page.getByTestId('count-filter').getByText('1').waitFor();
    await bar.getByRole('combobox', { name: 'Ordem' }).selectOption({ label: 'Esperando há mais tempo' });

    await bar.getByRole('textbox', { name: 'Nome da visão' }).fill('VIPs');
    await bar.getByRole('textbox', { name: 'Nome da visão' }).press('Enter');
    const viewTab = page.getByRole('tab', { name: /VIPs/ });
    await viewTab.waitFor();
    assert.equal(await viewTab.getAttribute('aria-selected'), 'true');
    const views = await ana.api.ok<{ id: string; filters: Record<string, string> }[]>(
      'GET',
      '/api/chat-views',
    );
    assert.deepEqual(views[0]!.filters, { label: labelId, sort: 'longest_waiting' });
    const viewId = views[0]!.id;
    await page.getByTestId(`count-view:${viewId}`).getByText('1').waitFor();

    // Someone else labels the other conversation: the view lists it and counts 2, live.
    await e2e.admin.api.ok('PUT', `/api/chats/${chatB}/labels/${labelId}`);
    await page.locator(`.chat-list[data-list="filtered"] .chat-item[data-chat-id="${chatB}"]`).waitFor();
    await page.getByTestId(`count-view:${viewId}`).getByText('2').waitFor();
    // Today's tabs are still there, and arrows move between all of them.
    await viewTab.focus();
    await page.keyboard.press('ArrowLeft');
    assert.equal(await page.getByRole('tab', { name: /Filtros/ }).getAttribute('aria-selected'), 'true');
    await page.getByRole('tab', { name: /Espera/ }).waitFor();
    await viewTab.click();
    await e2e.screenshot(page, 'labels-view');

    // The label comes off by keyboard: the chip's remove button.
    await chatItem(page, chatA).locator('a').click();
    const remove = page.locator('.convo-head').getByRole('button', { name: 'Remover etiqueta Cliente VIP' });
    await remove.focus();
    await page.keyboard.press('Enter');
    await page.locator(`.convo-head .label-chip[data-label-id="${labelId}"]`).waitFor({ state: 'detached' });
    await page.getByTestId(`count-view:${viewId}`).getByText('1').waitFor();
  });

  it('speaks English: the labels page, the filters and the conversation header', async () => {
    const { page } = anaTab;
    await page.getByRole('combobox', { name: 'Idioma' }).selectOption('en');
    await page.getByRole('tab', { name: /Filters/ }).click();
    const bar = page.getByRole('form', { name: 'Conversation filters' });
    await bar.getByRole('combobox', { name: 'Order' }).waitFor();
    await bar
      .getByRole('combobox', { name: 'Status' })
      .selectOption({ label: 'Pending (no attendant, and snoozed)' });
    await page.locator('.convo-head').getByRole('combobox', { name: 'Add a label' }).waitFor();
    await page.getByRole('combobox', { name: 'Language' }).selectOption('pt-BR');

    const admin = adminTab.page;
    await admin.getByRole('combobox', { name: 'Idioma' }).selectOption('en');
    await admin.getByRole('heading', { name: 'Labels' }).waitFor();
    await admin.getByRole('button', { name: 'New label' }).waitFor();
    await admin.getByRole('combobox', { name: 'Language' }).selectOption('pt-BR');
    e2e.assertNoBrowserErrors([/status of 409/]);
  });
});

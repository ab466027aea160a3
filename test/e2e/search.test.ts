import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startE2E, type E2E, type Person, type TestPage } from './harness.js';

// Finding and reading the past in a real browser: an agent finds a closed conversation by a word of
// one of its messages and opens it there (read only, with Reopen), sees a returning customer's earlier
// conversation above the new one, and reopens the closed one.

describe('search and history', () => {
  let e2e: E2E;
  let ana: Person;
  let bruno: Person;
  let tab: TestPage;
  let closedChat: string;
  let matchId: string;
  let newChat: string;

  before(async () => {
    e2e = await startE2E();
    ana = await e2e.createUser({ name: 'Ana Souza' });
    bruno = await e2e.createUser({ name: 'Bruno Lima' });
    const support = await e2e.createTeam('Suporte', [ana.id]);
    const billing = await e2e.createTeam('Financeiro', [bruno.id]);
    const whatsapp = await e2e.createChannel({ name: 'WhatsApp Loja', defaultTeamId: support.id });
    const site = await e2e.createChannel({ name: 'Chat do site', defaultTeamId: support.id });
    const other = await e2e.createChannel({ name: 'Cobrança', defaultTeamId: billing.id });

    // Helena's first conversation, on the store's WhatsApp: attended and closed by Ana, with many
    // messages after the one she will be found by, so it is not among the newest.
    const phone = '5511987651001';
    closedChat = await e2e.inbound(whatsapp.id, phone, 'Olá, bom dia', 'Helena Prado');
    await e2e.inbound(whatsapp.id, phone, 'A cobrança da fatura de março veio errada');
    for (let i = 1; i <= 35; i++) await e2e.inbound(whatsapp.id, phone, `Detalhe número ${i}`);
    await ana.api.ok('POST', `/api/chats/${closedChat}/capture`);
    await ana.api.ok('POST', `/api/chats/${closedChat}/messages`, { text: 'Vou corrigir, Helena' });
    await ana.api.ok('POST', `/api/chats/${closedChat}/close`);
    const found = await ana.api.ok<{ results: { id: string; chatId: string }[] }>(
      'GET',
      '/api/search?q=fatura',
    );
    assert.equal(found.results.length, 1);
    matchId = found.results[0]!.id;
    // Another team's customer says the same word: Ana must never find it.
    await e2e.inbound(other.id, '5511987652002', 'Minha fatura não chegou', 'Otávio');
    // Helena comes back on the site's chat: a new conversation, with the first one as history.
    newChat = await e2e.inbound(site.id, phone, 'Voltei, ainda sobre a fatura', 'Helena Prado');
    const urgent = await e2e.admin.api.ok<{ id: string }>('POST', '/api/labels', {
      name: 'Urgente',
      color: '#e11d48',
    });
    await e2e.admin.api.ok('PUT', `/api/chats/${newChat}/labels/${urgent.id}`);
  });
  after(async () => {
    await e2e?.close();
  });

  it('finds a closed conversation by a word of one of its messages and opens it at that message', async () => {
    tab = await e2e.newPage('ana-search');
    const { page } = tab;
    await e2e.loginUi(page, ana);
    await page.goto(`${e2e.url}/inbox`);
    const box = page.getByRole('searchbox', { name: 'Buscar mensagens, contatos e conversas' });
    await box.fill('faturas de marco');
    const results = page.locator('.search-list[data-kind="messages"] .search-item');
    await results.first().waitFor();
    assert.equal(await results.count(), 1, 'only what Ana may open');
    const hit = results.first();
    assert.equal(await hit.getAttribute('data-chat-id'), closedChat);
    assert.deepEqual(await hit.locator('mark').allInnerTexts(), ['fatura', 'março']);
    assert.match(await hit.innerText(), /Encerrada/);
    await e2e.screenshot(page, 'search-results');

    // Keyboard: ↓ from the box to the result, Enter opens it at the message.
    await box.press('ArrowDown');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${e2e.url}/inbox/${closedChat}/m/${matchId}`);
    const match = page.locator(`.messages .msg.found[data-message-id="${matchId}"]`);
    await match.waitFor();
    assert.match(await match.innerText(), /A cobrança da fatura de março veio errada/);
    // Scrolled into view, though 36 newer messages follow it.
    const inView = await match.evaluate((el) => {
      const box = el.closest('.messages')!.getBoundingClientRect();
      const r = el.getBoundingClientRect();
      return r.top >= box.top && r.bottom <= box.bottom;
    });
    assert.equal(inView, true);
    // Read only: no composer, a Reopen action.
    assert.equal(await page.getByLabel('Mensagem').count(), 0);
    await page.getByRole('button', { name: 'Reabrir' }).waitFor();
    assert.match(await page.locator('[data-testid="chat-state"]').innerText(), /Encerrada/);
    // The newer messages load on demand, up to the newest.
    await page.getByRole('button', { name: 'Carregar mensagens mais novas' }).click();
    await page.locator('.messages .msg', { hasText: 'Vou corrigir, Helena' }).waitFor();
    await e2e.screenshot(page, 'search-opened-at-message');

    // The label filter: only the conversations that carry it.
    await box.fill('fatura');
    const list = '.search-list[data-kind="messages"] .search-item';
    await page.locator(`${list}[data-chat-id="${newChat}"]`).waitFor();
    await page.locator(`${list}[data-chat-id="${closedChat}"]`).waitFor();
    const labelFilter = page.getByLabel('Etiqueta', { exact: true });
    await labelFilter.selectOption({ label: 'Urgente' });
    await page.locator(`${list}[data-chat-id="${closedChat}"]`).waitFor({ state: 'detached' });
    await page.locator(`${list}[data-chat-id="${newChat}"]`).waitFor();
    assert.equal(await page.locator(list).count(), 1);
    await labelFilter.selectOption('');

    // Contacts tab, by keyboard: ← → between the kinds.
    await page.locator('#search-tab-messages').focus();
    await page.keyboard.press('ArrowRight');
    const contact = page.locator('.search-list[data-kind="contacts"] .search-item');
    await box.fill('helena');
    await contact.first().waitFor();
    assert.match(await contact.first().innerText(), /Helena Prado/);
    // Esc in the box: back to the lists.
    await box.press('Escape');
    await page.getByRole('tab', { name: /Espera/ }).waitFor();
    tab.errors.length = 0;
    e2e.assertNoBrowserErrors();
  });

  it('shows a returning customer’s earlier conversation above the new one', async () => {
    const { page } = tab;
    await page.goto(`${e2e.url}/inbox/${newChat}`);
    const toggle = page.getByRole('button', { name: 'Conversas anteriores (1)' });
    await toggle.click();
    const item = page.locator(`.history-item[data-chat-id="${closedChat}"]`);
    await item.waitFor();
    const summary = await item.locator('.history-summary').innerText();
    assert.match(summary, /WhatsApp Loja/);
    assert.match(summary, /atendida por Você/);
    assert.match(summary, /encerrada por Você/);
    await item.locator('.history-summary').click();
    await item.locator('.msg', { hasText: 'Vou corrigir, Helena' }).waitFor();
    await item.getByRole('button', { name: 'Carregar mensagens anteriores' }).click();
    await item.locator('.msg', { hasText: 'A cobrança da fatura de março veio errada' }).waitFor();
    await e2e.screenshot(page, 'history-earlier-conversation');
    e2e.assertNoBrowserErrors();
  });

  it('reopens the closed conversation: Ana attends it again and may reply', async () => {
    const { page } = tab;
    await page.goto(`${e2e.url}/inbox/${closedChat}`);
    await page.getByRole('button', { name: 'Reabrir' }).click();
    await page.locator('.convo[data-queue="Em Atendimento"]').waitFor();
    await page.getByLabel('Mensagem').waitFor();
    // It is Ana's again: in her list, live.
    await page.getByRole('tab', { name: /Em Atendimento/ }).click();
    await page.locator(`.chat-item[data-chat-id="${closedChat}"]`).waitFor();
    e2e.assertNoBrowserErrors();
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startE2E, waitForValue, type E2E, type Person, type TestPage } from './harness.js';

// Conversations an integration started through the Channel API, in a real browser: the customer's
// reply brings one to the team's waiting queue live, where an agent captures and answers it; and the
// supervisor's view of every open conversation, whatever its queue, with its filters and search.

const chatItem = (page: Page, chatId: string) => page.locator(`.chat-item[data-chat-id="${chatId}"]`);
const bubble = (page: Page, text: string) => page.locator('.messages .msg', { hasText: text });

/** A laptop screen on which a supervisor's tab labels used to wrap. */
const LAPTOP = { width: 1366, height: 768 };

/**
 * Each tab of the lists holds its label on one line: its content box is one line tall (the taller of
 * the text's line and the count's badge), nothing is cut, and every tab is inside the row.
 */
async function tabsOnOneLine(page: Page): Promise<void> {
  const row = page.getByRole('tablist', { name: 'Listas de conversas' });
  const rowBox = (await row.boundingBox())!;
  const tabs = await row.getByRole('tab').all();
  assert.ok(tabs.length >= 4, `${tabs.length} tabs`);
  // The row's tabs are as tall as each other: a tab without a count is as tall as one with a count.
  const badge = (await row.locator('.count').first().boundingBox())?.height ?? 0;
  for (const tab of tabs) {
    // Raw figures only: a function defined in here would be renamed by the test's compiler into a
    // helper the page does not have.
    const raw = await tab.evaluate((el) => {
      interface El {
        getBoundingClientRect(): { height: number };
        scrollWidth: number;
        clientWidth: number;
        textContent: string | null;
      }
      const e = el as unknown as El;
      const css = (
        globalThis as unknown as { getComputedStyle(x: unknown): Record<string, string> }
      ).getComputedStyle(e);
      return {
        label: e.textContent ?? '',
        height: e.getBoundingClientRect().height,
        css: [
          css.paddingTop,
          css.paddingBottom,
          css.borderTopWidth,
          css.borderBottomWidth,
          css.lineHeight,
          css.fontSize,
        ],
        scrollWidth: e.scrollWidth,
        clientWidth: e.clientWidth,
      };
    });
    const [pt, pb, bt, bb, lineHeight, fontSize] = raw.css.map((v) => parseFloat(v ?? '') || 0);
    const line = raw.css[4] === 'normal' ? fontSize! * 1.25 : lineHeight!;
    const m = {
      label: raw.label,
      content: raw.height - pt! - pb! - bt! - bb!,
      oneLine: Math.max(line, badge),
      scrollWidth: raw.scrollWidth,
      clientWidth: raw.clientWidth,
    };
    assert.ok(
      m.content <= m.oneLine + 1,
      `tab "${m.label}" is ${m.content}px tall inside, one line is ${m.oneLine}px`,
    );
    assert.ok(
      m.scrollWidth <= m.clientWidth,
      `tab "${m.label}" is cut (${m.scrollWidth} > ${m.clientWidth})`,
    );
    const box = (await tab.boundingBox())!;
    assert.ok(
      box.x + box.width <= rowBox.x + rowBox.width + 1,
      `tab "${m.label}" (${box.x}+${box.width}) is outside the row (${rowBox.x}+${rowBox.width})`,
    );
  }
}

describe('replies to API conversations', () => {
  let e2e: E2E;
  let ana: Person;
  let sofia: Person; // supervisor
  let support: { id: string; name: string };
  let sales: { id: string; name: string };
  let channel: { id: string; name: string };
  let channelKey: string;
  let anaTab: TestPage;

  /** The integrator: sends through the Channel API and waits for the send to go out; the chat id. */
  const sendFromApi = async (to: string, name: string, text: string): Promise<string> => {
    const res = await fetch(`${e2e.url}/channel-api/messages/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-channel-api-key': channelKey },
      body: JSON.stringify({
        contact: { value: to, name },
        message: { type: 'text', text: { value: text } },
      }),
    });
    const body = (await res.json()) as { requestId: string };
    assert.equal(res.status, 201, JSON.stringify(body));
    // The request log follows the send (no webhook here): polled until the worker has sent it.
    for (let i = 0; i < 400; i++) {
      const log = await fetch(`${e2e.url}/channel-api/messages/requests/${body.requestId}`, {
        headers: { 'x-channel-api-key': channelKey },
      });
      const entry = (await log.json()) as { status: string; chatId?: string | null };
      if (entry.status === 'sent') {
        const page = await e2e.admin.api.ok<{ chats: { id: string; contact: { value: string } }[] }>(
          'GET',
          `/api/chats?queue=API&channelId=${channel.id}`,
        );
        const chat = page.chats.find((c) => c.contact.value === to);
        assert.ok(chat, 'the send opened a chat in queue API');
        return chat.id;
      }
      assert.notEqual(entry.status, 'failed', JSON.stringify(entry));
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('the send did not go out');
  };

  before(async () => {
    e2e = await startE2E();
    ana = await e2e.createUser({ name: 'Ana Souza' });
    sofia = await e2e.createUser({ name: 'Sofia Ramos', role: 'supervisor' });
    support = await e2e.createTeam('Suporte', [ana.id]);
    sales = await e2e.createTeam('Vendas', []);
    channel = await e2e.createChannel({ name: 'Loja', defaultTeamId: support.id });
    channelKey = (await e2e.admin.api.ok<{ apiKey: string }>('POST', `/api/channels/${channel.id}/api-key`))
      .apiKey;
  });
  after(async () => {
    await e2e?.close();
  });

  it('the customer’s reply to an API message reaches the team’s waiting queue live; the agent captures and answers', async () => {
    anaTab = await e2e.newPage('ana');
    const { page } = anaTab;
    await e2e.loginUi(page, ana);
    await page.locator('.shell[data-conn="online"]').waitFor();
    await page.getByText('Nenhuma conversa na fila').waitFor();
    // Supervisors only.
    assert.equal(await page.getByRole('tab', { name: /Todos abertos/ }).count(), 0);

    const chatId = await sendFromApi('5511987650101', 'Rita Moreira', 'Seu pedido saiu para entrega');
    // Waiting in queue API, the conversation is no agent's business yet.
    assert.equal(await page.getByTestId('count-waiting').innerText(), '0');

    const replied = await e2e.inbound(channel.id, '5511987650101', 'Obrigada! Posso mudar o endereço?');
    assert.equal(replied, chatId, 'the reply continues the conversation the API opened');

    // In Ana's waiting queue without a reload.
    const item = chatItem(page, chatId);
    await item.waitFor();
    assert.match(await item.innerText(), /Rita Moreira[\s\S]*Posso mudar o endereço/);
    assert.equal(await page.getByTestId('count-waiting').innerText(), '1');

    await item.getByRole('link').click();
    await bubble(page, 'Seu pedido saiu para entrega').waitFor();
    await bubble(page, 'Posso mudar o endereço').waitFor();
    await e2e.screenshot(page, 'api-reply-waiting');
    await page.getByRole('button', { name: 'Capturar' }).click();
    await page.locator('.convo[data-queue="Em Atendimento"]').waitFor();

    await page.getByLabel('Mensagem').fill('Claro, Rita! Qual o novo endereço?');
    await page.keyboard.press('Enter');
    await bubble(page, 'Qual o novo endereço').waitFor();
    await waitForValue(page.getByLabel('Mensagem'), '');
    const history = await ana.api.ok<{ messages: { origin: string; content: { text?: string } }[] }>(
      'GET',
      `/api/chats/${chatId}/messages`,
    );
    assert.deepEqual(history.messages.map((m) => [m.origin, m.content.text]).reverse(), [
      ['api', 'Seu pedido saiu para entrega'],
      ['contact', 'Obrigada! Posso mudar o endereço?'],
      ['user', 'Claro, Rita! Qual o novo endereço?'],
    ]);
    e2e.assertNoBrowserErrors();
  });

  it('a supervisor finds every open conversation by queue, team, channel and the customer, live', async () => {
    const other = await e2e.createChannel({ name: 'Vendas online', defaultTeamId: sales.id });
    const waitingId = await e2e.inbound(other.id, '5521988880202', 'Quero um orçamento', 'Tiago Nunes');
    const tab = await e2e.newPage('sofia', { viewport: LAPTOP });
    const { page } = tab;
    await e2e.loginUi(page, sofia);
    await page.locator('.shell[data-conn="online"]').waitFor();
    // Every open conversation counted from the start, before the tab is opened (Ana's and Tiago's),
    // and kept live: one more arrives, one ends.
    const allCount = page.getByTestId('count-all');
    await allCount.filter({ hasText: /^2$/ }).waitFor();
    const passing = await e2e.inbound(other.id, '5531977770404', 'Só uma dúvida', 'Vera Lopes');
    await allCount.filter({ hasText: /^3$/ }).waitFor();
    await e2e.admin.api.ok('POST', `/api/chats/${passing}/close`);
    await allCount.filter({ hasText: /^2$/ }).waitFor();
    assert.equal(
      await page.getByRole('tab', { name: /Todos abertos/ }).getAttribute('aria-selected'),
      'false',
    );
    // At 1366 px the four tabs of a supervisor keep their labels on one line.
    await tabsOnOneLine(page);
    await e2e.screenshot(page, 'supervisor-tabs-1366');
    await page.getByRole('tab', { name: /Todos abertos/ }).click();
    const filters = page.getByRole('form', { name: 'Filtros das conversas abertas' });
    await chatItem(page, waitingId).waitFor();

    // A conversation the API opens now shows up live, in its queue.
    const apiId = await sendFromApi('5511987650303', 'Úrsula Peçanha', 'Sua fatura chegou');
    await chatItem(page, apiId).waitFor();
    assert.match(await chatItem(page, apiId).innerText(), /Úrsula Peçanha[\s\S]*API · Suporte/);

    await filters.getByLabel('Fila').selectOption('API');
    await chatItem(page, waitingId).waitFor({ state: 'detached' });
    await chatItem(page, apiId).waitFor();
    await filters.getByLabel('Fila').selectOption('');

    await filters.getByLabel('Equipe').selectOption({ label: 'Vendas' });
    await chatItem(page, apiId).waitFor({ state: 'detached' });
    await chatItem(page, waitingId).waitFor();
    await filters.getByLabel('Equipe').selectOption('');

    await filters.getByLabel('Canal').selectOption({ label: 'Loja' });
    await chatItem(page, waitingId).waitFor({ state: 'detached' });
    await chatItem(page, apiId).waitFor();
    await filters.getByLabel('Canal').selectOption('');

    // By name, accents and case aside, then by a part of the number as people write it.
    const search = filters.getByLabel('Buscar');
    await search.fill('ursula pecanha');
    await chatItem(page, waitingId).waitFor({ state: 'detached' });
    await chatItem(page, apiId).waitFor();
    await search.fill('(21) 98888');
    await chatItem(page, apiId).waitFor({ state: 'detached' });
    await chatItem(page, waitingId).waitFor();
    await e2e.screenshot(page, 'all-open-search');
    await search.fill('');
    await chatItem(page, apiId).waitFor();
    // A supervisor can open it from there, whatever its queue.
    await chatItem(page, apiId).getByRole('link').click();
    await bubble(page, 'Sua fatura chegou').waitFor();
    await page.locator(`.convo[data-queue="API"]`).waitFor();

    // The customer answers: the conversation, filtered by queue API, leaves the view for Espera.
    await filters.getByLabel('Fila').selectOption('API');
    await chatItem(page, waitingId).waitFor({ state: 'detached' });
    await e2e.inbound(channel.id, '5511987650303', 'Recebi, obrigada');
    await chatItem(page, apiId).waitFor({ state: 'detached' });
    await filters.getByLabel('Fila').selectOption('Espera');
    await chatItem(page, apiId).waitFor();
    assert.match(await chatItem(page, apiId).innerText(), /Recebi, obrigada[\s\S]*Espera · Suporte/);
    // And Ana has it in her waiting queue.
    await anaTab.page.getByRole('tab', { name: /Espera/ }).click();
    await chatItem(anaTab.page, apiId).waitFor();
    e2e.assertNoBrowserErrors();
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startE2E, type E2E, type TestPage } from './harness.js';

// Every word in the chosen language: the server's validation messages (the console asks for its
// language in each request, whatever the browser's own Accept-Language — pt-BR in these tests, so
// English answers can only come from the console's choice), queue names where they are labels, the
// type of a media message in the chat list, and the webhook events' descriptions.

/** The browser logs every 4xx answer as a console error; these tests provoke some on purpose. */
const EXPECTED_400 = /status of 400 \(Bad Request\)/;

const chatItem = (page: Page, chatId: string) => page.locator(`.chat-item[data-chat-id="${chatId}"]`);

/** A small PDF: the agent's reply as a document, without a caption. */
const PDF = Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n').toString('base64');

interface Words {
  queue: RegExp;
  mine: RegExp;
  document: RegExp;
  newUser: string;
  password: string;
  create: string;
  invalid: string[];
  newWebhook: string;
  chatNewHint: string;
  /** The action that ends a conversation, and its confirmation ("Close" read like closing a panel). */
  end: string;
  endConfirm: string;
}

const PT: Words = {
  queue: /Fila: Espera/,
  mine: /Em Atendimento/,
  document: /Documento$/,
  newUser: 'Novo usuário',
  password: 'Senha inicial',
  create: 'Criar',
  invalid: ['email deve ser um e-mail', 'password deve ter pelo menos 8 caracteres'],
  newWebhook: 'Novo webhook',
  chatNewHint: 'Uma conversa entrou na fila de uma equipe',
  end: 'Encerrar',
  endConfirm: 'Encerrar esta conversa?',
};

const EN: Words = {
  queue: /Queue: Waiting/,
  mine: /My chats/,
  document: /Document$/,
  newUser: 'New user',
  password: 'Initial password',
  create: 'Create',
  invalid: ['email must be an email', 'password must be longer than or equal to 8 characters'],
  newWebhook: 'New webhook',
  chatNewHint: "A conversation entered a team's queue",
  end: 'End conversation',
  endConfirm: 'End this conversation?',
};

describe('language of the console', () => {
  let e2e: E2E;
  let tab: TestPage;
  let waitingChat = '';
  let documentChat = '';
  /** The Accept-Language of each API request the console made since the last check. */
  let asked: string[] = [];

  before(async () => {
    e2e = await startE2E();
    const team = await e2e.createTeam('Suporte', [e2e.admin.id]);
    const channel = await e2e.createChannel({ name: 'Loja', defaultTeamId: team.id });
    waitingChat = await e2e.inbound(channel.id, '5511987650101', 'Oi', 'Rita');
    documentChat = await e2e.inbound(channel.id, '5511987650102', 'Segue o contrato?', 'Sara');
    await e2e.admin.api.ok('POST', `/api/chats/${documentChat}/capture`);
    await e2e.admin.api.ok('POST', `/api/chats/${documentChat}/messages`, {
      media: { mimetype: 'application/pdf', base64: PDF, filename: 'contrato.pdf' },
    });
    tab = await e2e.newPage('language');
    tab.page.on('request', (r) => {
      if (new URL(r.url()).pathname.startsWith('/api/')) asked.push(r.headers()['accept-language'] ?? '');
    });
    await e2e.loginUi(tab.page, e2e.admin);
  });
  after(async () => {
    await e2e?.close();
  });

  async function check(words: Words, language: string) {
    const { page } = tab;
    asked = [];
    await page.goto(`${e2e.url}/inbox/${waitingChat}`);
    await page.locator(`.convo[data-chat-id="${waitingChat}"]`).waitFor();
    // The stored queue stays `Espera`; only its label changes.
    assert.equal(await page.locator('.convo').getAttribute('data-queue'), 'Espera');
    assert.match(await page.locator('.convo-meta').innerText(), words.queue);
    // Ending the conversation says so; the confirmation is left with Escape (the chat stays open).
    await page.locator('.convo-head').getByRole('button', { name: words.end, exact: true }).click();
    const end = page.getByRole('dialog', { name: words.endConfirm });
    await end.getByRole('button', { name: words.end, exact: true }).waitFor();
    await page.keyboard.press('Escape');
    await end.waitFor({ state: 'detached' });

    await page.getByRole('tab', { name: words.mine }).click();
    const last = chatItem(page, documentChat).locator('.chat-item-last');
    await last.waitFor();
    const summary = await last.innerText();
    assert.match(summary, words.document);
    assert.doesNotMatch(summary, /\[document\]/);

    // The server's validation sentences, beside the fields they name.
    await page.goto(`${e2e.url}/admin/users`);
    await page.getByRole('button', { name: words.newUser }).click();
    const dialog = page.getByRole('dialog', { name: words.newUser });
    await dialog.locator('input[name="name"]').fill('Carla Dias');
    await dialog.locator('input[name="email"]').fill('carla-not-an-email');
    await dialog.getByLabel(words.password).fill('short');
    await dialog.getByRole('button', { name: words.create }).click();
    for (const sentence of words.invalid) await dialog.getByText(sentence).waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    await page.goto(`${e2e.url}/admin/webhooks`);
    await page.getByRole('button', { name: words.newWebhook }).click();
    await page.getByRole('dialog', { name: words.newWebhook }).getByText(words.chatNewHint).waitFor();
    await page.keyboard.press('Escape');
    assert.ok(asked.length > 0);
    assert.deepEqual([...new Set(asked)], [language]);
  }

  it('speaks Portuguese by default, server messages included', async () => {
    await check(PT, 'pt-BR');
    await e2e.screenshot(tab.page, 'language-pt');
    e2e.assertNoBrowserErrors([EXPECTED_400]);
  });

  it('speaks English when asked, server messages and queue labels included', async () => {
    const { page } = tab;
    await page.goto(`${e2e.url}/inbox`);
    await page.getByRole('combobox', { name: 'Idioma' }).selectOption('en');
    await page.getByRole('combobox', { name: 'Language' }).waitFor();
    await check(EN, 'en');
    await e2e.screenshot(tab.page, 'language-en');
    await page.getByRole('combobox', { name: 'Language' }).selectOption('pt-BR');
    e2e.assertNoBrowserErrors([EXPECTED_400]);
  });
});

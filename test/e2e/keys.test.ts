import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startE2E, type E2E, type Person } from './harness.js';

// A day at speed, in a real browser: the tab's title counts what waits; the command palette
// (Ctrl+K) finds a conversation and an action; one-letter shortcuts capture, transfer and end a
// conversation, Alt+↓/↑ move through the list and `?` lists them; with two tabs open only one plays
// the sound, the other takes over when it closes, and a desktop notification shows when no tab is in
// view; the preferences are saved; who else views or types shows in the conversation's header.

// Counts the chimes (each one oscillator started) and stands in for the browser's Notification API
// and window focus, which a headless browser cannot show; written as a string: it runs in the page.
const INIT = `(() => {
  window.__chimes = 0;
  const start = OscillatorNode.prototype.start;
  OscillatorNode.prototype.start = function (...args) {
    window.__chimes++;
    return start.apply(this, args);
  };
  window.__desktop = [];
  class FakeNotification {
    static permission = 'granted';
    static requestPermission() { return Promise.resolve('granted'); }
    constructor(title, options) { window.__desktop.push({ title, body: options && options.body }); }
    close() {}
  }
  window.Notification = FakeNotification;
  window.__focused = true;
  document.hasFocus = () => window.__focused;
  // A tab told to (__slowGrant) is granted the leader's lock only when the test says (__grant): the
  // moment between a leader closing and the next tab taking over, which is short but real.
  const request = navigator.locks.request.bind(navigator.locks);
  navigator.locks.request = (name, ...rest) => {
    const callback = rest.pop();
    return request(name, ...rest, async (lock) => {
      if (window.__slowGrant) await new Promise((resolve) => (window.__grant = resolve));
      return callback(lock);
    });
  };
})()`;

const chimes = (page: Page) => page.evaluate('window.__chimes') as Promise<number>;
const desktop = (page: Page) =>
  page.evaluate('window.__desktop') as Promise<{ title: string; body: string }[]>;
const item = (page: Page, chatId: string) => page.locator(`.chat-item[data-chat-id="${chatId}"]`);
// Predicates as functions: a string one is evaluated by the page's eval, which its CSP refuses when the
// first check fails and polling starts.
const titleIs = (page: Page, title: string) =>
  page.waitForFunction(
    (t) => (globalThis as unknown as { document: { title: string } }).document.title === t,
    title,
  );
const pageCount = (page: Page, name: '__chimes' | '__desktop', n: number) =>
  page.waitForFunction(
    ([key, want]) => {
      const v = (globalThis as unknown as Record<string, unknown>)[key];
      return (Array.isArray(v) ? v.length : v) === want;
    },
    [name, n] as const,
  );

describe('notifications, keyboard and presence', () => {
  let e2e: E2E;
  let ana: Person;
  let bruno: Person;
  let support: { id: string };
  let channel: { id: string };
  let phoneSeq = 0;
  const phone = () => `55119866${String(++phoneSeq).padStart(5, '0')}`;

  before(async () => {
    e2e = await startE2E();
    ana = await e2e.createUser({ name: 'Ana Souza' });
    bruno = await e2e.createUser({ name: 'Bruno Lima' });
    support = await e2e.createTeam('Suporte', [ana.id, bruno.id]);
    channel = await e2e.createChannel({ name: 'Sandbox', defaultTeamId: support.id });
    await e2e.admin.api.ok('POST', '/api/labels', { name: 'Troca', color: '#0ea5e9' });
  });
  after(async () => {
    await e2e?.close();
  });

  it('two tabs: one plays the sound, the title counts, the other tab takes over, desktop when away', async () => {
    const { page: first, context } = await e2e.newPage('ana-tabs');
    await context.addInitScript(INIT);
    await e2e.loginUi(first, ana);
    await first.locator('.shell[data-conn="online"]').waitFor();
    const second = await context.newPage();
    await second.goto(`${e2e.url}/inbox`);
    await second.locator('.shell[data-conn="online"]').waitFor();
    await titleIs(first, 'Atende');

    const chat1 = await e2e.inbound(channel.id, phone(), 'Oi, preciso de ajuda', 'Carla Dias');
    // Both tabs have the conversation (and decided about the sound with the same event).
    await item(first, chat1).waitFor();
    await item(second, chat1).waitFor();
    await titleIs(first, '(1) Atende');
    await titleIs(second, '(1) Atende');
    const played = [await chimes(first), await chimes(second)];
    assert.deepEqual(played.sort(), [0, 1], `one tab plays: ${JSON.stringify(played)}`);
    const [leader, other] = (await chimes(first)) === 1 ? [first, second] : [second, first];

    // The playing tab closes: the other takes over for the next arrival, which comes while the lock is
    // being handed over; announced once taken over, and the first arrival, which the leader announced,
    // is not announced again.
    await other.evaluate(`(() => { window.__slowGrant = true; })()`);
    await leader.close();
    await other.waitForFunction(
      () => typeof (globalThis as unknown as { __grant?: unknown }).__grant === 'function',
    );
    const chat2 = await e2e.inbound(channel.id, phone(), 'Boa tarde', 'Davi Reis');
    await item(other, chat2).waitFor();
    await titleIs(other, '(2) Atende');
    assert.equal(await chimes(other), 0, 'no tab leads yet');
    await other.evaluate(`(() => { window.__slowGrant = false; window.__grant(); })()`);
    await pageCount(other, '__chimes', 1);
    // In view: no desktop notification.
    assert.deepEqual(await desktop(other), []);

    // Away from the console (no tab in view): a desktop notification too.
    await other.evaluate(`(() => { window.__focused = false; window.dispatchEvent(new Event('blur')); })()`);
    const chat3 = await e2e.inbound(channel.id, phone(), 'Alguém aí?', 'Elisa Prado');
    await item(other, chat3).waitFor();
    await pageCount(other, '__desktop', 1);
    assert.deepEqual(await desktop(other), [{ title: 'Nova conversa na fila', body: 'Elisa Prado' }]);
    await other.evaluate(`(() => { window.__focused = true; window.dispatchEvent(new Event('focus')); })()`);

    // The preferences, from the palette: no sound for new conversations any more.
    await other.keyboard.press('Control+k');
    const palette = other.getByRole('dialog', { name: 'Paleta de comandos' });
    await palette.getByRole('combobox').fill('preferencias');
    await palette.getByRole('option', { name: /Preferências de notificação/ }).waitFor();
    await other.keyboard.press('Enter');
    const prefs = other.getByRole('dialog', { name: 'Preferências de notificação' });
    const sound = prefs.getByLabel('Nova conversa na fila das minhas equipes: Som');
    assert.equal(await sound.isChecked(), true);
    await sound.uncheck();
    await e2e.screenshot(other, 'notification-preferences');
    await prefs.getByRole('button', { name: 'Salvar' }).click();
    await prefs.waitFor({ state: 'detached' });
    const saved = await ana.api.ok<{ newChat: { sound: boolean; desktop: boolean } }>(
      'GET',
      '/api/me/notification-preferences',
    );
    assert.deepEqual(saved.newChat, { sound: false, desktop: true });
    const before = await chimes(other);
    const chat4 = await e2e.inbound(channel.id, phone(), 'Olá', 'Fábio Luz');
    await item(other, chat4).waitFor();
    await titleIs(other, '(4) Atende');
    assert.equal(await chimes(other), before);
  });

  it('the palette goes to a conversation; shortcuts capture, transfer, end and move; ? lists them', async () => {
    const { page } = await e2e.newPage('bruno-keys');
    await e2e.loginUi(page, bruno);
    await page.locator('.shell[data-conn="online"]').waitFor();
    const gabriel = await e2e.inbound(channel.id, phone(), 'Quero trocar um produto', 'Gabriel Nunes');
    await item(page, gabriel).waitFor();

    // Ctrl+K, a few letters of the name (accents and case ignored), Enter.
    await page.keyboard.press('Control+k');
    const palette = page.getByRole('dialog', { name: 'Paleta de comandos' });
    await palette.getByRole('combobox').fill('gabri');
    await palette.getByRole('option', { name: /Gabriel Nunes/ }).waitFor();
    await e2e.screenshot(page, 'command-palette');
    await page.keyboard.press('Enter');
    await page.waitForURL(`**/inbox/${gabriel}`);
    await page.locator(`.convo[data-chat-id="${gabriel}"]`).waitFor();

    // `?` lists the shortcuts.
    await page.keyboard.press('?');
    const help = page.getByRole('dialog', { name: 'Atalhos de teclado' });
    await help.getByText('Capturar a conversa').waitFor();
    await help.getByText('Próxima conversa da lista').waitFor();
    await e2e.screenshot(page, 'keyboard-shortcuts');
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'detached' });

    // C captures.
    await page.keyboard.press('c');
    await page.locator('.convo[data-queue="Em Atendimento"]').waitFor();
    // T opens the transfer; Esc closes it.
    await page.locator('.composer textarea').waitFor();
    await page.keyboard.press('t');
    const transfer = page.getByRole('dialog', { name: 'Transferir conversa' });
    await transfer.waitFor();
    await page.keyboard.press('Escape');
    await transfer.waitFor({ state: 'detached' });
    // L goes to the label picker.
    await page.keyboard.press('l');
    const picker = page.locator('.convo-labels select.label-add:focus');
    await picker.waitFor();
    await picker.selectOption({ label: 'Troca' });
    await page.locator('.convo-labels .label-chip', { hasText: 'Troca' }).waitFor();
    // R writes the reply; a letter typed there is text, not a shortcut.
    await page.keyboard.press('r');
    // R switches the box to the reply and focuses it on the next frame.
    const replyBox = page.locator('.composer:not(.note-composer) textarea');
    await page.locator('.composer:not(.note-composer) textarea:focus').waitFor();
    await page.keyboard.type('e');
    assert.equal(await replyBox.inputValue(), 'e');
    // Esc leaves the box; E then asks to end the conversation; confirmed, it is closed.
    await page.keyboard.press('Escape');
    await page.keyboard.press('e');
    const end = page.getByRole('dialog', { name: 'Encerrar esta conversa?' });
    await end.waitFor();
    await end.getByRole('button', { name: 'Encerrar' }).click();
    await page.getByTestId('chat-state').getByText('Encerrada').waitFor();

    // Alt+↓ and Alt+↑ move through the waiting list.
    const h1 = await e2e.inbound(channel.id, phone(), 'Primeiro', 'Helena Alves');
    const h2 = await e2e.inbound(channel.id, phone(), 'Segundo', 'Igor Matos');
    await page.goto(`${e2e.url}/inbox`);
    await item(page, h1).waitFor();
    await item(page, h2).waitFor();
    const order: string[] = [];
    for (const li of await page.locator('.chat-item').all())
      order.push((await li.getAttribute('data-chat-id'))!);
    await page.keyboard.press('Alt+ArrowDown');
    await page.waitForURL(`**/inbox/${order[0]!}`);
    await page.keyboard.press('Alt+ArrowDown');
    await page.waitForURL(`**/inbox/${order[1]!}`);
    await page.keyboard.press('Alt+ArrowUp');
    await page.waitForURL(`**/inbox/${order[0]!}`);
    // `/` goes to the search box.
    await page.keyboard.press('/');
    await page.locator('#inbox-search:focus').waitFor();
    await page.locator('#inbox-search').blur();

    // In English too: the palette switches the language, and `?` lists the shortcuts in it.
    await page.keyboard.press('Control+k');
    await page.getByRole('dialog', { name: 'Paleta de comandos' }).getByRole('combobox').fill('english');
    await page.getByRole('option', { name: /Switch to English/ }).waitFor();
    await page.keyboard.press('Enter');
    await page.locator('html[lang="en"]').waitFor();
    await page.keyboard.press('?');
    const english = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await english.getByText('End the conversation').waitFor();
    await english.getByText('Next conversation in the list').waitFor();
    await page.keyboard.press('Escape');
  });

  it('who else views and types shows in the conversation header, from another browser', async () => {
    const chatId = await e2e.inbound(channel.id, phone(), 'Preciso de um orçamento', 'Júlia Rocha');
    const anaTab = await e2e.newPage('ana-presence');
    const brunoTab = await e2e.newPage('bruno-presence');
    await e2e.loginUi(anaTab.page, ana);
    await e2e.loginUi(brunoTab.page, bruno);
    await anaTab.page.goto(`${e2e.url}/inbox/${chatId}`);
    await anaTab.page.locator(`.convo[data-chat-id="${chatId}"]`).waitFor();
    await anaTab.page.getByRole('button', { name: 'Capturar' }).click();
    await anaTab.page.locator('.convo[data-queue="Em Atendimento"]').waitFor();

    await brunoTab.page.goto(`${e2e.url}/inbox/${chatId}`);
    const seenByAna = anaTab.page.getByTestId('presence');
    const seenByBruno = brunoTab.page.getByTestId('presence');
    await seenByAna.getByText('Bruno Lima também está vendo').waitFor();
    await seenByBruno.getByText('Ana Souza também está vendo').waitFor();

    await anaTab.page.locator('.composer textarea').pressSequentially('Olá Júlia');
    await seenByBruno.getByText('Ana Souza está digitando…').waitFor();
    await e2e.screenshot(brunoTab.page, 'presence-typing');
    await anaTab.page.keyboard.press('Enter');
    await seenByBruno.getByText('Ana Souza também está vendo').waitFor();

    // Bruno leaves the conversation: Ana sees no one else.
    await brunoTab.page.getByRole('link', { name: 'Atendimento' }).click();
    await seenByAna.waitFor({ state: 'detached' });
    e2e.assertNoBrowserErrors();
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startE2E, type E2E, type Person } from './harness.js';

// Private notes, mentions and activity in the console: an agent writes a note in a conversation and
// mentions a colleague with `@` from the keyboard (someone of another team is not offered); the
// colleague hears it live (bell, toast, desktop notification) and finds it under "Menções"; a team
// transfer's reason is read by the agent of the team it reaches, in the timeline.

describe('notes, mentions and activity in the console', () => {
  let e2e: E2E;
  let ana: Person;
  let bruno: Person;
  let carla: Person;
  let vendas: { id: string; name: string };
  let channel: { id: string };

  before(async () => {
    e2e = await startE2E();
    ana = await e2e.createUser({ name: 'Ana Souza' });
    bruno = await e2e.createUser({ name: 'Bruno Lima' });
    carla = await e2e.createUser({ name: 'Carla Dias' });
    const suporte = await e2e.createTeam('Suporte', [ana.id, bruno.id]);
    vendas = await e2e.createTeam('Vendas', [carla.id]);
    channel = await e2e.createChannel({ name: 'Sandbox', defaultTeamId: suporte.id });
  });
  after(async () => {
    await e2e?.close();
  });

  it('a note mentions a colleague, who is notified live and finds it under Menções', async () => {
    // Bruno is signed in elsewhere, with desktop notifications allowed (recorded, not shown).
    const b = await e2e.newPage('bruno');
    // The browser's Notification API and window focus stood in for (a headless browser shows neither).
    await b.context.addInitScript({
      content: `
        window.shownNotifications = [];
        function Recorded(title, opts) {
          window.shownNotifications.push({ title: title, body: (opts && opts.body) || '' });
          this.onclick = null;
        }
        Recorded.prototype.close = function () {};
        Recorded.permission = 'granted';
        Recorded.requestPermission = function () { return Promise.resolve('granted'); };
        window.Notification = Recorded;
        window.__focused = true;
        document.hasFocus = function () { return window.__focused; };
      `,
    });
    await e2e.loginUi(b.page, bruno);
    // Bruno is away from the console: a mention shows on his desktop.
    await b.page.evaluate(`(() => { window.__focused = false; window.dispatchEvent(new Event('blur')); })()`);

    const chatId = await e2e.inbound(channel.id, '5511987650101', 'Quero cancelar meu plano', 'Marta');
    const { page } = await e2e.newPage('ana');
    await e2e.loginUi(page, ana);
    await page.locator(`.chat-item[data-chat-id="${chatId}"]`).getByRole('link').click();
    await page.locator('.convo').waitFor();

    // The note box, from the keyboard: `@` lists who may see the chat; Carla (another team) is not.
    await page.getByRole('button', { name: 'Nota interna' }).click();
    const box = page.getByRole('combobox', { name: 'Nota interna' });
    await box.focus();
    await page.keyboard.type('@Car');
    const picker = page.getByRole('listbox', { name: 'Mencionar' });
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Backspace');
    await picker.getByRole('option', { name: /@Bruno Lima/ }).waitFor();
    assert.equal(await picker.getByRole('option', { name: /Carla/ }).count(), 0);
    await page.keyboard.type('Bru');
    await page.keyboard.press('Escape');
    await picker.waitFor({ state: 'detached' });
    await page.keyboard.type('n');
    await picker.getByRole('option', { name: /@Bruno Lima/ }).waitFor();
    await page.keyboard.press('Enter');
    await page.keyboard.type('ela quer cancelar, pode ligar?');
    await e2e.screenshot(page, 'notes-composer');
    await page.keyboard.press('Enter');

    // In the timeline, set apart from the customer's messages, the mention marked.
    const note = page.locator('.messages .msg.note', { hasText: 'ela quer cancelar' });
    await note.waitFor();
    await note.locator('mark.mention', { hasText: '@Bruno Lima' }).waitFor();
    await note.getByText('Nota interna').waitFor();
    await e2e.screenshot(page, 'notes-timeline');

    // Bruno: the bell counts it, a toast and a desktop notification say who and what.
    await b.page.getByRole('button', { name: 'Abrir notificações (1 não lidas)' }).waitFor();
    await b.page.locator('.toast', { hasText: 'Ana Souza mencionou você em uma nota' }).waitFor();
    // (The conversation's arrival in his queue was announced too: only the mention is looked at.)
    type Shown = { title: string; body: string }[];
    await b.page.waitForFunction(() =>
      (globalThis as unknown as { shownNotifications: Shown }).shownNotifications.some((n) =>
        n.title.includes('mencionou'),
      ),
    );
    await b.page.evaluate(`(() => { window.__focused = true; window.dispatchEvent(new Event('focus')); })()`);
    const shown = await b.page.evaluate(
      () => (globalThis as unknown as { shownNotifications: Shown }).shownNotifications,
    );
    assert.deepEqual(
      shown.filter((n) => n.title.includes('mencionou')),
      [{ title: 'Ana Souza mencionou você', body: '@Bruno Lima ela quer cancelar, pode ligar?' }],
    );

    // Menções: unread, and opening it goes to the conversation and marks it read.
    await b.page.getByRole('link', { name: 'Menções' }).click();
    const item = b.page.locator('.mention-item.unread', { hasText: 'Ana Souza na conversa com Marta' });
    await item.waitFor();
    await e2e.screenshot(b.page, 'mentions');
    await item.locator('.mention-open').click();
    await b.page.locator(`.convo[data-chat-id="${chatId}"]`).waitFor();
    await b.page.locator('.messages .msg.note', { hasText: 'ela quer cancelar' }).waitFor();
    await b.page.getByRole('button', { name: 'Abrir notificações (0 não lidas)' }).waitFor();
    // Not his note: no edit or delete for him.
    assert.equal(await b.page.locator('.msg.note').getByRole('button', { name: 'Editar' }).count(), 0);

    // Ana edits her note in place (Enter saves); Bruno sees the edit live.
    await note.getByRole('button', { name: 'Editar' }).click();
    const edit = page.getByRole('combobox', { name: 'Editar nota interna' });
    await edit.press('End');
    await page.keyboard.type(' Urgente.');
    await page.keyboard.press('Enter');
    await b.page.locator('.messages .msg.note', { hasText: 'pode ligar? Urgente.' }).waitFor();

    // The customer never received it: the simulator's view of the conversation has only their message.
    const history = await ana.api.ok<{ messages: { content: { text?: string } }[] }>(
      'GET',
      `/api/chats/${chatId}/messages`,
    );
    assert.deepEqual(
      history.messages.map((m) => m.content.text),
      ['Quero cancelar meu plano'],
    );
    e2e.assertNoBrowserErrors();
  });

  it('the agent a team transfer reaches reads its reason in the timeline', async () => {
    const chatId = await e2e.inbound(channel.id, '5511987650102', 'Queria um desconto', 'Paulo');
    const { page } = await e2e.newPage('ana-transfer');
    await e2e.loginUi(page, ana);
    await page.locator(`.chat-item[data-chat-id="${chatId}"]`).getByRole('link').click();
    await page.getByRole('button', { name: 'Capturar' }).click();
    await page
      .locator('.activity-line[data-kind="capture"]', { hasText: 'Você capturou a conversa' })
      .waitFor();

    await page.getByRole('button', { name: 'Transferir' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('combobox', { name: /^Equipe/ }).selectOption(vendas.id);
    await dialog.getByLabel('Código do motivo').fill('vendas');
    await dialog.getByLabel('Motivo', { exact: true }).fill('Cliente quer negociar o plano anual');
    await dialog.getByRole('button', { name: 'Transferir' }).click();
    await dialog.waitFor({ state: 'detached' });

    // Carla, of the team it reached, opens it from her queue.
    const c = await e2e.newPage('carla');
    await e2e.loginUi(c.page, carla);
    await c.page.locator(`.chat-item[data-chat-id="${chatId}"]`).getByRole('link').click();
    const line = c.page.locator('.activity-line[data-kind="transfer.team"]');
    await line.getByText('Ana Souza transferiu para a equipe Vendas').waitFor();
    await line.getByText('Motivo: vendas — Cliente quer negociar o plano anual').waitFor();
    await c.page
      .locator('.activity-line[data-kind="capture"]', { hasText: 'Ana Souza capturou a conversa' })
      .waitFor();

    // Live: Carla captures, and the line arrives while she looks.
    await c.page.getByRole('button', { name: 'Capturar' }).click();
    await c.page
      .locator('.activity-line[data-kind="capture"]', { hasText: 'Você capturou a conversa' })
      .waitFor();
    await e2e.screenshot(c.page, 'activity-transfer-reason');

    // In English too, and the note box's words.
    await c.page.getByRole('combobox', { name: 'Idioma' }).selectOption('en');
    const english = c.page.locator('.activity-line[data-kind="transfer.team"]');
    await english.getByText('Ana Souza transferred it to team Vendas').waitFor();
    await english.getByText('Reason: vendas — Cliente quer negociar o plano anual').waitFor();
    await c.page.getByRole('button', { name: 'Private note' }).click();
    await c.page.getByRole('combobox', { name: 'Private note' }).waitFor();
    e2e.assertNoBrowserErrors();
  });
});

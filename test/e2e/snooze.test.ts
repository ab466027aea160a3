import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startE2E, type E2E, type Person } from './harness.js';

// Snooze and return: an agent snoozes the conversation they attend from its header, until the customer
// replies — from the keyboard (Z, the choices, Enter); it leaves their list and shows, with its badge,
// in the pending view; the sandbox customer writes and it comes back to the list live, with an alert.
// Then a snooze of a few seconds (through the API) comes back by itself at its time.

const chatItem = (page: Page, id: string) => page.locator(`.chat-item[data-chat-id="${id}"]`);

describe('snooze in the console', () => {
  let e2e: E2E;
  let ana: Person;
  let channel: { id: string };

  before(async () => {
    e2e = await startE2E();
    ana = await e2e.createUser({ name: 'Ana Souza' });
    const suporte = await e2e.createTeam('Suporte', [ana.id]);
    channel = await e2e.createChannel({ name: 'Sandbox', defaultTeamId: suporte.id });
  });
  after(async () => {
    await e2e?.close();
  });

  it('snooze and return: until the customer replies, then at its time', async () => {
    const phone = '5511987659001';
    const chatId = await e2e.inbound(channel.id, phone, 'Vou ver e te aviso', 'Paula');
    await ana.api.ok('POST', `/api/chats/${chatId}/capture`);
    const { page } = await e2e.newPage('ana');
    await e2e.loginUi(page, ana);
    await page.goto(`${e2e.url}/inbox/${chatId}`);
    await page.locator('.convo').waitFor();

    // From the keyboard: Z opens the dialog; the choices are radio buttons; Enter snoozes.
    await page.locator('body').focus();
    await page.keyboard.press('z');
    const dialog = page.getByRole('dialog', { name: 'Adiar conversa' });
    await dialog.getByRole('radio', { name: /Por 1 hora/ }).waitFor();
    await dialog.getByRole('radio', { name: 'Até o cliente responder' }).focus();
    await page.keyboard.press('Space');
    assert.ok(await dialog.getByRole('radio', { name: 'Até o cliente responder' }).isChecked());
    await e2e.screenshot(page, 'snooze-dialog');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${e2e.url}/inbox`);

    // Out of the agent's list, into the pending view with its badge.
    await page.getByRole('tab', { name: /Em Atendimento/ }).click();
    await chatItem(page, chatId).waitFor({ state: 'detached' });
    await page.getByRole('tab', { name: 'Filtros' }).click();
    await page
      .getByRole('form', { name: 'Filtros das conversas' })
      .getByLabel('Situação')
      .selectOption('pending');
    const pending = chatItem(page, chatId);
    await pending.getByTestId('snooze-badge').filter({ hasText: 'Adiada até o cliente responder' }).waitFor();
    await e2e.screenshot(page, 'snooze-pending');

    // The customer writes: it comes back to the list live, with an alert.
    await page.getByRole('tab', { name: /Em Atendimento/ }).click();
    await e2e.inbound(channel.id, phone, 'Pronto, já vi', 'Paula');
    await chatItem(page, chatId).waitFor();
    await page.locator('.toast', { hasText: 'Paula escreveu: a conversa adiada voltou' }).waitFor();
    assert.equal(await chatItem(page, chatId).getByTestId('snooze-badge').count(), 0);

    // A short snooze comes back by itself at its time (the wake-up's timer), with its alert.
    const until = new Date(Date.now() + 3_000).toISOString();
    await ana.api.ok('POST', `/api/chats/${chatId}/snooze`, { until });
    await chatItem(page, chatId).waitFor({ state: 'detached' });
    await chatItem(page, chatId).waitFor({ timeout: 30_000 });
    await page.locator('.toast', { hasText: 'A conversa com Paula voltou do adiamento' }).waitFor();

    // The timeline tells the story.
    await chatItem(page, chatId).getByRole('link').click();
    const lines = page.getByTestId('activity-line');
    await lines.filter({ hasText: 'adiou a conversa até o cliente responder' }).waitFor();
    await lines.filter({ hasText: 'A conversa voltou do adiamento: o cliente escreveu' }).waitFor();
    await lines.filter({ hasText: 'A conversa voltou do adiamento no horário marcado' }).waitFor();
    e2e.assertNoBrowserErrors();
  });
});

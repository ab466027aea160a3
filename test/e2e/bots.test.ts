import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startE2E, type E2E, type TestPage } from './harness.js';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

// Bots in a real browser: an admin creates a bot by keyboard and copies its key and secret (shown
// once), renames it, routes a channel to it (the server's sentence for a bad time zone, then "at any
// time"); a new conversation of the channel shows the bot in its header, an agent captures it (the
// take-over) and the timeline says so; the bot is deleted. Then the page in English.

interface Bot {
  id: string;
  name: string;
  replyTimeoutSeconds: number;
}

describe('bots in the console', () => {
  let e2e: E2E;
  let receiver: WebhookReceiver;
  let channel: { id: string; name: string };
  let tab: TestPage;

  before(async () => {
    receiver = await startReceiver();
    e2e = await startE2E({ env: { ATENDE_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
    const team = await e2e.createTeam('Atendimento Bot', [e2e.admin.id]);
    channel = await e2e.createChannel({ name: 'Canal do Bot', defaultTeamId: team.id });
  });
  after(async () => {
    await e2e?.close();
    await receiver?.close();
  });

  it('an admin creates, renames and routes a bot; an agent takes its conversation over', async () => {
    tab = await e2e.newPage('admin');
    const { page } = tab;
    await e2e.loginUi(page, { email: e2e.admin.email, password: e2e.admin.password });
    await page.goto(`${e2e.url}/admin/bots`);
    await page.getByRole('heading', { name: 'Bots' }).waitFor();
    await page.getByText('Nenhum bot ainda').waitFor();

    // Create by keyboard: the dialog's fields in tab order, Enter submits.
    await page.getByRole('button', { name: 'Novo bot' }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Novo bot' });
    await dialog.getByRole('textbox', { name: 'Nome' }).fill('Robô');
    await page.keyboard.press('Tab');
    await page.keyboard.type(receiver.url);
    await page.keyboard.press('Tab');
    await dialog.getByRole('spinbutton', { name: 'Prazo de resposta' }).fill('120');
    await page.keyboard.press('Enter');
    const shown = page.getByTestId('bot-secrets');
    await shown.waitFor();
    const apiKey = await page.getByTestId('bot-api-key').inputValue();
    const secret = await page.getByTestId('bot-secret').inputValue();
    assert.match(apiKey, /^ak_/);
    assert.match(secret, /^whsec_/);
    await e2e.screenshot(page, 'bots-created');
    await shown.getByRole('button', { name: 'Já copiei' }).press('Enter');
    const row = page.getByTestId('bots-table').locator('tr', { hasText: 'Robô' });
    await row.getByText('120 s').waitFor();
    const [bot] = await e2e.admin.api.ok<Bot[]>('GET', '/api/bots');
    assert.equal(bot?.name, 'Robô');

    // Rename.
    await row.getByRole('button', { name: 'Editar: Robô' }).click();
    const edit = page.getByRole('dialog', { name: 'Editar bot' });
    await edit.getByRole('textbox', { name: 'Nome' }).fill('Robô de Vendas');
    await edit.getByRole('button', { name: 'Salvar' }).click();
    await edit.waitFor({ state: 'detached' });
    await page.getByTestId('bots-table').getByText('Robô de Vendas').waitFor();

    // Route the channel: a bad time zone is the server's sentence; then at any time.
    await page.goto(`${e2e.url}/admin/channels/${channel.id}/bot`);
    const form = page.getByTestId('channel-bot');
    await form.getByRole('combobox', { name: 'Bot' }).selectOption({ label: 'Robô de Vendas' });
    await form.getByRole('radio', { name: 'Somente nestes horários' }).check();
    await form.getByRole('textbox', { name: 'Fuso horário' }).fill('Marte/Olympus');
    await form.getByRole('button', { name: 'Salvar' }).click();
    await form.getByText('hours.timeZone Marte/Olympus não é um fuso horário IANA conhecido').waitFor();
    await form.getByRole('radio', { name: 'A qualquer hora' }).check();
    await form.getByRole('button', { name: 'Salvar' }).click();
    await form.getByText('Salvo.').waitFor();
    const routed = await e2e.admin.api.ok<{ botId: string | null }>('GET', `/api/channels/${channel.id}`);
    assert.equal(routed.botId, bot.id);

    // A customer writes: the conversation is the bot's; the admin (an agent of the team) captures it.
    const chatId = await e2e.inbound(channel.id, '5511977000001', 'Oi', 'Carla');
    await page.goto(`${e2e.url}/inbox/${chatId}`);
    await page.getByTestId('chat-bot').getByText('Com o bot Robô de Vendas').waitFor();
    await page.getByTestId('chat-state').getByText('Automação').waitFor();
    await e2e.screenshot(page, 'bot-conversation');
    await page.getByRole('button', { name: 'Capturar', exact: true }).click();
    await page.getByTestId('chat-state').getByText('Em Atendimento').waitFor();
    await page.getByTestId('chat-bot').waitFor({ state: 'detached' });
    await page.getByText('Você assumiu a conversa do bot Robô de Vendas').waitFor();

    // Delete.
    await page.goto(`${e2e.url}/admin/bots`);
    await page.getByTestId('bots-table').getByRole('button', { name: 'Excluir: Robô de Vendas' }).click();
    await page.getByRole('dialog', { name: 'Excluir' }).getByRole('button', { name: 'Excluir' }).click();
    await page.getByText('Nenhum bot ainda').waitFor();

    // Another admin's changes reach the page live (bot.update).
    const other = await e2e.admin.api.ok<Bot>('POST', '/api/bots', {
      name: 'Robô da API',
      url: receiver.url,
    });
    await page.getByTestId('bots-table').getByText('Robô da API').waitFor();
    await e2e.admin.api.ok('DELETE', `/api/bots/${other.id}`, undefined, [204]);
    await page.getByText('Nenhum bot ainda').waitFor();
    e2e.assertNoBrowserErrors([/status of 400/]);
    tab.errors.length = 0;
  });

  it('the bots page in English', async () => {
    const { page } = tab;
    await page.getByRole('combobox', { name: 'Idioma' }).selectOption('en');
    await page.getByRole('button', { name: 'New bot' }).click();
    const dialog = page.getByRole('dialog', { name: 'New bot' });
    await dialog.getByRole('spinbutton', { name: 'Reply deadline' }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByText('No bots yet').waitFor();
    await page.getByRole('combobox', { name: 'Language' }).selectOption('pt-BR');
    e2e.assertNoBrowserErrors();
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { FakeGraph } from '../helpers/fake-graph.js';
import { graphWebhook, hubSignature } from '../helpers/whatsapp.js';
import { PHONE, startE2E, waitForValue, type E2E, type Person, type TestPage } from './harness.js';

// The agent's screens in a real browser: live waiting queue, capture, reply with delivery ticks,
// drafts across tabs, transfer between two agents, and the connection dropped by the server.

const chatItem = (page: Page, chatId: string) => page.locator(`.chat-item[data-chat-id="${chatId}"]`);
const bubble = (page: Page, text: string) => page.locator('.messages .msg', { hasText: text });

describe('agent screens', () => {
  let e2e: E2E;
  let ana: Person;
  let bruno: Person;
  let support: { id: string; name: string };
  let billing: { id: string; name: string };
  let channel: { id: string; name: string };
  let anaTab: TestPage;
  let brunoTab: TestPage;
  let simTab: TestPage;

  let graph: FakeGraph;

  before(async () => {
    // The one fake allowed: Meta's Graph API, for the WhatsApp channel whose send fails for good.
    graph = await FakeGraph.start();
    e2e = await startE2E({ env: { WHATSAPP_GRAPH_BASE_URL: graph.url } });
    ana = await e2e.createUser({ name: 'Ana Souza' });
    bruno = await e2e.createUser({ name: 'Bruno Lima' });
    // The admin is in Ana's team: the simulator's one-click setup answers with the admin's own team.
    support = await e2e.createTeam('Suporte', [ana.id, e2e.admin.id]);
    billing = await e2e.createTeam('Financeiro', [bruno.id]);
  });
  after(async () => {
    await e2e?.close();
    await graph?.close();
  });

  it('customer simulator → waiting queue live → capture → reply → the simulator shows it, ticks advancing', async () => {
    // The tester plays the customer in the simulator (as the admin); Ana attends in her own browser.
    const tester = (simTab = await e2e.newPage('simulator'));
    const sim = tester.page;
    await sim.goto(`${e2e.url}/`);
    await sim.getByRole('heading', { name: 'Entrar no Atende' }).waitFor();
    assert.equal(await sim.locator('html').getAttribute('lang'), 'pt-BR');
    await e2e.screenshot(sim, 'login');
    // The console's first read of the teams is held back: until it has them, the simulator must not
    // offer the one-click setup, which would answer the new channel with a team of its own making.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await sim.route('**/api/teams', async (route) => {
      if (route.request().method() === 'GET') await held;
      await route.continue();
    });
    await e2e.loginUi(sim, e2e.admin);
    await sim.getByRole('link', { name: 'Simulador' }).click();
    await sim.getByRole('heading', { name: 'Simulador de cliente' }).waitFor();
    await sim.locator('.sim-setup .card').getByText('Carregando…').waitFor();
    assert.equal(await sim.getByRole('button', { name: 'Criar um canal sandbox' }).count(), 0);
    // From here on every request goes through as it comes.
    release();
    // A new installation has no channel: the simulator makes a sandbox channel in one click.
    await sim.getByText('Nenhum canal sandbox').waitFor();
    await sim.getByRole('button', { name: 'Criar um canal sandbox' }).click();
    await sim.getByLabel('Canal sandbox').waitFor();
    const channels = await e2e.admin.api.ok<
      { id: string; name: string; provider: string; defaultTeamId: string }[]
    >('GET', '/api/channels');
    assert.equal(channels.length, 1);
    assert.deepEqual([channels[0]!.provider, channels[0]!.defaultTeamId], ['sandbox', support.id]);
    channel = { id: channels[0]!.id, name: channels[0]!.name };
    assert.equal(await sim.getByLabel('Canal sandbox').inputValue(), channel.id);
    await sim.getByLabel('Telefone do cliente').fill('5511987650001');
    await sim.getByLabel('Nome do cliente').fill('Maria Clara');

    anaTab = await e2e.newPage('ana');
    const { page } = anaTab;
    await e2e.loginUi(page, ana);
    await page.locator('.shell[data-conn="online"]').waitFor();
    await page.getByText('Nenhuma conversa na fila').waitFor();

    await sim.getByLabel('Mensagem do cliente').fill('Olá, meu pedido não chegou');
    await sim.keyboard.press('Enter');
    await bubble(sim, 'meu pedido não chegou').waitFor();

    // In Ana's queue without a reload.
    const item = page.locator('.chat-item', { hasText: 'Maria Clara' });
    await item.waitFor();
    const chatId = (await item.getAttribute('data-chat-id'))!;
    assert.match(await item.innerText(), /meu pedido não chegou/);
    assert.equal(await page.getByTestId('count-waiting').innerText(), '1');

    await item.getByRole('link').click();
    await bubble(page, 'meu pedido não chegou').waitFor();
    await page.getByText('Capture a conversa para responder').waitFor();
    await e2e.screenshot(page, 'inbox-waiting');

    await page.getByRole('button', { name: 'Capturar' }).click();
    await page.locator('.convo[data-queue="Em Atendimento"]').waitFor();
    // The conversation moved to "my chats", and the list shows it there.
    await page.locator('.tab[aria-selected="true"]', { hasText: 'Em Atendimento' }).waitFor();
    await chatItem(page, chatId).waitFor();

    // Every status the reply shows in the simulator, in order (written as a string: it runs in the page).
    await sim.evaluate(`(() => {
      window.__ticks = [];
      const seen = () => {
        const li = document.querySelector('.sim-phone .msg[data-origin="user"]');
        const status = li && li.getAttribute('data-status');
        if (status && window.__ticks[window.__ticks.length - 1] !== status) window.__ticks.push(status);
      };
      new MutationObserver(seen).observe(document.body, { subtree: true, childList: true, attributes: true });
    })()`);

    await page.getByLabel('Mensagem').fill('Oi Maria! Vou verificar agora mesmo.');
    await page.keyboard.press('Enter');
    const reply = bubble(page, 'Vou verificar agora mesmo');
    await reply.waitFor();
    // The box is cleared once the send is answered, which may come just after the live event.
    await waitForValue(page.getByLabel('Mensagem'), '');

    // The customer sees it, and reads it: delivered, then read, on both sides.
    const simReply = bubble(sim, 'Vou verificar agora mesmo');
    await simReply.locator('.tick[data-status="read"]').waitFor();
    await reply.locator('.tick[data-status="read"]').waitFor();
    const ticks = (await sim.evaluate('window.__ticks')) as string[];
    const rank = ['queued', 'sent', 'delivered', 'read'];
    assert.ok(ticks.includes('delivered') && ticks.at(-1) === 'read', `ticks seen: ${ticks.join(' → ')}`);
    for (let i = 1; i < ticks.length; i++) {
      assert.ok(rank.indexOf(ticks[i]!) > rank.indexOf(ticks[i - 1]!), `ticks seen: ${ticks.join(' → ')}`);
    }
    await e2e.screenshot(page, 'conversation');
    await e2e.screenshot(sim, 'simulator');
    e2e.assertNoBrowserErrors();
  });

  it('the simulator stays the same customer on every visit until "Novo cliente" makes another', async () => {
    const sim = simTab.page;
    const phone = sim.getByLabel('Telefone do cliente');
    // Another visit in the same browser: the same number, name and conversation.
    await sim.goto(`${e2e.url}/simulator`);
    await bubble(sim, 'Vou verificar agora mesmo').waitFor();
    assert.equal(await phone.inputValue(), '5511987650001');
    assert.equal(await sim.getByLabel('Nome do cliente').inputValue(), 'Maria Clara');

    // A new customer: another number, no name, no conversation yet.
    await sim.getByRole('button', { name: 'Novo cliente' }).click();
    await sim.getByText('Envie a primeira mensagem para abrir uma conversa.').waitFor();
    const fresh = await phone.inputValue();
    assert.match(fresh, /^551199\d{7}$/);
    assert.equal(await sim.getByLabel('Nome do cliente').inputValue(), '');
    // Kept too: the next visit is that new customer, not yet another one.
    await sim.goto(`${e2e.url}/simulator`);
    await sim.getByText('Envie a primeira mensagem para abrir uma conversa.').waitFor();
    assert.equal(await phone.inputValue(), fresh);
    // Back to Maria for what follows.
    await phone.fill('5511987650001');
    await bubble(sim, 'Vou verificar agora mesmo').waitFor();
    e2e.assertNoBrowserErrors();
  });

  it('keeps a draft per chat and shows it in the agent’s other tab', async () => {
    const other = await e2e.newPage('ana-2');
    await e2e.loginUi(other.page, ana);
    const chatId = await e2e.inbound(channel.id, '5511987650002', 'Preciso de ajuda', 'João');
    await ana.api.ok('POST', `/api/chats/${chatId}/capture`);
    await anaTab.page.goto(`${e2e.url}/inbox/${chatId}`);
    await other.page.goto(`${e2e.url}/inbox/${chatId}`);
    await anaTab.page.getByLabel('Mensagem').fill('Rascunho que continua na outra aba');
    await waitForValue(other.page.getByLabel('Mensagem'), 'Rascunho que continua na outra aba');
    await other.context.close();
    e2e.assertNoBrowserErrors();
  });

  it('a transfer by one agent appears live in the other agent’s list', async () => {
    brunoTab = await e2e.newPage('bruno');
    await e2e.loginUi(brunoTab.page, bruno);
    await brunoTab.page.locator('.shell[data-conn="online"]').waitFor();

    const chatId = await e2e.inbound(channel.id, '5511987650003', 'Quero a segunda via do boleto', 'Carla');
    const page = anaTab.page;
    await page.goto(`${e2e.url}/inbox/${chatId}`);
    await page.getByRole('button', { name: 'Capturar' }).click();
    await page.locator('.convo[data-queue="Em Atendimento"]').waitFor();
    await page.getByRole('button', { name: 'Transferir' }).click();
    const dialog = page.getByRole('dialog', { name: 'Transferir conversa' });
    await dialog.locator('select').selectOption({ label: billing.name });
    await dialog.getByLabel('Código do motivo', { exact: true }).fill('financeiro');
    await dialog.getByLabel('Motivo', { exact: true }).fill('Segunda via de boleto');
    await e2e.screenshot(page, 'transfer-dialog');
    await dialog.getByRole('button', { name: 'Transferir' }).click();
    await page.waitForURL(`${e2e.url}/inbox`);

    await chatItem(brunoTab.page, chatId).waitFor();
    assert.match(await chatItem(brunoTab.page, chatId).innerText(), /Carla[\s\S]*segunda via/);
    // Gone from Ana's lists, who is not in that team.
    await chatItem(page, chatId).waitFor({ state: 'detached' });
    e2e.assertNoBrowserErrors();
  });

  it('a transfer to an agent reaches their own list and notifies them', async () => {
    const chatId = await e2e.inbound(channel.id, '5511987650005', 'Pode me ligar?', 'Elisa');
    await ana.api.ok('POST', `/api/chats/${chatId}/capture`);
    const page = anaTab.page;
    await page.goto(`${e2e.url}/inbox/${chatId}`);
    await page.getByRole('button', { name: 'Transferir' }).click();
    const dialog = page.getByRole('dialog', { name: 'Transferir conversa' });
    await dialog.getByRole('radio', { name: 'Para um atendente' }).check();
    await dialog.locator('select').selectOption({ label: bruno.name });
    await dialog.getByRole('button', { name: 'Transferir' }).click();
    await page.waitForURL(`${e2e.url}/inbox`);

    const b = brunoTab.page;
    await b.getByRole('tab', { name: /Em Atendimento/ }).click();
    await chatItem(b, chatId).waitFor();
    const toast = b.locator('.toast', {
      hasText: 'Conversa com Elisa (5511987650005) transferida para você',
    });
    await toast.waitFor();
    await b.getByRole('button', { name: 'Abrir notificações (1 não lidas)' }).waitFor();
    await toast.getByRole('button', { name: 'Abrir conversa' }).click();
    await b.waitForURL(`${e2e.url}/inbox/${chatId}`);
    await bubble(b, 'Pode me ligar?').waitFor();
    await b.getByRole('button', { name: 'Abrir notificações (0 não lidas)' }).waitFor();
    e2e.assertNoBrowserErrors();
  });

  it('pages older messages in as the agent scrolls up', async () => {
    const phone = '5511987650006';
    let chatId = '';
    for (let i = 1; i <= 45; i++) {
      chatId = await e2e.inbound(channel.id, phone, `Mensagem ${String(i).padStart(2, '0')}`, 'Fábio');
    }
    await ana.api.ok('POST', `/api/chats/${chatId}/capture`);
    const page = anaTab.page;
    await page.goto(`${e2e.url}/inbox/${chatId}`);
    await bubble(page, 'Mensagem 45').waitFor();
    assert.equal(await bubble(page, 'Mensagem 01').count(), 0);
    // Keyboard: the history is focusable and Home scrolls it to the top, which asks for more.
    await page.getByRole('list', { name: 'Mensagens com Fábio' }).focus();
    await page.keyboard.press('Home');
    await bubble(page, 'Mensagem 01').waitFor();
    await page.getByText('Início da conversa').waitFor();
    assert.equal(await page.locator('.messages .msg').count(), 45);
    e2e.assertNoBrowserErrors();
  });

  it('keeps unread counts and the last message of my chats live, and reading clears them', async () => {
    const chatId = await e2e.inbound(channel.id, '5511987650009', 'Bom dia', 'Igor');
    await ana.api.ok('POST', `/api/chats/${chatId}/capture`);
    const page = anaTab.page;
    await page.goto(`${e2e.url}/inbox`);
    await page.getByRole('tab', { name: /Em Atendimento/ }).click();
    const item = chatItem(page, chatId);
    await item.getByTestId('unread').filter({ hasText: '1' }).waitFor();

    await e2e.inbound(channel.id, '5511987650009', 'Tem alguém aí?', 'Igor');
    await item.getByTestId('unread').filter({ hasText: '2' }).waitFor();
    assert.match(await item.locator('.chat-item-last').innerText(), /Tem alguém aí\?/);

    await item.getByRole('link').click();
    await bubble(page, 'Tem alguém aí?').waitFor();
    await item.getByTestId('unread').waitFor({ state: 'detached' });
    // While the conversation is open, what arrives is read at once.
    await e2e.inbound(channel.id, '5511987650009', 'Obrigado!', 'Igor');
    await bubble(page, 'Obrigado!').waitFor();
    await page.waitForLoadState('networkidle');
    assert.equal(await item.getByTestId('unread').count(), 0);
    e2e.assertNoBrowserErrors();
  });

  it('replies with an attachment, and closes the conversation', async () => {
    const chatId = await e2e.inbound(channel.id, '5511987650007', 'Manda o recibo?', 'Gabi');
    await ana.api.ok('POST', `/api/chats/${chatId}/capture`);
    const page = anaTab.page;
    await page.goto(`${e2e.url}/inbox/${chatId}`);
    await bubble(page, 'Manda o recibo?').waitFor();
    await page.getByTestId('attach-input').setInputFiles({
      name: 'recibo.pdf',
      mimeType: 'application/pdf',
      buffer: Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n'),
    });
    await page.locator('.composer-attachment', { hasText: 'recibo.pdf' }).waitFor();
    await page.getByLabel('Mensagem').fill('Segue o recibo');
    await page.getByRole('button', { name: 'Enviar' }).click();
    const sent = page.locator('.messages .msg.out', { hasText: 'recibo.pdf' });
    await sent.waitFor();
    assert.match(await sent.innerText(), /Segue o recibo/);
    await sent.locator('.tick[data-status="delivered"]').waitFor();
    await page.locator('.composer-attachment').waitFor({ state: 'detached' });

    await page.getByRole('button', { name: 'Encerrar' }).click();
    const confirm = page.getByRole('dialog', { name: 'Encerrar esta conversa?' });
    await confirm.getByRole('button', { name: 'Encerrar' }).click();
    await page.locator('.composer-note', { hasText: 'Conversa encerrada' }).waitFor();
    await chatItem(page, chatId).waitFor({ state: 'detached' });
    e2e.assertNoBrowserErrors();
  });

  it('shows a reply the provider refused, with its reason', async () => {
    const config = {
      phoneNumberId: '106540352242922',
      accessToken: 'test-token',
      appSecret: 'e2e-app-secret',
      verifyToken: 'e2e-verify',
    };
    const wa = await e2e.admin.api.ok<{ id: string }>('POST', '/api/channels', {
      name: 'WhatsApp Vendas',
      provider: 'whatsapp-cloud',
      defaultTeamId: support.id,
      providerConfig: config,
    });
    // A customer writes on WhatsApp: Meta's signed webhook.
    const raw = JSON.stringify(
      graphWebhook(config.phoneNumberId, {
        contacts: [{ profile: { name: 'Júlia' }, wa_id: '5511987650011' }],
        messages: [
          {
            from: '5511987650011',
            id: 'wamid.e2e.1',
            timestamp: String(Math.floor(Date.now() / 1000)),
            type: 'text',
            text: { body: 'Oi, vocês entregam hoje?' },
          },
        ],
      }),
    );
    const res = await fetch(`${e2e.url}/webhooks/whatsapp/${wa.id}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-hub-signature-256': hubSignature(config.appSecret, raw),
      },
      body: raw,
    });
    assert.equal(res.status, 200);

    const page = anaTab.page;
    await page.goto(`${e2e.url}/inbox`);
    const item = page.locator('.chat-item', { hasText: 'Júlia' });
    await item.waitFor();
    await item.getByRole('link').click();
    await page.getByRole('button', { name: 'Capturar' }).click();
    await page.locator('.convo[data-queue="Em Atendimento"]').waitFor();

    graph.failNext({ code: 131026, message: 'Message undeliverable' });
    await page.getByLabel('Mensagem').fill('Entregamos sim!');
    await page.keyboard.press('Enter');
    const reply = bubble(page, 'Entregamos sim!');
    await reply.locator('.tick[data-status="failed"]').waitFor();
    assert.match(await reply.locator('.msg-error').innerText(), /Falhou: Message undeliverable \(131026\)/);
    await e2e.screenshot(page, 'conversation-failed');
    e2e.assertNoBrowserErrors();
  });

  it('speaks English when asked', async () => {
    const page = anaTab.page;
    await page.goto(`${e2e.url}/inbox`);
    await page.getByRole('combobox', { name: 'Idioma' }).selectOption('en');
    await page.getByRole('tab', { name: /Waiting/ }).waitFor();
    await page.getByRole('tab', { name: /My chats/ }).waitFor();
    assert.equal(await page.locator('html').getAttribute('lang'), 'en');
    await e2e.screenshot(page, 'inbox-english');
    await page.getByRole('combobox', { name: 'Language' }).selectOption('pt-BR');
    await page.getByRole('tab', { name: /Espera/ }).waitFor();
    e2e.assertNoBrowserErrors();
  });

  it('shows the reconnecting state when the server drops the connection, and loses no message', async () => {
    const page = anaTab.page;
    const chatId = await e2e.inbound(channel.id, '5511987650004', 'Primeira mensagem', 'Davi');
    await ana.api.ok('POST', `/api/chats/${chatId}/capture`);
    await page.goto(`${e2e.url}/inbox/${chatId}`);
    await bubble(page, 'Primeira mensagem').waitFor();
    await page.locator('.shell[data-conn="online"]').waitFor();

    const historyReads: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes(`/api/chats/${chatId}/messages`) && r.method() === 'GET')
        historyReads.push(r.url());
    });
    const dropped = await e2e.disconnectSockets(ana.id);
    assert.ok(dropped >= 1);
    // The server's disconnect ends the session (nothing to recover): the console shows it, comes
    // back, and reloads the conversation through REST.
    await e2e.inbound(channel.id, '5511987650004', 'Mensagem durante a queda', 'Davi');
    await page.getByTestId('reconnecting').waitFor();
    await e2e.screenshot(page, 'reconnecting');
    await page.locator('.shell[data-conn="online"]').waitFor();
    await page.getByTestId('reconnecting').waitFor({ state: 'detached' });
    await bubble(page, 'Mensagem durante a queda').waitFor();
    assert.ok(historyReads.length >= 1, 'the conversation was read again through REST');
    // And it is live again.
    await e2e.inbound(channel.id, '5511987650004', 'Depois da volta', 'Davi');
    await bubble(page, 'Depois da volta').waitFor();
    e2e.assertNoBrowserErrors();
  });

  it('comes back from a dropped connection within the recovery window with what it missed', async () => {
    const page = anaTab.page;
    const chatId = await e2e.inbound(channel.id, '5511987650008', 'Oi de novo', 'Helena');
    await ana.api.ok('POST', `/api/chats/${chatId}/capture`);
    await page.goto(`${e2e.url}/inbox/${chatId}`);
    await bubble(page, 'Oi de novo').waitFor();
    await page.locator('.shell[data-conn="online"]').waitFor();
    // The first connection's own catch-up (it is never a recovered one) is over before we look.
    await page.waitForLoadState('networkidle');
    // Every connection state the shell goes through, and every history read from now on.
    await page.evaluate(`(() => {
      window.__conn = [];
      const shell = document.querySelector('.shell');
      new MutationObserver(() => window.__conn.push(shell.getAttribute('data-conn')))
        .observe(shell, { attributes: true, attributeFilter: ['data-conn'] });
    })()`);
    const historyReads: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes(`/api/chats/${chatId}/messages`) && r.method() === 'GET')
        historyReads.push(r.url());
    });

    assert.ok((await e2e.disconnectSockets(ana.id, 'transport')) >= 1);
    await e2e.inbound(channel.id, '5511987650008', 'Enquanto a rede caiu', 'Helena');
    await bubble(page, 'Enquanto a rede caiu').waitFor();
    await page.locator('.shell[data-conn="online"]').waitFor();
    const states = (await page.evaluate('window.__conn')) as string[];
    assert.deepEqual(states, ['reconnecting', 'online']);
    // The session was recovered: the missed message came through the gateway, not a reload.
    assert.deepEqual(historyReads, []);
    e2e.assertNoBrowserErrors();
  });

  it('works on a phone-sized screen', async () => {
    const phone = await e2e.newPage('ana-phone', { viewport: PHONE });
    await e2e.loginUi(phone.page, ana);
    await phone.page.locator('.shell[data-conn="online"]').waitFor();
    await phone.page.getByRole('tab', { name: /Em Atendimento/ }).click();
    await phone.page.locator('.chat-item').first().waitFor();
    await e2e.screenshot(phone.page, 'inbox-phone');
    await phone.page.locator('.chat-item a').first().click();
    await phone.page.locator('.convo .messages .msg').first().waitFor();
    await e2e.screenshot(phone.page, 'conversation-phone');
    await phone.page.getByRole('link', { name: 'Voltar' }).click();
    await phone.page.locator('.chat-list').waitFor();
    // The menu holds the navigation on a phone.
    await phone.page.getByRole('button', { name: 'Menu' }).click();
    await phone.page.getByRole('link', { name: 'Simulador' }).click();
    await phone.page.getByRole('heading', { name: 'Simulador de cliente' }).waitFor();
    await e2e.screenshot(phone.page, 'simulator-phone');
    e2e.assertNoBrowserErrors();
  });
});

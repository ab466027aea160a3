import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { FakeGraph } from '../helpers/fake-graph.js';
import { graphWebhook, hubSignature } from '../helpers/whatsapp.js';
import { PHONE, startE2E, type E2E, type Person, type TestPage } from './harness.js';

// Details of the console an agent meets every day: whose message a list shows, what a closed chat's
// header says, what a transferred chat's note tells its new attendant, request ids one can tell apart,
// the language and the chat header on a phone, what the file picker offers and refuses, and the
// conversation category WhatsApp charged a sent message as.

const chatItem = (page: Page, chatId: string) => page.locator(`.chat-item[data-chat-id="${chatId}"]`);

/** The element's box lies inside the page's viewport (not cut by its right or left edge). */
async function insideViewport(page: Page, el: Locator, what: string): Promise<void> {
  const box = await el.boundingBox();
  const width = page.viewportSize()!.width;
  assert.ok(box, `${what} is not shown`);
  assert.ok(
    box.x >= 0 && box.x + box.width <= width,
    `${what} spans ${box.x}..${box.x + box.width} of ${width}px`,
  );
}

describe('console details', () => {
  let e2e: E2E;
  let graph: FakeGraph;
  let ana: Person;
  let bruno: Person;
  let team: { id: string; name: string };
  let channel: { id: string; name: string };
  let brunoTab: TestPage;
  let transferred = '';
  let phone: TestPage;

  before(async () => {
    graph = await FakeGraph.start();
    e2e = await startE2E({ env: { WHATSAPP_GRAPH_BASE_URL: graph.url } });
    ana = await e2e.createUser({ name: 'Ana Souza' });
    bruno = await e2e.createUser({ name: 'Bruno Lima' });
    team = await e2e.createTeam('Suporte', [ana.id, bruno.id, e2e.admin.id]);
    channel = await e2e.createChannel({ name: 'Loja', defaultTeamId: team.id });
    brunoTab = await e2e.newPage('bruno');
    await e2e.loginUi(brunoTab.page, bruno);
    await brunoTab.page.locator('.shell[data-conn="online"]').waitFor();
  });
  after(async () => {
    await e2e?.close();
    await graph?.close();
  });

  it('the note of a transferred chat names the contact and the reason', async () => {
    const chatId = await e2e.inbound(channel.id, '5511987650101', 'Preciso da 2ª via', 'Maria Clara');
    transferred = chatId;
    await ana.api.ok('POST', `/api/chats/${chatId}/capture`);
    await ana.api.ok('POST', `/api/chats/${chatId}/messages`, { text: 'Vou passar para o financeiro' });
    await ana.api.ok('POST', `/api/chats/${chatId}/transfer`, {
      userId: bruno.id,
      reasonCode: 'financeiro',
      reason: 'Cliente pediu a 2ª via do boleto',
    });

    const page = brunoTab.page;
    const toast = page.locator('.toast', { hasText: 'Maria Clara' });
    await toast.waitFor();
    assert.equal(
      (await toast.locator('span').first().innerText()).trim(),
      'Conversa com Maria Clara (5511987650101) transferida para você — Motivo: Cliente pediu a 2ª via do boleto',
    );
    await page.getByRole('button', { name: 'Abrir notificações (1 não lidas)' }).click();
    const inBell = page.getByRole('region', { name: 'Notificações' }).getByRole('button', {
      name: /Conversa com Maria Clara .* Motivo: Cliente pediu a 2ª via do boleto/,
    });
    await inBell.waitFor();
    await e2e.screenshot(page, 'details-transfer-notification');
    await page.keyboard.press('Escape');
    e2e.assertNoBrowserErrors();
  });

  it('a contact without a name has a neutral avatar, not the first digit of its number', async () => {
    const page = brunoTab.page;
    const nameless = await e2e.inbound(channel.id, '5511987650188', 'Oi, tudo bem?');
    const named = await e2e.inbound(channel.id, '5511987650189', 'Bom dia', 'Lúcia Prado');
    await page.goto(`${e2e.url}/inbox`);
    await page.getByRole('tab', { name: /Espera/ }).click();
    const avatar = chatItem(page, nameless).locator('.avatar');
    await avatar.waitFor();
    assert.equal(await avatar.getAttribute('data-avatar'), 'generic');
    assert.equal((await avatar.innerText()).trim(), '');
    assert.equal(await avatar.locator('svg').count(), 1);
    // The number is still the item's name; a named contact keeps their initials.
    assert.equal(
      (await chatItem(page, nameless).locator('.chat-item-name').innerText()).trim(),
      '5511987650188',
    );
    assert.equal((await chatItem(page, named).locator('.avatar').innerText()).trim(), 'LP');
    // And in the conversation's header.
    await chatItem(page, nameless).getByRole('link').click();
    const head = page.locator(`.convo[data-chat-id="${nameless}"] .convo-head .avatar`);
    await head.waitFor();
    assert.equal(await head.getAttribute('data-avatar'), 'generic');
    await e2e.screenshot(page, 'details-nameless-avatar');
    e2e.assertNoBrowserErrors();
  });

  it('the list names the agent who wrote the last message: "Você" only for one’s own', async () => {
    const page = brunoTab.page;
    const chatId = transferred;
    // Ana wrote the last message: Bruno's list says so, not "Você".
    await page.getByRole('tab', { name: /Em Atendimento/ }).click();
    const last = chatItem(page, chatId).locator('.chat-item-last');
    await last.filter({ hasText: 'Vou passar para o financeiro' }).waitFor();
    assert.equal((await last.innerText()).trim(), 'Ana Souza: Vou passar para o financeiro');

    // His own reply is his: "Você".
    await chatItem(page, chatId).getByRole('link').click();
    await page.getByLabel('Mensagem').fill('Oi Maria, sou o Bruno');
    await page.getByRole('button', { name: 'Enviar' }).click();
    await last.filter({ hasText: 'sou o Bruno' }).waitFor();
    assert.equal((await last.innerText()).trim(), 'Você: Oi Maria, sou o Bruno');
    e2e.assertNoBrowserErrors();
  });

  it('a closed chat’s header says it is closed and who attended it last', async () => {
    const page = brunoTab.page;
    await page.goto(`${e2e.url}/inbox/${transferred}`);
    const state = page.getByTestId('chat-state');
    await state.filter({ hasText: 'Em Atendimento' }).waitFor();
    await page.getByRole('button', { name: 'Encerrar' }).click();
    const confirm = page.getByRole('dialog', { name: 'Encerrar esta conversa?' });
    await confirm.getByRole('button', { name: 'Encerrar' }).click();
    await page.locator('.composer-note', { hasText: 'Conversa encerrada' }).waitFor();
    assert.equal((await state.innerText()).trim(), 'Situação: Encerrada');
    const meta = await page.locator('.convo-meta').innerText();
    assert.match(meta, /Último atendente: Bruno Lima/);
    assert.doesNotMatch(meta, /Em Atendimento|Atendente: Você/);
    await e2e.screenshot(page, 'details-closed-header');
    e2e.assertNoBrowserErrors();
  });

  it('request ids made together can be told apart in the request log', async () => {
    const { apiKey } = await e2e.admin.api.ok<{ apiKey: string }>(
      'POST',
      `/api/channels/${channel.id}/api-key`,
    );
    const ids: string[] = [];
    for (const n of [1, 2, 3]) {
      const res = await fetch(`${e2e.url}/channel-api/messages/send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-channel-api-key': apiKey },
        body: JSON.stringify({
          contact: { value: `551198765020${n}` },
          message: { type: 'text', text: { value: `Aviso ${n}` } },
        }),
      });
      assert.equal(res.status, 201);
      ids.push(String(((await res.json()) as { requestId: string }).requestId));
    }
    const admin = await e2e.newPage('admin');
    const { page } = admin;
    await e2e.loginUi(page, e2e.admin);
    await page.goto(`${e2e.url}/admin/channels/${channel.id}/api`);
    const shown = page.getByTestId('request-log').locator('tbody code.adm-id');
    await shown.nth(2).waitFor();
    const texts = (await shown.allInnerTexts()).map((s) => s.trim());
    assert.equal(texts.length, 3);
    assert.equal(new Set(texts).size, 3, `ids shown alike: ${texts.join(', ')}`);
    // Each is the end of its full id, which stays in the title.
    for (const id of ids) {
      const text = texts.find((s) => id.endsWith(s.replace('…', '')));
      assert.ok(text, `${id} not among ${texts.join(', ')}`);
      assert.equal(await shown.filter({ hasText: text }).getAttribute('title'), id);
    }
    await e2e.screenshot(page, 'details-request-log');
    e2e.assertNoBrowserErrors();
  });

  it('on a phone: the language is in the menu after login', async () => {
    phone = await e2e.newPage('ana-phone', { viewport: PHONE });
    const { page } = phone;
    await e2e.loginUi(page, ana);
    await page.locator('.shell[data-conn="online"]').waitFor();

    await page.getByRole('button', { name: 'Menu' }).click();
    const lang = page.getByRole('combobox', { name: 'Idioma' });
    await lang.waitFor();
    await insideViewport(page, lang, 'the language menu');
    await e2e.screenshot(page, 'details-phone-menu');
    await lang.selectOption('en');
    // The menu stays open, now in English.
    await page.getByRole('link', { name: 'Inbox' }).waitFor();
    await page.getByRole('combobox', { name: 'Language' }).selectOption('pt-BR');
    await page.getByRole('link', { name: 'Atendimento' }).waitFor();
    e2e.assertNoBrowserErrors();
  });

  it('on a phone: the chat header fits the screen', async () => {
    const chatId = await e2e.inbound(channel.id, '5511987650301', 'Alguém aí?', 'Maria Clara');
    const { page } = phone;

    // A waiting chat: the header has the back link, the name and the capture and transfer buttons.
    await page.goto(`${e2e.url}/inbox/${chatId}`);
    const head = page.locator('.convo-head');
    await head.getByRole('button', { name: 'Capturar' }).waitFor();
    await e2e.screenshot(page, 'details-phone-header');
    await insideViewport(page, head.getByRole('heading', { name: 'Maria Clara' }), 'the contact’s name');
    for (const name of ['Capturar', 'Transferir'])
      await insideViewport(page, head.getByRole('button', { name }), `the ${name} button`);
    await insideViewport(page, head.getByRole('link', { name: 'Voltar' }), 'the back link');
    // What the header says of the chat is not clipped by its line.
    const state = head.getByTestId('chat-state');
    await insideViewport(page, state, 'the queue');
    const clipped = await state.evaluate((el) => {
      const line = el.parentElement!.getBoundingClientRect();
      const box = el.getBoundingClientRect();
      return box.right > line.right + 0.5 || box.bottom > line.bottom + 0.5;
    });
    assert.equal(clipped, false, 'the queue is clipped');
    // The name is shown whole, not cut to an ellipsis.
    const cut = await head
      .getByRole('heading', { name: 'Maria Clara' })
      .evaluate((h) => h.scrollWidth > h.clientWidth);
    assert.equal(cut, false, 'the contact’s name is cut');
    await head.getByRole('button', { name: 'Capturar' }).click();
    await head.getByRole('button', { name: 'Encerrar' }).waitFor();
    await e2e.screenshot(page, 'details-phone-header-attending');
    for (const name of ['Transferir', 'Encerrar'])
      await insideViewport(page, head.getByRole('button', { name }), `the ${name} button`);
    e2e.assertNoBrowserErrors();
  });

  it('the file picker offers what can be sent and refuses anything else in a short sentence', async () => {
    const chatId = await e2e.inbound(channel.id, '5511987650401', 'Manda o contrato?', 'Gabi');
    await ana.api.ok('POST', `/api/chats/${chatId}/capture`);
    const tab = await e2e.newPage('ana');
    const { page } = tab;
    await e2e.loginUi(page, ana);
    await page.goto(`${e2e.url}/inbox/${chatId}`);
    const input = page.getByTestId('attach-input');
    await input.waitFor({ state: 'attached' });
    const accept = ((await input.getAttribute('accept')) ?? '').split(',');
    for (const t of ['image/jpeg', 'video/mp4', 'audio/ogg', 'application/pdf', '.docx', '.xlsx', '.pdf'])
      assert.ok(accept.includes(t), `accept lacks ${t}: ${accept.join(',')}`);
    assert.ok(!accept.some((t) => t.includes('*') || t === '.exe'), accept.join(','));

    await input.setInputFiles({
      name: 'setup.exe',
      mimeType: 'application/x-msdownload',
      buffer: Buffer.from('MZ'),
    });
    const alert = page.locator('.composer').getByRole('alert');
    await alert.waitFor();
    assert.equal(
      (await alert.innerText()).trim(),
      'Tipo de arquivo não suportado: .exe. Envie imagem, vídeo, áudio, PDF ou documento do Office.',
    );
    assert.equal(await page.locator('.composer-attachment').count(), 0);
    await e2e.screenshot(page, 'details-file-refused');

    // A file the platform takes is kept, and the note goes away.
    await input.setInputFiles({
      name: 'contrato.pdf',
      mimeType: 'application/pdf',
      buffer: Buffer.from('%PDF-1.4\n%%EOF\n'),
    });
    await page.locator('.composer-attachment', { hasText: 'contrato.pdf' }).waitFor();
    assert.equal(await alert.count(), 0);

    // A type the browser names its own way (.m4a as audio/x-m4a) goes as the type its ending stands for.
    await input.setInputFiles({ name: 'nota.m4a', mimeType: 'audio/x-m4a', buffer: Buffer.from('m4a') });
    await page.locator('.composer-attachment', { hasText: 'nota.m4a' }).waitFor();
    const [answer] = await Promise.all([
      page.waitForResponse(
        (r) => r.url().endsWith(`/api/chats/${chatId}/messages`) && r.request().method() === 'POST',
      ),
      page.getByRole('button', { name: 'Enviar' }).click(),
    ]);
    assert.equal(answer.status(), 201);
    const sent = (await answer.json()) as { content: { media: { mimetype: string; filename: string } } };
    assert.deepEqual(sent.content.media, {
      ...sent.content.media,
      mimetype: 'audio/mp4',
      filename: 'nota.m4a',
    });
    e2e.assertNoBrowserErrors();
  });
  it('a sent message shows the conversation category WhatsApp charged it as, live', async () => {
    const config = {
      phoneNumberId: '306540352242111',
      accessToken: 'test-token',
      appSecret: 'e2e-details-secret',
      verifyToken: 'e2e-details-verify',
    };
    const wa = await e2e.admin.api.ok<{ id: string }>('POST', '/api/channels', {
      name: 'WhatsApp Loja',
      provider: 'whatsapp-cloud',
      defaultTeamId: team.id,
      providerConfig: config,
    });
    const post = async (value: Record<string, unknown>) => {
      const raw = JSON.stringify(graphWebhook(config.phoneNumberId, value));
      const res = await fetch(`${e2e.url}/webhooks/whatsapp/${wa.id}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-hub-signature-256': hubSignature(config.appSecret, raw),
        },
        body: raw,
      });
      assert.equal(res.status, 200);
    };
    const now = Math.floor(Date.now() / 1000);
    await post({
      contacts: [{ profile: { name: 'Rita Alves' }, wa_id: '5511987650601' }],
      messages: [
        {
          from: '5511987650601',
          id: 'wamid.e2e.details.1',
          timestamp: String(now),
          type: 'text',
          text: { body: 'Tem promoção hoje?' },
        },
      ],
    });

    const tab = await e2e.newPage('ana-category');
    const { page } = tab;
    await e2e.loginUi(page, ana);
    await page.goto(`${e2e.url}/inbox`);
    const item = page.locator('.chat-item', { hasText: 'Rita Alves' });
    await item.waitFor();
    await item.getByRole('link').click();
    await page.getByRole('button', { name: 'Capturar' }).click();
    await page.locator('.convo[data-queue="Em Atendimento"]').waitFor();
    await page.getByLabel('Mensagem').fill('Temos sim, 20% em tudo!');
    await page.keyboard.press('Enter');
    const reply = page.locator('.messages .msg', { hasText: 'Temos sim, 20% em tudo!' });
    await reply.locator('.tick[data-status="sent"]').waitFor();
    // Nothing charged yet: no category.
    assert.equal(await reply.getByTestId('message-category').count(), 0);

    const chatId = new URL(page.url()).pathname.split('/').pop()!;
    const history = await ana.api.ok<{
      messages: { origin: string; providerMessageId: string | null }[];
    }>('GET', `/api/chats/${chatId}/messages`);
    const wamid = history.messages.find((m) => m.origin === 'user')?.providerMessageId;
    assert.ok(wamid, 'the reply has no provider id');
    await post({
      statuses: [
        {
          id: wamid,
          status: 'delivered',
          timestamp: String(now + 5),
          recipient_id: '5511987650601',
          conversation: { id: 'CONV-E2E', origin: { type: 'utility' } },
          pricing: { billable: true, pricing_model: 'PMP', category: 'utility', type: 'regular' },
        },
      ],
    });
    const category = reply.getByTestId('message-category');
    await category.waitFor();
    await reply.locator('.tick[data-status="delivered"]').waitFor();
    assert.equal(await category.getAttribute('data-category'), 'utility');
    // The label is read whole by a screen reader; on screen, the category's name.
    assert.equal(await category.textContent(), 'Categoria da conversa: Utilidade');
    assert.equal(await category.locator('.sr-only').textContent(), 'Categoria da conversa: ');
    assert.equal(
      await category.getAttribute('title'),
      'Categoria da conversa: Utilidade · cobrável · modelo PMP · conversa CONV-E2E',
    );
    await e2e.screenshot(page, 'details-conversation-category');
    e2e.assertNoBrowserErrors();
  });
});

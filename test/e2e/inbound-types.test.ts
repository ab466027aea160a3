import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { hubSignature } from '../helpers/whatsapp.js';
import { startE2E, type E2E, type Person, type TestPage } from './harness.js';

// What a customer's WhatsApp messages look like to an agent: the quoted message on a reply, a
// reaction on the message it targets, an edited and a deleted mark, an order, a Flow's answers and a
// message WhatsApp could not deliver. Sent as Meta's signed webhooks (test/fixtures/whatsapp).

const FIXTURE_NUMBER_ID = '106540352242922';
const fixture = (name: string): string =>
  readFileSync(new URL(`../fixtures/whatsapp/${name}.json`, import.meta.url), 'utf8');
const bubble = (page: Page, text: string) => page.locator('.messages .msg', { hasText: text });

describe('inbound message types in the console', () => {
  let e2e: E2E;
  let ana: Person;
  let tab: TestPage;
  const config = {
    phoneNumberId: '206540352242999',
    accessToken: 'test-token',
    appSecret: 'e2e-types-secret',
    verifyToken: 'e2e-types-verify',
  };
  let channelId: string;

  before(async () => {
    e2e = await startE2E();
    ana = await e2e.createUser({ name: 'Ana Souza' });
    const team = await e2e.createTeam('Suporte', [ana.id]);
    const wa = await e2e.admin.api.ok<{ id: string }>('POST', '/api/channels', {
      name: 'WhatsApp Loja',
      provider: 'whatsapp-cloud',
      defaultTeamId: team.id,
      providerConfig: config,
    });
    channelId = wa.id;
  });
  after(async () => e2e?.close());

  async function deliver(name: string, edit: (raw: string) => string = (r) => r): Promise<void> {
    const raw = edit(fixture(name)).replaceAll(FIXTURE_NUMBER_ID, config.phoneNumberId);
    const res = await fetch(`${e2e.url}/webhooks/whatsapp/${channelId}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-hub-signature-256': hubSignature(config.appSecret, raw),
      },
      body: raw,
    });
    assert.equal(res.status, 200);
  }

  it('shows replies with their quote, reactions on their target, edits, deletions, orders, Flows and unsupported', async () => {
    tab = await e2e.newPage('ana');
    const { page } = tab;
    await e2e.loginUi(page, ana);
    await page.goto(`${e2e.url}/inbox`);
    await page.locator('.shell[data-conn="online"]').waitFor();

    await deliver('text');
    const item = page.locator('.chat-item', { hasText: 'Maria Souza' });
    await item.waitFor();
    await item.getByRole('link').click();
    await page.getByRole('button', { name: 'Capturar' }).click();
    await page.locator('.convo[data-queue="Em Atendimento"]').waitFor();
    const original = bubble(page, 'Oi, o pedido 1234 já saiu?').first();
    await original.waitFor();

    // Live, without a reload: a reply quoting it, then a reaction that lands on it.
    await deliver('context_reply');
    const reply = bubble(page, 'Esse mesmo, obrigado!');
    await reply.waitFor();
    assert.equal(await reply.locator('.msg-quote').innerText(), 'Oi, o pedido 1234 já saiu?');
    await deliver('reaction');
    await original.locator('.msg-reaction', { hasText: '👍' }).waitFor();
    await bubble(page, 'Reagiu com 👍').waitFor();

    await deliver('order');
    const order = bubble(page, 'Pedido · 3 itens');
    await order.waitFor();
    assert.match(await order.innerText(), /2 × bolo-cenoura — BRL 45\.50/);
    assert.match(await order.innerText(), /Total: BRL 120\.90/);

    await deliver('interactive_nfm_reply');
    const flow = bubble(page, 'Formulário respondido');
    await flow.waitFor();
    assert.match(await flow.innerText(), /cpf_final\s*1234/);

    await deliver('unsupported');
    await bubble(page, 'Mensagem não suportada (poll_creation)').waitFor();

    // The customer edits, then deletes, the first message: both marks on it, as it happens.
    await deliver('edit');
    const edited = bubble(page, 'Oi, o pedido 1235 já saiu?').first();
    await edited.locator('.msg-mark.edited').waitFor();
    await deliver('revoke');
    await edited.locator('.msg-mark', { hasText: 'apagada pelo cliente' }).waitFor();
    await e2e.screenshot(page, 'conversation-inbound-types');
    e2e.assertNoBrowserErrors();
  });
});

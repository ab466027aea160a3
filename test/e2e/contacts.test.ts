import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PHONE, startE2E, type E2E, type Person, type TestPage } from './harness.js';

// The contact panel beside a conversation (edit name and attributes, notes, live changes, the phone
// layout), the contacts page (search by keyboard, CSV import, an admin's merge) and the admin page of
// contact attributes.

describe('contacts', () => {
  let e2e: E2E;
  let ana: Person;
  let team: { id: string };
  let channel: { id: string };
  let chatId = '';
  let customerId = '';
  let anaTab: TestPage;

  before(async () => {
    e2e = await startE2E();
    ana = await e2e.createUser({ name: 'Ana Souza' });
    team = await e2e.createTeam('Suporte', [ana.id]);
    channel = await e2e.createChannel({ name: 'Loja', defaultTeamId: team.id });
    await e2e.admin.api.ok('POST', '/api/customer-attributes', {
      key: 'plano',
      label: 'Plano',
      type: 'list',
      options: ['Ouro', 'Prata'],
    });
    await e2e.admin.api.ok('POST', '/api/labels', { name: 'VIP', color: '#7c3aed' });
    chatId = await e2e.inbound(channel.id, '5511987651234', 'Oi, quero trocar meu plano', 'Rita');
    customerId = (await ana.api.ok<{ customerId: string }>('GET', `/api/chats/${chatId}`)).customerId;
    anaTab = await e2e.newPage('ana');
    await e2e.loginUi(anaTab.page, ana);
    await anaTab.page.locator('.shell[data-conn="online"]').waitFor();
  });
  after(async () => e2e?.close());

  it('the panel beside the conversation: identities, attributes edited, a note; changes arrive live', async () => {
    const page = anaTab.page;
    await page.goto(`${e2e.url}/inbox/${chatId}`);
    await page.locator('.shell[data-conn="online"]').waitFor();
    const toggle = page.getByTestId('contact-toggle');
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
    await toggle.click();
    const panel = page.getByTestId('contact-panel');
    await panel.getByRole('heading', { name: 'Rita', level: 2 }).waitFor();
    assert.match(await panel.getByTestId('contact-identities').innerText(), /Loja\s+5511987651234/);

    // Name and attribute, by keyboard.
    await panel.getByRole('button', { name: 'Editar contato' }).click();
    const edit = panel.getByTestId('contact-edit');
    await edit.getByLabel('Plano').selectOption('Ouro');
    await edit.getByLabel('Nome').fill('Rita Lima');
    await edit.getByLabel('Nome').press('Enter');
    await panel.getByRole('heading', { name: 'Rita Lima', level: 2 }).waitFor();
    assert.equal(await panel.locator('[data-key="plano"]').innerText(), 'Ouro');

    await panel.getByPlaceholder('Nova nota').fill('Prefere contato à tarde');
    await panel.getByRole('button', { name: 'Adicionar nota' }).click();
    const written = panel.locator('.contact-note', { hasText: 'Prefere contato à tarde' });
    await written.waitFor();
    const note = panel.locator(`.contact-note[data-note-id="${await written.getAttribute('data-note-id')}"]`);
    assert.match(await note.innerText(), /Ana Souza/);

    // What others change arrives through the gateway.
    await e2e.admin.api.ok('PATCH', `/api/customers/${customerId}`, { name: 'Rita Lima Souza' });
    await panel.getByRole('heading', { name: 'Rita Lima Souza', level: 2 }).waitFor();
    await e2e.admin.api.ok('POST', `/api/customers/${customerId}/notes`, { body: 'Cliente desde 2019' });
    await panel.locator('.contact-note', { hasText: 'Cliente desde 2019' }).waitFor();
    await e2e.screenshot(page, 'contacts-panel');

    // Her own note: edited, and marked so.
    await note.getByRole('button', { name: 'Editar nota' }).click();
    await note.getByLabel('Editar nota').fill('Prefere contato pela manhã');
    await note.getByRole('button', { name: 'Salvar' }).click();
    await panel
      .locator('.contact-note', { hasText: 'Prefere contato pela manhã' })
      .getByText(/editada/)
      .waitFor();

    // The customer's conversations, and a label put on the customer and taken off.
    await panel.locator(`.contact-chats a[href="/inbox/${chatId}"]`).waitFor();
    await panel.getByLabel('Adicionar etiqueta').selectOption({ label: 'VIP' });
    await panel.getByTestId('contact-labels').getByText('VIP').waitFor();
    const stored = await ana.api.ok<{ labels: { name: string }[] }>('GET', `/api/customers/${customerId}`);
    assert.deepEqual(
      stored.labels.map((l) => l.name),
      ['VIP'],
    );
    await panel.getByRole('button', { name: 'Remover etiqueta VIP' }).click();
    await panel.getByTestId('contact-labels').waitFor({ state: 'detached' });

    await panel.getByRole('button', { name: 'Fechar painel do contato' }).click();
    await panel.waitFor({ state: 'detached' });
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
    e2e.assertNoBrowserErrors();
  });

  it('on a phone the panel covers the conversation and closes back to it', async () => {
    const phone = await e2e.newPage('ana-phone', { viewport: PHONE });
    await e2e.loginUi(phone.page, ana);
    await phone.page.goto(`${e2e.url}/inbox/${chatId}`);
    await phone.page.getByTestId('contact-toggle').click();
    const panel = phone.page.getByTestId('contact-panel');
    await panel.getByRole('heading', { name: 'Rita Lima Souza', level: 2 }).waitFor();
    const box = await panel.boundingBox();
    assert.ok(box && box.x >= 0 && box.x + box.width <= PHONE.width, `panel at ${JSON.stringify(box)}`);
    await e2e.screenshot(phone.page, 'contacts-panel-phone');
    await panel.getByRole('button', { name: 'Fechar painel do contato' }).click();
    await phone.page.locator('.convo').waitFor();
    await phone.context.close();
    e2e.assertNoBrowserErrors();
  });

  it('the contacts page: search by number with the keyboard, open the contact', async () => {
    const page = anaTab.page;
    await page.getByRole('link', { name: 'Contatos' }).click();
    const search = page.getByRole('searchbox', { name: 'Buscar por nome, número ou e-mail' });
    await search.focus();
    await page.keyboard.type('98765-1234');
    const row = page.getByTestId('contacts-table').getByRole('link', { name: 'Rita Lima Souza' });
    await row.waitFor();
    await row.focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('contact-panel').getByRole('heading', { name: 'Rita Lima Souza' }).waitFor();
    await e2e.screenshot(page, 'contacts-page-contact');
    e2e.assertNoBrowserErrors();
  });

  it('an admin defines an attribute, imports CSV, and merges two contacts', async () => {
    const tab = await e2e.newPage('admin');
    const page = tab.page;
    await e2e.loginUi(page, e2e.admin);
    await page.goto(`${e2e.url}/admin/attributes`);
    await page.getByRole('button', { name: 'Novo atributo' }).click();
    await page.getByLabel('Rótulo').fill('Empresa');
    await page.getByLabel('Chave').fill('empresa');
    await page.getByRole('button', { name: 'Criar' }).click();
    await page.getByTestId('attributes-table').getByText('empresa', { exact: true }).waitFor();
    await e2e.screenshot(page, 'contacts-attributes-admin');

    await page.getByRole('link', { name: 'Contatos' }).click();
    await page.getByRole('button', { name: 'Importar CSV' }).click();
    await page.getByLabel('Arquivo CSV').setInputFiles({
      name: 'contatos.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('name,phones,attr.empresa\nRita Outra,5521912340000,Padaria\nSem número,,\n'),
    });
    await page.getByRole('button', { name: 'Importar', exact: true }).click();
    const report = page.getByTestId('import-report');
    await report.getByText('1 criados, 0 atualizados, 1 com erro').waitFor();
    assert.match(await report.innerText(), /Linha 3: uma linha sem id precisa de um telefone ou um e-mail/);
    await page.getByRole('button', { name: 'Cancelar' }).click();

    // The imported Rita is the same person: merged into the first.
    await page.goto(`${e2e.url}/contacts/${customerId}`);
    await page.getByRole('button', { name: 'Unir com outro contato' }).click();
    await page.getByLabel('Buscar o contato a unir a este').fill('Rita Outra');
    await page
      .getByTestId('merge-candidates')
      .getByRole('button', { name: /Rita Outra/ })
      .click();
    await page.getByRole('button', { name: 'Unir', exact: true }).click();
    await page.getByTestId('contact-identities').getByText('5521912340000').waitFor();
    assert.equal(await page.locator('[data-key="empresa"]').innerText(), 'Padaria');
    await e2e.screenshot(page, 'contacts-merged');
    e2e.assertNoBrowserErrors();
  });
});

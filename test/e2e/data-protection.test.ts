import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { startE2E, type E2E } from './harness.js';

// An admin on a contact's page downloads the person's data as a ZIP and erases it, after confirming;
// and sets the account's retention in Administração.

describe('data protection (LGPD)', () => {
  let e2e: E2E;
  let customerId = '';

  before(async () => {
    e2e = await startE2E();
    const team = await e2e.createTeam('Suporte', []);
    const channel = await e2e.createChannel({ name: 'Loja', defaultTeamId: team.id });
    const chatId = await e2e.inbound(
      channel.id,
      '5511987650001',
      'Meu endereço é Rua das Flores, 10',
      'Marta',
    );
    customerId = (await e2e.admin.api.ok<{ customerId: string }>('GET', `/api/chats/${chatId}`)).customerId;
  });
  after(async () => e2e?.close());

  it('exports the data as a ZIP, then erases it after a confirmation', async () => {
    const tab = await e2e.newPage('admin');
    const page = tab.page;
    await e2e.loginUi(page, e2e.admin);
    await page.goto(`${e2e.url}/contacts/${customerId}`);
    await page.getByRole('heading', { name: 'Marta', level: 2 }).waitFor();

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Exportar dados' }).click(),
    ]);
    assert.equal(download.suggestedFilename(), `contact-${customerId}.zip`);
    const zip = await readFile((await download.path())!);
    assert.equal(zip.readUInt32LE(0), 0x04034b50);
    const text = zip.toString('utf8');
    assert.ok(text.includes('contact.json') && text.includes('conversations.json'));
    assert.ok(text.includes('Rua das Flores'));

    // By keyboard: the button, then the dialog's confirmation.
    await page.getByRole('button', { name: 'Apagar dados (LGPD)' }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Não é possível desfazer').waitFor();
    await dialog.getByRole('button', { name: 'Apagar definitivamente' }).click();
    await page.getByRole('status').filter({ hasText: 'Apagamento em andamento' }).waitFor();
    await e2e.screenshot(page, 'contacts-erasure');

    // The job runs on the workers: asked again while it runs, the same record, which says when it is done.
    const erasures = await e2e.admin.api.ok<{ id: string; status: string }>(
      'POST',
      `/api/contacts/${customerId}/erase`,
      { confirm: 'ERASE' },
      [202],
    );
    let status = erasures.status;
    for (let i = 0; i < 100 && status !== 'done'; i++) {
      await page.waitForTimeout(100);
      status = (await e2e.admin.api.ok<{ status: string }>('GET', `/api/erasures/${erasures.id}`)).status;
    }
    assert.equal(status, 'done');
    const customer = await e2e.admin.api.ok<{ name: string | null }>('GET', `/api/customers/${customerId}`);
    // Without a name, a customer is shown by its address: now a placeholder.
    assert.match(customer.name ?? '', /^erased-/);
    await page.reload();
    await page.getByRole('button', { name: 'Apagar dados (LGPD)' }).waitFor();
    assert.equal(await page.getByText('Marta').count(), 0);
  });

  it('an admin sets the retention in Administração, by keyboard', async () => {
    const tab = await e2e.newPage('admin-retention');
    const page = tab.page;
    await e2e.loginUi(page, e2e.admin);
    await page.goto(`${e2e.url}/admin/retention`);
    const form = page.getByTestId('retention-form');
    await form.getByLabel('O que é apagado').selectOption('media');
    await form.getByLabel('Dias guardados').fill('365');
    await form.getByLabel('Dias guardados').press('Enter');
    await form.getByRole('status').filter({ hasText: 'Salvo' }).waitFor();
    assert.deepEqual(await e2e.admin.api.ok('GET', '/api/retention'), { days: 365, scope: 'media' });
  });
});

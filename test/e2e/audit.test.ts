import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startE2E, type E2E, type Person, type TestPage } from './harness.js';

// The audit log screen in a real browser: an admin creates an API key and changes a user's role in
// their screens, then finds both lines in Administração → Auditoria with its filters, by keyboard.

const row = (page: Page, text: string) =>
  page.getByTestId('audit-log').locator('tbody tr', { hasText: text });

describe('audit log screen', () => {
  let e2e: E2E;
  let admin: TestPage;
  let dora: Person;

  before(async () => {
    e2e = await startE2E();
    dora = await e2e.createUser({ name: 'Dora Auditada' });
    admin = await e2e.newPage('audit-admin');
    await e2e.loginUi(admin.page, e2e.admin);
  });
  after(async () => {
    await e2e?.close();
  });

  it('shows who created an API key and who changed a role, with filters', async () => {
    const { page } = admin;
    await page.goto(`${e2e.url}/admin/api-keys`);
    await page.getByRole('button', { name: 'Nova chave' }).click();
    const dialog = page.getByRole('dialog', { name: 'Nova chave' });
    await dialog.getByLabel('Nome da chave').fill('ERP Auditoria');
    await dialog.getByRole('checkbox', { name: /chats:read/ }).check();
    await dialog.getByRole('button', { name: 'Criar' }).click();
    const token = await page.getByTestId('api-key-token-value').inputValue();
    await page.getByRole('button', { name: 'Já copiei' }).click();

    await page.goto(`${e2e.url}/admin/users`);
    await page.getByRole('button', { name: 'Editar Dora Auditada' }).click();
    const edit = page.getByRole('dialog', { name: 'Editar Dora Auditada' });
    await edit.getByLabel('Perfil').selectOption('supervisor');
    await edit.getByRole('button', { name: 'Salvar' }).click();
    await edit.waitFor({ state: 'detached' });

    // Reached from the admin navigation by keyboard.
    const nav = page.getByRole('link', { name: 'Auditoria' });
    await nav.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Auditoria' }).waitFor();
    const keyLine = row(page, 'criou a chave de API');
    await keyLine.waitFor();
    assert.match(await keyLine.innerText(), /ERP Auditoria/);
    assert.equal((await page.content()).includes(token), false);

    // Only API key actions.
    await page.getByLabel('Ação').selectOption('apikey.');
    await page.getByRole('button', { name: 'Filtrar' }).press('Enter');
    await row(page, 'mudou o papel do usuário').waitFor({ state: 'detached' });
    await keyLine.waitFor();

    // Only user actions, by this admin, on Dora.
    await page.getByLabel('Ação').selectOption('user.');
    await page.getByLabel('Quem').selectOption(e2e.admin.id);
    await page.getByLabel('Id do alvo').fill(dora.id);
    await page.getByLabel('Id do alvo').press('Enter');
    const roleLine = row(page, 'mudou o papel do usuário');
    await roleLine.waitFor();
    await keyLine.waitFor({ state: 'detached' });
    assert.match(await roleLine.innerText(), /supervisor/);
    // Dora's creation (through the API, by the same admin) and her new role: nothing else.
    await row(page, 'criou o usuário').waitFor();
    assert.equal(await page.getByTestId('audit-log').locator('tbody tr').count(), 2);
    await e2e.screenshot(page, 'admin-audit-log');

    // A refresh brings what was done since.
    await e2e.admin.api.ok('PATCH', `/api/users/${dora.id}`, { role: 'agent' });
    await page.getByRole('button', { name: 'Atualizar' }).click();
    await page.getByTestId('audit-log').locator('tbody tr').nth(2).waitFor();
    e2e.assertNoBrowserErrors();
  });
});

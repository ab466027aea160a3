import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startE2E, type E2E } from './harness.js';

// The console loads from the built server on the embedded database, and its admin logs in.

describe('console start', () => {
  let e2e: E2E;
  before(async () => {
    e2e = await startE2E();
  });
  after(async () => {
    await e2e?.close();
  });

  it('shows the login page in Portuguese, logs the admin in, and reaches the gateway', async () => {
    const { page } = await e2e.newPage('admin');
    await page.goto(`${e2e.url}/`);
    await page.getByRole('heading', { name: 'Entrar no Atende' }).waitFor();
    assert.equal(await page.locator('html').getAttribute('lang'), 'pt-BR');
    await e2e.screenshot(page, 'login');
    await e2e.loginUi(page, e2e.admin);
    await page.locator('.shell[data-conn="online"]').waitFor();
    assert.equal(new URL(page.url()).pathname, '/inbox');
    e2e.assertNoBrowserErrors();
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startE2E, waitForValue, type E2E, type TestPage } from './harness.js';

// A team's business hours in a real browser: the teams page says whether each team is open now; an
// admin opens the editor by keyboard, sets a time zone, intervals and a holiday, sees the server's
// sentence for overlapping intervals, saves, and finds the hours again after a reload; a change made
// elsewhere reaches the list live. Then in English.

interface Hours {
  timeZone: string;
  weekly: { start: string; end: string }[][] | null;
  holidays: string[];
  openNow: boolean;
}

const teamRow = (page: Page, name: string) =>
  page.getByTestId('teams-table').locator('tr', { hasText: name });

describe('business hours in the console', () => {
  let e2e: E2E;
  let tab: TestPage;
  let team: { id: string; name: string };

  before(async () => {
    e2e = await startE2E();
    team = await e2e.createTeam('Suporte Noturno', []);
  });
  after(async () => {
    await e2e?.close();
  });

  it('an admin sets a team’s hours by keyboard and the list shows whether it is open', async () => {
    tab = await e2e.newPage('admin');
    const { page } = tab;
    await e2e.loginUi(page, { email: e2e.admin.email, password: e2e.admin.password });
    await page.goto(`${e2e.url}/admin/teams`);
    await page.getByRole('heading', { name: 'Equipes' }).waitFor();
    const line = teamRow(page, 'Suporte Noturno');
    // Without hours the team is always open.
    await line.getByText('Aberto agora').waitFor();
    await line.getByText('sem horário definido').waitFor();

    const open = line.getByRole('button', { name: 'Horário de atendimento de Suporte Noturno' });
    await open.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Horário de atendimento de Suporte Noturno' });
    const zone = dialog.getByRole('combobox', { name: 'Fuso horário' });
    await waitForValue(zone, 'America/Sao_Paulo');
    await zone.fill('America/New_York');

    // Monday: 08:00–12:00, then a second interval that overlaps it → the server's sentence.
    const monday = dialog.getByRole('group', { name: 'Segunda-feira' });
    await monday.getByRole('textbox', { name: 'Segunda-feira, intervalo 1: abre' }).fill('08:00');
    await monday.getByRole('textbox', { name: 'Segunda-feira, intervalo 1: fecha' }).fill('12:00');
    await monday.getByRole('button', { name: 'Adicionar intervalo em Segunda-feira' }).press('Enter');
    await monday.getByRole('textbox', { name: 'Segunda-feira, intervalo 2: abre' }).fill('11:00');
    await monday.getByRole('textbox', { name: 'Segunda-feira, intervalo 2: fecha' }).fill('17:00');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await monday.getByText('weekly.1.0 e weekly.1.1 se sobrepõem').waitFor();
    await monday.getByRole('textbox', { name: 'Segunda-feira, intervalo 2: abre' }).fill('13:00');

    // Friday closed, Saturday 09:00–13:00, Christmas a holiday.
    const friday = dialog.getByRole('group', { name: 'Sexta-feira' });
    await friday.getByRole('button', { name: 'Remover intervalo 1 de Sexta-feira' }).click();
    await friday.getByText('Fechado').waitFor();
    const saturday = dialog.getByRole('group', { name: 'Sábado' });
    await saturday.getByRole('button', { name: 'Adicionar intervalo em Sábado' }).click();
    await saturday.getByRole('textbox', { name: 'Sábado, intervalo 1: fecha' }).fill('13:00');
    await dialog.getByRole('textbox', { name: 'Feriados' }).fill('2026-12-25');
    await e2e.screenshot(page, 'business-hours-editor');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.waitFor({ state: 'detached' });

    const stored = await e2e.admin.api.ok<Hours>('GET', `/api/teams/${team.id}/business-hours`);
    const nineToSix = [{ start: '09:00', end: '18:00' }];
    assert.deepEqual(stored.timeZone, 'America/New_York');
    assert.deepEqual(stored.weekly, [
      [],
      [
        { start: '08:00', end: '12:00' },
        { start: '13:00', end: '17:00' },
      ],
      nineToSix,
      nineToSix,
      nineToSix,
      [],
      [{ start: '09:00', end: '13:00' }],
    ]);
    assert.deepEqual(stored.holidays, ['2026-12-25']);
    // The list says what the server says now.
    await line.getByText(stored.openNow ? 'Aberto agora' : 'Fechado', { exact: true }).waitFor();
    assert.doesNotMatch(await line.innerText(), /sem horário definido/);
    await e2e.screenshot(page, 'business-hours-teams');
  });

  it('a reload shows the saved hours', async () => {
    const { page } = tab;
    await page.reload();
    const line = teamRow(page, 'Suporte Noturno');
    // By keyboard: the row's columns fill in after a reload, and a click can land where a button was.
    await line.getByRole('button', { name: 'Horário de atendimento de Suporte Noturno' }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Horário de atendimento de Suporte Noturno' });
    await waitForValue(dialog.getByRole('combobox', { name: 'Fuso horário' }), 'America/New_York');
    const monday = dialog.getByRole('group', { name: 'Segunda-feira' });
    await waitForValue(monday.getByRole('textbox', { name: 'Segunda-feira, intervalo 2: abre' }), '13:00');
    await waitForValue(monday.getByRole('textbox', { name: 'Segunda-feira, intervalo 2: fecha' }), '17:00');
    await dialog.getByRole('group', { name: 'Sexta-feira' }).getByText('Fechado').waitFor();
    await waitForValue(
      dialog
        .getByRole('group', { name: 'Sábado' })
        .getByRole('textbox', { name: 'Sábado, intervalo 1: fecha' }),
      '13:00',
    );
    await waitForValue(dialog.getByRole('textbox', { name: 'Feriados' }), '2026-12-25');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  it('a change made elsewhere shows live in the list', async () => {
    const { page } = tab;
    const line = teamRow(page, 'Suporte Noturno');
    await page.locator('.shell[data-conn="online"]').waitFor();
    const closedAllWeek = Array.from({ length: 7 }, () => []);
    await e2e.admin.api.ok('PUT', `/api/teams/${team.id}/business-hours`, {
      timeZone: 'UTC',
      weekly: closedAllWeek,
    });
    await line.getByText('Fechado', { exact: true }).waitFor();
    await e2e.admin.api.ok('PUT', `/api/teams/${team.id}/business-hours`, { timeZone: 'UTC', weekly: null });
    await line.getByText('Aberto agora', { exact: true }).waitFor();
  });

  it('speaks English', async () => {
    const { page } = tab;
    await page.getByRole('combobox', { name: 'Idioma' }).selectOption('en');
    const line = teamRow(page, 'Suporte Noturno');
    await line.getByText(/^(Open now|Closed)$/).waitFor();
    await line.getByRole('button', { name: 'Business hours of Suporte Noturno' }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Business hours of Suporte Noturno' });
    // The hours the last test stored (UTC, no weekly hours) once loaded: before that the editor shows
    // its defaults, disabled, and a check against them would race the load.
    await waitForValue(dialog.getByRole('combobox', { name: 'Time zone' }), 'UTC');
    const everyDay = dialog.getByRole('checkbox', {
      name: 'Open every day at any time (only holidays close)',
      checked: true,
    });
    await everyDay.waitFor();
    await dialog.getByRole('textbox', { name: 'Holidays' }).waitFor();
    assert.equal(await dialog.getByRole('group', { name: 'Monday' }).count(), 0);
    // Unchecked by keyboard, the week's days show, named in English.
    await everyDay.press('Space');
    await dialog.getByRole('group', { name: 'Monday' }).getByText('Monday').waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('combobox', { name: 'Language' }).selectOption('pt-BR');
    e2e.assertNoBrowserErrors([/status of 400/]);
    tab.errors.length = 0;
  });
});

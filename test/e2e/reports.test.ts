import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { PHONE, startE2E, type ApiClient, type E2E, type Person, type TestPage } from './harness.js';

// Reports in a real browser. A scripted day on a sandbox channel with a flow that asks for a rating:
// three customers write, Ana captures and answers each, ends two, and their customers rate 5 and 4.
// Sofia, the team's supervisor, opens Relatórios from the navigation: the figures appear in each
// chart's table (and the canvases are drawn), the same as the API's report; broken down by attendant,
// Ana's line; the CSV she downloads is the export of the same query, its lines carrying the day.
// Ana, an agent, has no Relatórios but her "Meu dia", on a phone too; then in English.

interface Counts {
  opened: number;
  closed: number;
  reopened: number;
  attended: number;
  transfers: number;
  messagesIn: number;
  messagesOut: number;
  csat: { count: number; distribution: number[] };
}
interface Report {
  range: { from: string; to: string; timeZone: string; granularity: string };
  totals: Counts;
  series: { start: string; metrics: Counts }[];
  groups: { id: string; name: string; metrics: Counts }[];
}

const TZ = 'America/Sao_Paulo';

/** The cells of a table's row (by its data-row), by their column names. */
async function rowOf(table: Locator, row: string): Promise<Record<string, string>> {
  const cells = table.locator(`tr[data-row="${row}"] td`);
  const out: Record<string, string> = {};
  for (const cell of await cells.all())
    out[(await cell.getAttribute('data-col'))!] = (await cell.innerText()).trim();
  return out;
}

/** Whether a chart's canvas was drawn: Chart.js made it, and some pixel is not blank. */
async function drawn(page: Page, testId: string): Promise<boolean> {
  const canvas = page.getByTestId(testId);
  await canvas.and(page.locator('[data-rendered="true"]')).waitFor();
  return canvas.evaluate((el) => {
    const c = el as unknown as {
      width: number;
      height: number;
      getContext(k: '2d'): {
        getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
      };
    };
    const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    for (let i = 3; i < data.length; i += 4) if (data[i] !== 0) return true;
    return false;
  });
}

/** The rollups follow the event log a moment behind: the report once it shows what was scripted. */
async function reportOnceCounted(
  api: ApiClient,
  path: string,
  done: (r: Report) => boolean,
): Promise<Report> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const r = await api.ok<Report>('GET', path);
    if (done(r)) return r;
    if (Date.now() > deadline)
      throw new Error(`the report never showed the day: ${JSON.stringify(r.totals)}`);
    await new Promise((res) => setTimeout(res, 250));
  }
}

describe('reports in the console', () => {
  let e2e: E2E;
  let ana: Person;
  let sofia: Person;
  let team: { id: string };
  let channelId: string;
  let supervisor: TestPage;

  before(async () => {
    e2e = await startE2E();
    ana = await e2e.createUser({ name: 'Ana Souza' });
    sofia = await e2e.createUser({ name: 'Sofia Lima', role: 'supervisor' });
    team = await e2e.createTeam('Suporte', [ana.id, sofia.id]);
    const channel = await e2e.createChannel({ name: 'Loja', defaultTeamId: team.id });
    channelId = channel.id;
    await e2e.admin.api.ok('PUT', `/api/teams/${team.id}/sla`, {
      firstResponseMinutes: 30,
      resolutionMinutes: 480,
    });
    await e2e.admin.api.ok('PUT', `/api/channels/${channel.id}/flow`, {
      enabled: true,
      greeting: null,
      outOfHoursMessage: null,
      awayMessage: null,
      autoClose: null,
      menu: {
        prompt: 'Como podemos ajudar?',
        interactive: true,
        invalidReply: 'Opção inválida.',
        maxAttempts: 3,
        timeoutMinutes: 10,
        options: [{ label: 'Suporte', teamId: team.id }],
      },
      csat: {
        question: 'De 1 a 5?',
        thanks: 'Obrigado!',
        invalidReply: 'Responda de 1 a 5.',
        windowHours: 4,
      },
    });

    // The day: three conversations captured and answered by Ana, two ended and rated 5 and 4.
    const customers = [
      ['5511987651001', 'Rita', '5'],
      ['5511987651002', 'Caio', '4'],
      ['5511987651003', 'Lia', null],
    ] as const;
    for (const [from, name, rating] of customers) {
      const chatId = await e2e.inbound(channel.id, from, 'Oi, preciso de ajuda', name);
      await ana.api.ok('POST', `/api/chats/${chatId}/capture`);
      await ana.api.ok('POST', `/api/chats/${chatId}/messages`, { text: `Olá, ${name}!` });
      if (!rating) continue;
      await ana.api.ok('POST', `/api/chats/${chatId}/close`);
      assert.equal(await e2e.inbound(channel.id, from, rating, name), chatId);
    }
  });
  after(async () => {
    await e2e?.close();
  });

  it('a supervisor reads the day in the charts’ tables, drawn, as the API reports it', async () => {
    supervisor = await e2e.newPage('sofia');
    const { page } = supervisor;
    await e2e.loginUi(page, sofia);
    const link = page.getByRole('navigation', { name: 'Menu' }).getByRole('link', { name: 'Relatórios' });
    await link.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Relatórios', level: 1 }).waitFor();
    // The query is the page's address: the API's report of the same one, once the rollups have the day.
    await page.waitForURL(/from=/);
    const search = new URL(page.url()).search;
    const api = await reportOnceCounted(
      sofia.api,
      `/api/reports/conversations${search}`,
      (r) => r.totals.closed >= 2 && r.totals.csat.count >= 2,
    );
    assert.equal(api.totals.opened, 3);
    assert.equal(api.totals.closed, 2);
    assert.deepEqual(api.totals.csat.distribution, [0, 0, 0, 1, 1]);
    await page.getByRole('button', { name: 'Atualizar' }).press('Enter');

    const conversations = page.getByTestId('table-conversations');
    await conversations.locator('tfoot td[data-col="closed"]', { hasText: /^2$/ }).waitFor();
    assert.deepEqual(await rowOf(conversations, 'total'), {
      opened: '3',
      closed: '2',
      reopened: '0',
      transfers: String(api.totals.transfers),
      attended: String(api.totals.attended),
    });
    // Every bucket's row is the API's bucket.
    assert.equal(await conversations.locator('tbody tr').count(), api.series.length);
    for (const b of api.series) {
      const row = await rowOf(conversations, b.start);
      assert.deepEqual(
        [row.opened, row.closed, row.reopened],
        [b.metrics.opened, b.metrics.closed, b.metrics.reopened].map(String),
      );
    }
    const messages = await rowOf(page.getByTestId('table-messages'), 'total');
    assert.deepEqual(messages, {
      messages_in: String(api.totals.messagesIn),
      messages_out: String(api.totals.messagesOut),
    });
    assert.ok(api.totals.messagesIn >= 5 && api.totals.messagesOut >= 3, JSON.stringify(api.totals));
    const times = await rowOf(page.getByTestId('table-times'), 'total');
    assert.match(times.first_response_avg_s!, /^\d+ (s|min)/);
    assert.match(times.first_response_p90_s!, /^\d+ (s|min)/);
    const csat = page.getByTestId('table-csat');
    assert.deepEqual(await rowOf(csat, '5'), { count: '1', share: '50%' });
    assert.deepEqual(await rowOf(csat, '4'), { count: '1', share: '50%' });
    assert.deepEqual(await rowOf(csat, 'total'), { count: '2', average: 'Média 4,5' });
    assert.equal((await rowOf(page.getByTestId('table-sla'), 'total')).sla_first_response_met, '3');

    for (const chart of ['conversations', 'times', 'messages', 'csat', 'sla'])
      assert.ok(await drawn(page, `chart-table-${chart}`), `the ${chart} chart is drawn`);
    await page
      .getByTestId('report-freshness')
      .getByText(/^Dados até \d\d:\d\d/)
      .waitFor();
    await e2e.screenshot(page, 'reports');
  });

  it('broken down by attendant, and the CSV is the export of the same query', async () => {
    const { page } = supervisor;
    await page.getByRole('combobox', { name: 'Detalhar por' }).selectOption('agent');
    await page.waitForURL(/groupBy=agent/);
    const groups = page.getByTestId('table-groups');
    const anaRow = groups.locator('tbody tr', { hasText: 'Ana Souza' });
    await anaRow.waitFor();
    assert.equal(await anaRow.locator('td[data-col="closed"]').innerText(), '2');
    assert.ok(await drawn(page, 'chart-table-groups'));

    const search = new URL(page.url()).search;
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('report-export').click(),
    ]);
    const csv = await readFile((await download.path())!, 'utf8');
    const res = await fetch(`${e2e.url}/api/reports/export${search}&report=conversations`, {
      headers: { authorization: `Bearer ${sofia.api.token}` },
    });
    assert.equal(res.status, 200);
    const lines = csv.trim().split(/\r?\n/);
    assert.deepEqual(lines, (await res.text()).trim().split(/\r?\n/));
    // The lines carry the day: the buckets (no group) add up to the totals; Ana's lines to her two ends.
    const header = lines[0]!.split(',');
    const col = (name: string) => header.indexOf(name);
    const rows = lines.slice(1).map((l) => l.split(','));
    const sum = (rs: string[][], name: string) => rs.reduce((n, r) => n + Number(r[col(name)] || 0), 0);
    const buckets = rows.filter((r) => r[col('group_id')] === '');
    assert.equal(buckets.length, 7);
    assert.deepEqual(
      ['opened', 'closed', 'csat_4', 'csat_5', 'sla_first_response_met'].map((c) => sum(buckets, c)),
      [3, 2, 1, 1, 3],
    );
    const anas = rows.filter((r) => r[col('group_id')] === ana.id);
    assert.equal(sum(anas, 'closed'), 2);
  });

  it('today by hour, the agents report, and a new conversation arriving live', async () => {
    const { page } = supervisor;
    // By keyboard: "Hoje" is today hour by hour.
    await page.getByRole('button', { name: 'Hoje' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/granularity=hour/);
    const conversations = page.getByTestId('table-conversations');
    await conversations.locator('tbody tr').nth(22).waitFor();
    const search = new URL(page.url()).search;
    const hourly = await sofia.api.ok<Report>('GET', `/api/reports/conversations${search}`);
    assert.equal(hourly.range.granularity, 'hour');
    assert.equal(await conversations.locator('tbody tr').count(), hourly.series.length);
    const busy = hourly.series.filter((b) => b.metrics.opened > 0);
    for (const b of busy)
      assert.equal((await rowOf(conversations, b.start)).opened, String(b.metrics.opened));
    assert.equal((await rowOf(conversations, 'total')).opened, String(hourly.totals.opened));

    // A start after the end: said at once, nothing asked of the server, no export.
    const to = await page.getByLabel('Até', { exact: true }).inputValue();
    await page.getByLabel('De', { exact: true }).fill(`${Number(to.slice(0, 4)) + 1}${to.slice(4)}`);
    await page.getByRole('alert').getByText('A data inicial deve ser anterior ou igual à final.').waitFor();
    assert.equal(await page.getByTestId('report-export').count(), 0);
    await page.getByRole('button', { name: 'Hoje' }).press('Enter');
    await page.getByTestId('report-export').waitFor();

    await page.getByRole('combobox', { name: 'Relatório' }).selectOption('agents');
    await page.waitForURL(/report=agents/);
    assert.equal(await page.getByRole('combobox', { name: 'Detalhar por' }).count(), 0);
    await page.getByTestId('table-groups').locator('tbody tr', { hasText: 'Ana Souza' }).waitFor();
    assert.match(
      (await page.getByTestId('report-export').getAttribute('href'))!,
      /^\/api\/reports\/export\?report=agents&/,
    );
    await page.getByRole('combobox', { name: 'Relatório' }).selectOption('conversations');

    // A fourth customer writes: the figures follow without a click (the page reads the report again
    // a few seconds after the conversation's event).
    await e2e.inbound(channelId, '5511987651004', 'Olá?', 'Noé');
    await conversations.locator('tfoot td[data-col="opened"]', { hasText: /^4$/ }).waitFor();
  });

  it('an agent has no Relatórios but her own day, on a phone too', async () => {
    const agent = await e2e.newPage('ana');
    const { page } = agent;
    await e2e.loginUi(page, ana);
    const nav = page.getByRole('navigation', { name: 'Menu' });
    await nav.getByRole('link', { name: 'Meu dia' }).click();
    assert.equal(await nav.getByRole('link', { name: 'Relatórios' }).count(), 0);
    await page.getByRole('heading', { name: 'Meu dia' }).waitFor();
    const mine = await reportOnceCounted(
      ana.api,
      `/api/reports/me?timeZone=${encodeURIComponent(TZ)}&granularity=hour`,
      (r) => r.totals.csat.count >= 2,
    );
    await page.getByRole('button', { name: 'Atualizar' }).click();
    const totals = page.getByTestId('table-my-conversations');
    await totals.locator('tfoot td[data-col="closed"]', { hasText: /^2$/ }).waitFor();
    const myTotal = await rowOf(totals, 'total');
    assert.equal(myTotal.opened, String(mine.totals.opened));
    // The conversations she captured are hers: counted as attended by her.
    assert.ok(mine.totals.attended >= 2, JSON.stringify(mine.totals));
    assert.equal(myTotal.attended, String(mine.totals.attended));
    // Hour by hour: the table has the day's 24 hours (23 or 25 on a daylight-saving change).
    assert.equal(await totals.locator('tbody tr').count(), mine.series.length);
    assert.ok(mine.series.length >= 23, String(mine.series.length));
    assert.deepEqual(await rowOf(page.getByTestId('table-my-csat'), 'total'), {
      count: '2',
      average: 'Média 4,5',
    });
    await page.getByTestId('report-totals').getByText('Abertas agora').waitFor();
    assert.ok(await drawn(page, 'chart-table-my-conversations'));
    await page.goto(`${e2e.url}/reports`);
    await page.getByText('Você não tem permissão').waitFor();

    const phone = (await e2e.newPage('ana-phone', { viewport: PHONE })).page;
    await e2e.loginUi(phone, ana);
    await phone.getByRole('button', { name: 'Menu' }).click();
    await phone.getByRole('navigation', { name: 'Menu' }).getByRole('link', { name: 'Meu dia' }).click();
    await phone.getByTestId('table-my-csat').waitFor();
    assert.ok(await drawn(phone, 'chart-table-my-csat'));
    await e2e.screenshot(phone, 'my-day-phone');
  });

  it('speaks English', async () => {
    const { page } = supervisor;
    await page.getByRole('combobox', { name: 'Idioma' }).selectOption('en');
    await page.getByRole('heading', { name: 'Reports', level: 1 }).waitFor();
    await page.getByRole('combobox', { name: 'Break down by' }).waitFor();
    await page.getByTestId('table-csat').locator('tfoot', { hasText: 'Average 4.5' }).waitFor();
    await page.getByRole('columnheader', { name: 'Opened' }).first().waitFor();
    await page.getByRole('combobox', { name: 'Language' }).selectOption('pt-BR');
    e2e.assertNoBrowserErrors();
  });
});

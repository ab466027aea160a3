import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { bearer, DAY, scriptDay, type Day } from './report-day.js';
import { AGENT0, AGENT1, ALL, metrics, MIN, TEAM0, TEAM1, type Report } from './expected.js';

// Reports (docs/adr/0089-reports-and-rollups.md) over HTTP, on a node without the worker role so that
// each step's events get their scripted instant before the consumer applies them (then applied with
// the consumer's own batches, `rollups.catchUp`). Every figure is compared with what the day's script
// makes by hand: the durations are listed fact by fact in expected.ts.

describe('reports', () => {
  let t: TestApp;
  let f: Fixture;
  let other: Fixture;
  let db: pg.Pool;
  let day: Day;
  let supervisor: string;

  before(async () => {
    t = await startTestApp({
      env: { ATENDE_ROLES: 'api,gateway', ATENDE_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' },
    });
    f = await seedAccount(t.server.services);
    other = await seedAccount(t.server.services);
    db = new pg.Pool({ connectionString: t.databaseUrl, max: 2 });
    day = await scriptDay(t, f, db);
    await t.server.services.rollups.catchUp();
    const email = `sup${Date.now().toString(36)}@example.com`;
    const created = await t.request('POST', '/api/users', {
      headers: bearer(f.adminToken),
      body: { name: 'Supervisora', email, password: 'supervisor-password', role: 'supervisor' },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const team = await t.request('PATCH', `/api/teams/${f.teams[0]!.id}`, {
      headers: bearer(f.adminToken),
      body: { members: [f.agents[0]!.id, created.json.id] },
    });
    assert.equal(team.status, 200, JSON.stringify(team.body));
    const login = await t.request('POST', '/auth/login', {
      body: { email, password: 'supervisor-password' },
    });
    supervisor = login.json.accessToken as string;
  });
  after(async () => {
    await db?.end();
    await t?.close();
  });

  const get = (path: string, token = f.adminToken) => t.request('GET', path, { headers: bearer(token) });
  const q = (extra = '') => `from=${DAY}&to=${DAY}&timeZone=America/Sao_Paulo${extra}`;

  it('the day: every figure of the totals, by team and by attendant', async () => {
    const res = await get(`/api/reports/conversations?${q('&groupBy=team')}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.json.range, {
      from: DAY,
      to: DAY,
      timeZone: 'America/Sao_Paulo',
      granularity: 'day',
    });
    assert.deepEqual(res.json.totals, metrics(ALL));
    // The totals' durations, written out once by hand.
    assert.deepEqual(res.json.totals.firstResponse, {
      count: 5,
      averageSeconds: 1476,
      p50Seconds: 1500,
      p90Seconds: 3000,
      p95Seconds: 3000,
    });
    assert.deepEqual(res.json.totals.wait, {
      count: 6,
      averageSeconds: 830,
      p50Seconds: 300,
      p90Seconds: 2700,
      p95Seconds: 2700,
    });
    assert.equal(res.json.totals.sla.compliance, 0.857);
    // One local day: one bucket from local midnight (03:00Z), equal to the totals.
    assert.deepEqual(res.json.series, [{ start: `${DAY}T03:00:00.000Z`, metrics: metrics(ALL) }]);
    const byTeam = Object.fromEntries(
      (res.json.groups as { id: string; name: string; metrics: unknown }[]).map((g) => [g.id, g]),
    );
    assert.deepEqual(Object.keys(byTeam).sort(), [f.teams[0]!.id, f.teams[1]!.id].sort());
    assert.equal(byTeam[f.teams[0]!.id]?.name, 'Equipe 0');
    assert.deepEqual(byTeam[f.teams[0]!.id]?.metrics, metrics(TEAM0));
    assert.deepEqual(byTeam[f.teams[1]!.id]?.metrics, metrics(TEAM1));

    const agents = await get(`/api/reports/agents?${q()}`);
    assert.equal(agents.status, 200, JSON.stringify(agents.body));
    assert.deepEqual(agents.json.totals, metrics(ALL));
    const byAgent = Object.fromEntries(
      (agents.json.groups as { id: string; metrics: unknown }[]).map((g) => [g.id, g.metrics]),
    );
    assert.deepEqual(Object.keys(byAgent).sort(), [f.agents[0]!.id, f.agents[1]!.id].sort());
    assert.deepEqual(byAgent[f.agents[0]!.id], metrics(AGENT0));
    assert.deepEqual(byAgent[f.agents[1]!.id], metrics(AGENT1));
  });

  it("the day zone's day rows and the hour rows give the same figures", async () => {
    const days = await get(`/api/reports/conversations?${q('&groupBy=agent')}`);
    const hours = await get(
      `/api/reports/conversations?from=${DAY}&to=${DAY}&timeZone=Etc/GMT%2B3&groupBy=agent`,
    );
    assert.equal(hours.status, 200, JSON.stringify(hours.body));
    const { range: _r1, freshness: _f1, ...a } = days.json;
    const { range: _r2, freshness: _f2, ...b } = hours.json;
    assert.deepEqual(b, a);
  });

  it('by hour, by channel and by label; filters', async () => {
    const hourly = await get(`/api/reports/conversations?${q('&granularity=hour')}`);
    assert.equal(hourly.status, 200, JSON.stringify(hourly.body));
    const series = hourly.json.series as { start: string; metrics: ReturnType<typeof metrics> }[];
    assert.equal(series.length, 24);
    assert.equal(series[0]!.start, `${DAY}T03:00:00.000Z`);
    const hour = (h: string) => series.find((b) => b.start === `${DAY}T${h}:00:00.000Z`)!.metrics;
    // 12:00Z: X opened, captured (wait 5 min), answered (10 min), the customer again, labelled, closed.
    assert.deepEqual(
      hour('12'),
      metrics({
        opened: 1,
        closed: 1,
        attended: 1,
        messagesIn: 2,
        messagesOut: 1,
        fr: [10 * MIN],
        wait: [5 * MIN],
        handling: [35 * MIN],
        resolution: [40 * MIN],
        sla: [1, 0, 1, 0],
      }),
    );
    // 13:00Z: X reopened and closed again.
    assert.deepEqual(
      hour('13'),
      metrics({
        closed: 1,
        reopened: 1,
        attended: 1,
        handling: [30 * MIN],
        resolution: [30 * MIN],
        sla: [0, 0, 1, 0],
      }),
    );
    assert.deepEqual(hour('05'), metrics({}));
    const summed = series.reduce((n, b) => n + b.metrics.messagesIn, 0);
    assert.equal(summed, 9);

    const byChannel = await get(`/api/reports/conversations?${q('&groupBy=channel')}`);
    const channels = Object.fromEntries(
      (byChannel.json.groups as { id: string; metrics: { opened: number } }[]).map((g) => [
        g.id,
        g.metrics.opened,
      ]),
    );
    assert.deepEqual(channels, { [f.channels[0]!.id]: 3, [f.channels[1]!.id]: 1, [day.channel2]: 1 });

    // X carried the label from 12:30Z: its two closes, the reopening and their durations.
    const labelled = await get(`/api/reports/conversations?${q(`&labelId=${day.labelId}`)}`);
    assert.equal(labelled.status, 200, JSON.stringify(labelled.body));
    assert.deepEqual(
      labelled.json.totals,
      metrics({
        closed: 2,
        reopened: 1,
        attended: 1,
        handling: [35 * MIN, 30 * MIN],
        resolution: [40 * MIN, 30 * MIN],
        sla: [0, 0, 2, 0],
      }),
    );
    const byLabel = await get(`/api/reports/conversations?${q('&groupBy=label')}`);
    assert.deepEqual(
      (byLabel.json.groups as { id: string; name: string }[]).map((g) => [g.id, g.name]),
      [[day.labelId, 'VIP']],
    );

    const team1Agent1 = await get(
      `/api/reports/conversations?${q(`&teamId=${f.teams[1]!.id}&agentId=${f.agents[1]!.id}&channelId=${f.channels[1]!.id}`)}`,
    );
    assert.equal(team1Agent1.status, 200, JSON.stringify(team1Agent1.body));
    assert.deepEqual(
      team1Agent1.json.totals,
      metrics({
        closed: 1,
        attended: 1,
        messagesIn: 1,
        messagesOut: 3,
        fr: [8 * MIN],
        wait: [3 * MIN],
        handling: [15 * MIN],
        resolution: [20 * MIN],
        csat: [0, 0, 0, 0, 1],
      }),
    );
    // Another day of the range is empty; a week's range has seven buckets.
    const week = await get(
      `/api/reports/conversations?from=2026-03-01&to=2026-03-07&timeZone=America/Sao_Paulo`,
    );
    const weekly = week.json as unknown as Report;
    assert.equal(weekly.series.length, 7);
    assert.deepEqual(weekly.series[0]?.metrics, metrics({}));
    assert.deepEqual(weekly.totals, metrics(ALL));
    assert.equal(weekly.freshness.catchingUp, false);
  });

  it("a supervisor sees their teams' figures; agents only their own; another account's ids are 404", async () => {
    const sup = await get(`/api/reports/conversations?${q()}`, supervisor);
    assert.equal(sup.status, 200, JSON.stringify(sup.body));
    assert.deepEqual(sup.json.totals, metrics(TEAM0));
    assert.equal(
      (await get(`/api/reports/conversations?${q(`&teamId=${f.teams[1]!.id}`)}`, supervisor)).status,
      403,
    );
    const supAgents = await get(`/api/reports/agents?${q()}`, supervisor);
    assert.deepEqual(
      (supAgents.json.groups as { id: string }[]).map((g) => g.id),
      [f.agents[0]!.id],
    );
    for (const path of ['conversations', 'agents']) {
      const res = await get(`/api/reports/${path}?${q()}`, f.agents[0]!.token);
      assert.equal(res.status, 403, JSON.stringify(res.body));
      assert.equal(res.json.statusCode, 403);
    }
    assert.equal(
      (await get(`/api/reports/export?report=conversations&${q()}`, f.agents[0]!.token)).status,
      403,
    );
    for (const filter of [
      `teamId=${other.teams[0]!.id}`,
      `channelId=${other.channels[0]!.id}`,
      `agentId=${other.agents[0]!.id}`,
    ]) {
      const res = await get(`/api/reports/conversations?${q(`&${filter}`)}`);
      assert.equal(res.status, 404, `${filter}: ${JSON.stringify(res.body)}`);
      assert.equal(res.json.statusCode, 404);
    }
    // The other account's admin sees none of this account's figures.
    const theirs = await get(`/api/reports/conversations?${q()}`, other.adminToken);
    assert.deepEqual(theirs.json.totals, metrics({}));
  });

  it('bad inputs answer 400 with the error body', async () => {
    const cases = [
      'from=2026-02-30&to=2026-03-01',
      'from=2026-03-02&to=2026-03-01',
      'from=2025-01-01&to=2026-01-02',
      'from=2026-01-01&to=2026-02-01&granularity=hour',
      'from=2026-03-01&to=2026-03-01&timeZone=Mars/Olympus',
      'from=2026-03-01&to=2026-03-01&groupBy=planet',
      'from=march&to=2026-03-01',
      'to=2026-03-01',
      'from=2026-03-01&to=2026-03-01&teamId=nope',
    ];
    for (const c of cases) {
      const res = await get(`/api/reports/conversations?${c}`);
      assert.equal(res.status, 400, `${c}: ${JSON.stringify(res.body)}`);
      assert.equal(res.json.statusCode, 400);
      assert.equal(res.json.error, 'Bad Request');
    }
    const me = await get('/api/reports/me?timeZone=Nowhere/City', f.agents[0]!.token);
    assert.equal(me.status, 400, JSON.stringify(me.body));
    // 366 days and 31 hourly days are allowed.
    assert.equal((await get('/api/reports/conversations?from=2025-03-02&to=2026-03-02')).status, 200);
    assert.equal(
      (await get(`/api/reports/conversations?from=2026-03-01&to=2026-03-31&granularity=hour`)).status,
      200,
    );
  });

  it('CSV export: the series and the groups, the same figures', async () => {
    const res = await get(`/api/reports/export?report=conversations&${q('&groupBy=team')}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.match(String(res.headers.get('content-type')), /^text\/csv/);
    const [header, ...lines] = String(res.body)
      .trimEnd()
      .split('\r\n')
      .map((l) => l.split(','));
    assert.deepEqual(header!.slice(0, 10), [
      'bucket_start',
      'group_id',
      'group_name',
      'opened',
      'closed',
      'reopened',
      'transfers',
      'attended',
      'messages_in',
      'messages_out',
    ]);
    const col = (row: string[], name: string) => row[header!.indexOf(name)];
    assert.equal(lines.length, 3);
    const [totals, ...groups] = lines;
    assert.deepEqual(totals!.slice(0, 10), [
      `${DAY}T03:00:00.000Z`,
      '',
      '',
      '5',
      '4',
      '1',
      '1',
      '7',
      '9',
      '8',
    ]);
    assert.equal(col(totals!, 'first_response_avg_s'), '1476');
    assert.equal(col(totals!, 'first_response_p90_s'), '3000');
    assert.equal(col(totals!, 'wait_p50_s'), '300');
    assert.equal(col(totals!, 'csat_5'), '1');
    assert.equal(col(totals!, 'sla_compliance'), '0.857');
    const team1 = groups.find((g) => g[1] === f.teams[1]!.id)!;
    assert.deepEqual(team1.slice(2, 10), ['Equipe 1', '1', '2', '0', '0', '2', '4', '5']);
    assert.equal(col(team1, 'csat_avg'), '5');
    const agents = await get(`/api/reports/export?report=agents&${q()}`);
    assert.equal(String(agents.body).trimEnd().split('\r\n').length, 1 + 1 + 2);
  });

  it("the caller's own figures today, and their open conversations now", async () => {
    const s = t.server.services;
    const chatId = (
      await s.inbound.receiveSandbox(f.admin, f.channels[0]!.id, { from: '5511900000099', text: 'Hoje' })
    ).chatId;
    const a0 = bearer(f.agents[0]!.token);
    assert.equal((await t.request('POST', `/api/chats/${chatId}/capture`, { headers: a0 })).status, 200);
    const sent = await t.request('POST', `/api/chats/${chatId}/messages`, {
      headers: a0,
      body: { text: 'Oi' },
    });
    assert.equal(sent.status, 201);
    await s.rollups.catchUp();
    const me = await get('/api/reports/me?timeZone=America/Sao_Paulo', f.agents[0]!.token);
    assert.equal(me.status, 200, JSON.stringify(me.body));
    // Z, B and this one are open with agent 0.
    assert.equal(me.json.openNow, 3);
    const m = (me.json as unknown as Report).totals;
    assert.deepEqual(
      [m.opened, m.messagesIn, m.messagesOut, m.wait.count, m.firstResponse.count],
      [0, 0, 1, 1, 1],
    );
    const other1 = await get('/api/reports/me', f.agents[1]!.token);
    assert.equal(other1.json.openNow, 0);
    const theirs = other1.json as unknown as Report;
    assert.equal(theirs.totals.messagesOut, 0);
    assert.equal(theirs.range.timeZone, 'America/Sao_Paulo');
  });
});

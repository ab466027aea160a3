import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { connect, type GatewayClient } from '../helpers/gateway.js';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

// A team's business hours over HTTP: any user reads them with whether the team is open now, admins set
// them (validated, 400 with what is wrong), another account's team is 404, and a change reaches the
// account's gateway connections and its webhooks.

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const allDay = [{ start: '00:00', end: '24:00' }];
const everyDay = (intervals: { start: string; end: string }[]) => Array.from({ length: 7 }, () => intervals);
const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const DAY = 86_400_000;

interface Hours {
  teamId: string;
  configured: boolean;
  timeZone: string;
  weekly: { start: string; end: string }[][] | null;
  holidays: string[];
  openNow: boolean;
  nextChange: string | null;
  updatedAt: string | null;
}

describe('team business hours', () => {
  let t: TestApp;
  let f: Fixture;
  let other: Fixture;
  let db: pg.Pool;
  let receiver: WebhookReceiver;
  const clients: GatewayClient[] = [];

  before(async () => {
    t = await startTestApp({ env: { ATENDE_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
    f = await seedAccount(t.server.services);
    other = await seedAccount(t.server.services);
    db = new pg.Pool({ connectionString: t.databaseUrl, max: 2 });
    receiver = await startReceiver();
  });
  after(async () => {
    for (const c of clients) c.close();
    await receiver?.close();
    await db?.end();
    await t?.close();
  });

  const path = (teamId: string) => `/api/teams/${teamId}/business-hours`;
  const put = (token: string, teamId: string, body: unknown, headers: Record<string, string> = {}) =>
    t.request('PUT', path(teamId), { headers: { ...bearer(token), ...headers }, body });

  it('a team without hours is always open', async () => {
    const res = await t.request('GET', path(f.teams[1]!.id), { headers: bearer(f.agents[1]!.token) });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.json, {
      teamId: f.teams[1]!.id,
      configured: false,
      timeZone: 'America/Sao_Paulo',
      weekly: null,
      holidays: [],
      openNow: true,
      nextChange: null,
      updatedAt: null,
    });
  });

  it('an admin sets the hours; any user reads them back with openNow and nextChange; the change is an event', async () => {
    const teamId = f.teams[0]!.id;
    const hook = await t.request('POST', '/api/webhooks', {
      headers: bearer(f.adminToken),
      body: { url: receiver.url, events: ['team.business_hours'] },
    });
    assert.equal(hook.status, 201, JSON.stringify(hook.body));
    // An agent of another team hears it: the event goes to the whole account.
    const listener = await connect(t.gatewayUrl!, { token: f.agents[1]!.token });
    clients.push(listener);

    const weekly = [
      [],
      [
        { start: '08:00', end: '12:00' },
        { start: '13:00', end: '18:00' },
      ],
      [{ start: '08:00', end: '18:00' }],
      [{ start: '08:00', end: '18:00' }],
      [{ start: '08:00', end: '18:00' }],
      [{ start: '08:00', end: '17:00' }],
      [],
    ];
    const set = await put(f.adminToken, teamId, {
      timeZone: 'america/new_york',
      weekly,
      holidays: ['2026-12-25', '2026-11-26'],
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    const saved = set.json as unknown as Hours;
    assert.equal(saved.configured, true);
    assert.equal(saved.timeZone, 'America/New_York', 'stored in its canonical spelling');
    assert.deepEqual(saved.weekly, weekly);
    assert.deepEqual(saved.holidays, ['2026-11-26', '2026-12-25'], 'in date order');
    assert.equal(typeof saved.openNow, 'boolean');
    assert.ok(saved.nextChange !== null && Date.parse(saved.nextChange) > Date.now() - DAY);

    const read = await t.request('GET', path(teamId), { headers: bearer(f.agents[0]!.token) });
    assert.equal(read.status, 200);
    const got = read.json as unknown as Hours;
    assert.deepEqual({ ...got, openNow: saved.openNow, nextChange: saved.nextChange }, saved);

    const live = await listener.next('team.business_hours');
    assert.deepEqual((live.data as { businessHours: Hours }).businessHours, saved);
    const delivered = await receiver.next((r) => r.headers['atende-event'] === 'team.business_hours');
    assert.deepEqual(JSON.parse(delivered.body), live);

    const stored = await db.query(
      'SELECT time_zone, holidays, updated_by FROM team_business_hours WHERE team_id = $1',
      [teamId],
    );
    assert.deepEqual(stored.rows, [
      { time_zone: 'America/New_York', holidays: ['2026-11-26', '2026-12-25'], updated_by: f.admin.userId },
    ]);
  });

  it('openNow and nextChange follow the hours: open all week, closed all week, a holiday today', async () => {
    const teamId = f.teams[1]!.id;
    const open = await put(f.adminToken, teamId, { timeZone: 'UTC', weekly: everyDay(allDay) });
    assert.equal(open.status, 200, JSON.stringify(open.body));
    assert.equal(open.json.openNow, true);
    assert.equal(open.json.nextChange, null);
    assert.equal(open.json.timeZone, 'UTC');

    const closed = await put(f.adminToken, teamId, { timeZone: 'UTC', weekly: everyDay([]) });
    assert.equal(closed.json.openNow, false);
    assert.equal(closed.json.nextChange, null);

    // Yesterday, today and tomorrow (UTC) are holidays: whenever the request lands, it is closed
    // until the midnight after tomorrow.
    const today = Math.floor(Date.now() / DAY) * DAY;
    const holidays = [today - DAY, today, today + DAY].map(dateOf);
    const holiday = await put(f.adminToken, teamId, { timeZone: 'UTC', weekly: everyDay(allDay), holidays });
    assert.equal(holiday.status, 200, JSON.stringify(holiday.body));
    assert.equal(holiday.json.openNow, false);
    assert.equal(holiday.json.nextChange, new Date(today + 2 * DAY).toISOString());

    // No weekly hours: open except on holidays; the default time zone.
    const always = await put(f.adminToken, teamId, { weekly: null });
    assert.deepEqual(
      { ...always.json, updatedAt: null },
      {
        teamId,
        configured: true,
        timeZone: 'America/Sao_Paulo',
        weekly: null,
        holidays: [],
        openNow: true,
        nextChange: null,
        updatedAt: null,
      },
    );
  });

  it('bad input is 400 with what is wrong, in the asked language', async () => {
    const teamId = f.teams[0]!.id;
    const week = (day: { start: string; end: string }[]) => [[], day, [], [], [], [], []];
    const cases: [string, unknown, string[]][] = [
      [
        'unknown time zone',
        { timeZone: 'Mars/Olympus', weekly: null },
        ['timeZone Mars/Olympus is not a known IANA time zone'],
      ],
      [
        'bad HH:MM',
        { weekly: week([{ start: '9:00', end: '18:00' }]) },
        ['weekly.1.0.start must be a time HH:MM'],
      ],
      [
        'hour 24:30',
        { weekly: week([{ start: '08:00', end: '24:30' }]) },
        ['weekly.1.0.end must be a time HH:MM'],
      ],
      [
        'start after end',
        { weekly: week([{ start: '18:00', end: '09:00' }]) },
        ['weekly.1.0 must start before it ends'],
      ],
      [
        'overlapping intervals',
        {
          weekly: week([
            { start: '08:00', end: '12:00' },
            { start: '11:30', end: '14:00' },
          ]),
        },
        ['weekly.1.0 and weekly.1.1 overlap'],
      ],
      [
        'too many intervals',
        { weekly: week(['08', '10', '12', '14', '16'].map((h) => ({ start: `${h}:00`, end: `${h}:30` }))) },
        ['weekly.1 must contain no more than 4 elements'],
      ],
      ['six days', { weekly: [[], [], [], [], [], []] }, ['weekly must contain at least 7 elements']],
      [
        'too many holidays',
        {
          weekly: null,
          holidays: Array.from({ length: 101 }, (_, i) => dateOf(Date.UTC(2027, 0, 1) + i * DAY)),
        },
        ['holidays must contain no more than 100 elements'],
      ],
      ['bad date', { weekly: null, holidays: ['25/12/2026'] }, ['holidays.0 must be a date YYYY-MM-DD']],
      [
        'no such date',
        { weekly: null, holidays: ['2026-02-30'] },
        ['holidays.0 2026-02-30 is not a date YYYY-MM-DD'],
      ],
      ['weekly missing', { timeZone: 'UTC' }, ['weekly should not be empty']],
    ];
    for (const [what, body, message] of cases) {
      const res = await put(f.adminToken, teamId, body);
      assert.equal(res.status, 400, what);
      assert.deepEqual(res.json, { statusCode: 400, error: 'Bad Request', message }, what);
    }
    const pt = await put(
      f.adminToken,
      teamId,
      { timeZone: 'Mars/Olympus', weekly: null },
      { 'accept-language': 'pt-BR' },
    );
    assert.deepEqual(pt.json.message, ['timeZone Mars/Olympus não é um fuso horário IANA conhecido']);
    // Nothing was stored by the refused requests (the team's hours are the ones set before).
    const read = await t.request('GET', path(teamId), { headers: bearer(f.adminToken) });
    assert.equal(read.json.timeZone, 'America/New_York');
  });

  it('agents may read but not set (403); another account’s team is 404; a bad id is 400', async () => {
    const teamId = f.teams[0]!.id;
    const denied = await put(f.agents[0]!.token, teamId, { weekly: null });
    assert.equal(denied.status, 403);
    const theirs = other.teams[0]!.id;
    const get = await t.request('GET', path(theirs), { headers: bearer(f.adminToken) });
    assert.equal(get.status, 404);
    const set = await put(f.adminToken, theirs, { weekly: null });
    assert.equal(set.status, 404);
    assert.deepEqual(set.json, { statusCode: 404, error: 'Not Found', message: 'Not Found' });
    const stored = await db.query('SELECT count(*)::int AS n FROM team_business_hours WHERE team_id = $1', [
      theirs,
    ]);
    assert.equal(stored.rows[0].n, 0);
    const bad = await t.request('GET', path('not-an-id'), { headers: bearer(f.adminToken) });
    assert.equal(bad.status, 400);
  });

  it('the event is in the published catalogue, and what was sent matches its schema', async () => {
    const res = await t.request('GET', '/docs/events.json');
    assert.equal(res.status, 200);
    const doc = res.json as {
      components: { messages: Record<string, { name: string; payload: Record<string, unknown> }> };
    };
    const message = Object.values(doc.components.messages).find((m) => m.name === 'team.business_hours');
    assert.ok(message, 'team.business_hours is in the AsyncAPI document');
    const ajv = new Ajv({ strict: false, allErrors: true });
    (addFormatsModule as unknown as (a: Ajv) => void)(ajv);
    const validate = ajv.compile(message.payload);
    const sent = clients.flatMap((c) => c.events()).filter((e) => e.event === 'team.business_hours');
    assert.ok(sent.length > 0);
    for (const e of sent) assert.ok(validate(e), JSON.stringify(validate.errors));
  });
});

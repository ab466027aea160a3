import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { assertWithout, bearer, linesOf, ok, shapes } from '../helpers/audit.js';

// Admin settings each leave their line in the audit log, written with the change: a team's business
// hours, assignment and SLA targets, labels, custom attribute definitions and the account's and teams'
// canned responses (a user's personal ones are theirs, not an admin action).

describe('audit log: settings', () => {
  let t: TestApp;
  let f: Fixture;
  const admin = () => bearer(f.adminToken);
  const userLine = (action: string, type: string, id: string | null) => [
    action,
    'user',
    f.admin.userId,
    type,
    id,
  ];

  before(async () => {
    t = await startTestApp();
    f = await seedAccount(t.server.services);
  });
  after(async () => t?.close());

  it("records a team's business hours, assignment and SLA targets", async () => {
    const teamId = f.teams[0]!.id;
    const day = [{ start: '09:00', end: '18:00' }];
    const hours = await linesOf(t, f, async () =>
      ok(
        await t.request('PUT', `/api/teams/${teamId}/business-hours`, {
          headers: admin(),
          body: {
            timeZone: 'America/Sao_Paulo',
            weekly: [[], day, day, day, day, day, []],
            holidays: ['2026-12-25'],
          },
        }),
      ),
    );
    assert.deepEqual(shapes(hours), [userLine('team.set_hours', 'team', teamId)]);
    assert.deepEqual(hours[0]!.details, {
      timeZone: 'America/Sao_Paulo',
      openDays: [1, 2, 3, 4, 5],
      holidays: 1,
    });

    const assignment = await linesOf(t, f, async () =>
      ok(
        await t.request('PUT', `/api/teams/${teamId}/assignment`, {
          headers: admin(),
          body: { mode: 'capacity', maxOpen: 5, overrides: [{ userId: f.agents[0]!.id, maxOpen: 2 }] },
        }),
      ),
    );
    assert.deepEqual(shapes(assignment), [userLine('team.set_assignment', 'team', teamId)]);
    assert.deepEqual(assignment[0]!.details, {
      mode: 'capacity',
      maxOpen: 5,
      releaseOnOffline: true,
      overrides: 1,
    });

    const sla = await linesOf(t, f, async () =>
      ok(
        await t.request('PUT', `/api/teams/${teamId}/sla`, {
          headers: admin(),
          body: { firstResponseMinutes: 30, resolutionMinutes: null },
        }),
      ),
    );
    assert.deepEqual(shapes(sla), [userLine('team.set_sla', 'team', teamId)]);
    assert.deepEqual(sla[0]!.details, { firstResponseMinutes: 30, resolutionMinutes: null });
  });

  it('a refused setting writes no line, and an agent may neither change one nor read the log', async () => {
    const teamId = f.teams[0]!.id;
    const lines = await linesOf(t, f, async () => {
      const refused = await t.request('PUT', `/api/teams/${teamId}/assignment`, {
        headers: admin(),
        body: { mode: 'capacity' },
      });
      assert.equal(refused.status, 400);
      const forbidden = await t.request('PUT', `/api/teams/${teamId}/sla`, {
        headers: bearer(f.agents[0]!.token),
        body: { firstResponseMinutes: 1 },
      });
      assert.equal(forbidden.status, 403);
    });
    assert.deepEqual(lines, []);
    const read = await t.request('GET', '/api/audit-log', { headers: bearer(f.agents[0]!.token) });
    assert.equal(read.status, 403);
  });

  it('records a label created, changed and deleted', async () => {
    let id = '';
    const lines = await linesOf(t, f, async () => {
      const res = await t.request('POST', '/api/labels', {
        headers: admin(),
        body: { name: 'VIP', color: '#AA0000' },
      });
      ok(res, 201);
      id = res.json.id as string;
      ok(await t.request('PATCH', `/api/labels/${id}`, { headers: admin(), body: { name: 'Cliente VIP' } }));
      ok(await t.request('DELETE', `/api/labels/${id}`, { headers: admin() }), 204);
    });
    assert.deepEqual(shapes(lines), [
      userLine('label.create', 'label', id),
      userLine('label.update', 'label', id),
      userLine('label.delete', 'label', id),
    ]);
    assert.deepEqual(
      lines.map((l) => l.details),
      [
        { name: 'VIP', color: '#aa0000' },
        { changed: ['name'], name: 'Cliente VIP' },
        { name: 'Cliente VIP' },
      ],
    );
  });

  it('records a custom attribute definition created, changed and deleted', async () => {
    let id = '';
    const lines = await linesOf(t, f, async () => {
      const res = await t.request('POST', '/api/customer-attributes', {
        headers: admin(),
        body: { key: 'plano', label: 'Plano', type: 'list', options: ['Básico', 'Pro'] },
      });
      ok(res, 201);
      id = res.json.id as string;
      ok(
        await t.request('PATCH', `/api/customer-attributes/${id}`, {
          headers: admin(),
          body: { options: ['Básico', 'Pro', 'Empresa'] },
        }),
      );
      ok(await t.request('DELETE', `/api/customer-attributes/${id}`, { headers: admin() }), 204);
    });
    assert.deepEqual(shapes(lines), [
      userLine('attribute.create', 'attribute', id),
      userLine('attribute.update', 'attribute', id),
      userLine('attribute.delete', 'attribute', id),
    ]);
    assert.deepEqual(
      lines.map((l) => l.details),
      [
        { attribute: 'plano', label: 'Plano', type: 'list' },
        { attribute: 'plano', changed: ['options'] },
        { attribute: 'plano' },
      ],
    );
  });

  it("records the account's and a team's canned responses, not a user's personal ones", async () => {
    const TEXT = 'Olá {{contact.name}}, texto longo da resposta pronta';
    let accountId = '';
    let teamResponseId = '';
    const lines = await linesOf(t, f, async () => {
      const res = await t.request('POST', '/api/canned-responses', {
        headers: admin(),
        body: { scope: 'account', shortcut: 'ola', content: TEXT },
      });
      ok(res, 201);
      accountId = res.json.id as string;
      ok(
        await t.request('PATCH', `/api/canned-responses/${accountId}`, {
          headers: admin(),
          body: { content: `${TEXT} (revisto)` },
        }),
      );
      const team = await t.request('POST', '/api/canned-responses', {
        headers: admin(),
        body: { scope: 'team', teamId: f.teams[1]!.id, shortcut: 'suporte', content: 'Suporte aqui' },
      });
      ok(team, 201);
      teamResponseId = team.json.id as string;
      ok(await t.request('DELETE', `/api/canned-responses/${teamResponseId}`, { headers: admin() }), 204);
      // An agent's own response: theirs to manage, not an admin action.
      ok(
        await t.request('POST', '/api/canned-responses', {
          headers: bearer(f.agents[0]!.token),
          body: { scope: 'personal', shortcut: 'meu', content: 'Minha resposta' },
        }),
        201,
      );
    });
    assert.deepEqual(shapes(lines), [
      userLine('canned.create', 'canned_response', accountId),
      userLine('canned.update', 'canned_response', accountId),
      userLine('canned.create', 'canned_response', teamResponseId),
      userLine('canned.delete', 'canned_response', teamResponseId),
    ]);
    assert.deepEqual(lines[1]!.details, { scope: 'account', changed: ['content'], shortcut: 'ola' });
    assert.deepEqual(lines[2]!.details, { scope: 'team', teamId: f.teams[1]!.id, shortcut: 'suporte' });
    assertWithout(lines, [TEXT, 'Minha resposta']);

    // Its file set and removed: the file's type, not its name or bytes.
    const PNG =
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
    const file = await linesOf(t, f, async () => {
      ok(
        await t.request('PUT', `/api/canned-responses/${accountId}/attachment`, {
          headers: admin(),
          body: { mimetype: 'image/png', filename: 'tabela-de-precos.png', base64: PNG },
        }),
      );
      ok(await t.request('DELETE', `/api/canned-responses/${accountId}/attachment`, { headers: admin() }));
    });
    assert.deepEqual(shapes(file), [
      userLine('canned.set_attachment', 'canned_response', accountId),
      userLine('canned.remove_attachment', 'canned_response', accountId),
    ]);
    assert.deepEqual(file[0]!.details, { scope: 'account', shortcut: 'ola', mimetype: 'image/png' });
    assertWithout(file, ['tabela-de-precos', PNG]);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { assertWithout, auditMark, auditSince, bearer, linesOf, ok, shapes } from '../helpers/audit.js';

// Admin actions on integrations and people's data each leave their line in the audit log, written with
// the change: webhooks, bots, a channel's flow and bot routing, a contact's export, erasure and merge,
// and the retention. No secret, no token in a URL, and nothing of a person but their id.

describe('audit log: integrations and data protection', () => {
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
    // Webhook and bot endpoints on this machine: the egress check would refuse a private address.
    t = await startTestApp({ env: { ATENDE_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
    f = await seedAccount(t.server.services);
  });
  after(async () => t?.close());

  it('records a webhook created, changed, its secret rotated and deleted, never the secret or the URL path', async () => {
    const PATH_TOKEN = 'tok_path_8c1d2f';
    let created!: { id: string; secret: string };
    const createLines = await linesOf(t, f, async () => {
      const res = await t.request('POST', '/api/webhooks', {
        headers: admin(),
        body: { url: `http://127.0.0.1:9/hooks/${PATH_TOKEN}`, events: ['chat.new'] },
      });
      ok(res, 201);
      created = res.body as { id: string; secret: string };
    });
    assert.deepEqual(shapes(createLines), [userLine('webhook.create', 'webhook', created.id)]);
    assert.deepEqual(createLines[0]!.details, { urlHost: '127.0.0.1:9', events: ['chat.new'] });

    let rotated = '';
    const updateLines = await linesOf(t, f, async () => {
      const res = await t.request('PATCH', `/api/webhooks/${created.id}`, {
        headers: admin(),
        body: { enabled: false, rotateSecret: true },
      });
      ok(res);
      rotated = (res.body as { secret: string }).secret;
    });
    assert.deepEqual(shapes(updateLines), [
      userLine('webhook.rotate_secret', 'webhook', created.id),
      userLine('webhook.update', 'webhook', created.id),
    ]);
    assert.deepEqual(updateLines[0]!.details, { generated: true });
    assert.deepEqual(updateLines[1]!.details, { changed: ['enabled'], enabled: false });

    const GIVEN = 'whsec_given_by_the_admin_0123456789';
    const givenLines = await linesOf(t, f, async () => {
      ok(
        await t.request('PATCH', `/api/webhooks/${created.id}`, {
          headers: admin(),
          body: { secret: GIVEN, url: `http://127.0.0.1:9/other/${PATH_TOKEN}` },
        }),
      );
    });
    assert.deepEqual(
      givenLines.map((l) => [l.action, l.details]),
      [
        ['webhook.rotate_secret', { generated: false }],
        ['webhook.update', { changed: ['url'], urlHost: '127.0.0.1:9' }],
      ],
    );

    // A delivery sent again: an event the webhook subscribes to, then its delivery replayed.
    ok(
      await t.request('PATCH', `/api/webhooks/${created.id}`, { headers: admin(), body: { enabled: true } }),
    );
    await f.inbound(0, `5511955${String(Date.now() % 1e6).padStart(6, '0')}`, 'oi');
    let deliveryId = '';
    for (let i = 0; i < 50 && deliveryId === ''; i++) {
      const list = await t.request('GET', `/api/webhooks/${created.id}/deliveries`, { headers: admin() });
      ok(list);
      deliveryId = (list.json.items as { id: string }[])[0]?.id ?? '';
      if (deliveryId === '') await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(deliveryId, 'a delivery of chat.new');
    const replayLines = await linesOf(t, f, async () =>
      ok(
        await t.request('POST', `/api/webhooks/${created.id}/deliveries/${deliveryId}/replay`, {
          headers: admin(),
        }),
        202,
      ),
    );
    assert.deepEqual(shapes(replayLines), [userLine('webhook.replay', 'webhook', created.id)]);
    assert.deepEqual(replayLines[0]!.details, { deliveryId });

    const deleteLines = await linesOf(t, f, async () =>
      ok(await t.request('DELETE', `/api/webhooks/${created.id}`, { headers: admin() }), 204),
    );
    assert.deepEqual(shapes(deleteLines), [userLine('webhook.delete', 'webhook', created.id)]);
    assertWithout(
      [...createLines, ...updateLines, ...givenLines, ...deleteLines],
      [created.secret, rotated, GIVEN, PATH_TOKEN],
    );
    assert.equal(createLines[0]!.userAgent, 'audit-test/1.0');
  });

  it('a refused webhook change writes no line', async () => {
    const lines = await linesOf(t, f, async () => {
      const res = await t.request('PATCH', '/api/webhooks/000000000000000000000000', {
        headers: admin(),
        body: { enabled: true },
      });
      assert.equal(res.status, 404);
    });
    assert.deepEqual(lines, []);
  });

  it("records a bot's life (created, changed, secret rotated, deleted) without its key or secret", async () => {
    let bot!: { id: string; apiKey: string; secret: string; apiKeyId: string };
    const createLines = await linesOf(t, f, async () => {
      const res = await t.request('POST', '/api/bots', {
        headers: admin(),
        body: { name: 'Robô de triagem', url: 'http://127.0.0.1:9/bot/tok_bot_path' },
      });
      ok(res, 201);
      bot = res.body as typeof bot;
    });
    assert.deepEqual(shapes(createLines), [userLine('bot.create', 'bot', bot.id)]);
    assert.equal(createLines[0]!.details.name, 'Robô de triagem');
    assert.equal(createLines[0]!.details.urlHost, '127.0.0.1:9');
    assert.equal(createLines[0]!.details.keyId, bot.apiKeyId);

    let secret = '';
    const updateLines = await linesOf(t, f, async () => {
      const res = await t.request('PATCH', `/api/bots/${bot.id}`, {
        headers: admin(),
        body: { replyTimeoutSeconds: 120, rotateSecret: true },
      });
      ok(res);
      secret = (res.body as { secret: string }).secret;
    });
    assert.deepEqual(shapes(updateLines), [
      userLine('bot.rotate_secret', 'bot', bot.id),
      userLine('bot.update', 'bot', bot.id),
    ]);
    assert.deepEqual(updateLines[1]!.details, { changed: ['replyTimeoutSeconds'], replyTimeoutSeconds: 120 });

    const routeLines = await linesOf(t, f, async () =>
      ok(
        await t.request('PUT', `/api/channels/${f.channels[0]!.id}/bot`, {
          headers: admin(),
          body: { botId: bot.id },
        }),
      ),
    );
    assert.deepEqual(shapes(routeLines), [userLine('channel.set_bot', 'channel', f.channels[0]!.id)]);
    assert.deepEqual(routeLines[0]!.details, { botId: bot.id });

    const deleteLines = await linesOf(t, f, async () =>
      ok(await t.request('DELETE', `/api/bots/${bot.id}`, { headers: admin() }), 204),
    );
    assert.deepEqual(shapes(deleteLines), [userLine('bot.delete', 'bot', bot.id)]);
    assertWithout(
      [...createLines, ...updateLines, ...routeLines, ...deleteLines],
      [bot.apiKey, bot.secret, secret, 'tok_bot_path'],
    );
  });

  it("records a channel's flow set, naming the sections that changed, not their texts", async () => {
    const channelId = f.channels[1]!.id;
    const flow = (greeting: string) => ({
      enabled: true,
      greeting,
      menu: {
        prompt: 'Como podemos ajudar?',
        options: [
          { label: 'Vendas', teamId: f.teams[0]!.id },
          { label: 'Suporte', teamId: f.teams[1]!.id },
        ],
        interactive: true,
        invalidReply: 'Opção inválida.',
        maxAttempts: 2,
        timeoutMinutes: 10,
      },
      outOfHoursMessage: null,
      awayMessage: null,
      autoClose: null,
      csat: null,
    });
    const first = await linesOf(t, f, async () =>
      ok(await t.request('PUT', `/api/channels/${channelId}/flow`, { headers: admin(), body: flow('Olá!') })),
    );
    assert.deepEqual(shapes(first), [userLine('channel.set_flow', 'channel', channelId)]);
    assert.equal(first[0]!.details.enabled, true);
    assert.deepEqual(first[0]!.details.teams, [f.teams[0]!.id, f.teams[1]!.id]);
    const second = await linesOf(t, f, async () =>
      ok(
        await t.request('PUT', `/api/channels/${channelId}/flow`, {
          headers: admin(),
          body: flow('Bom dia, texto novo'),
        }),
      ),
    );
    assert.deepEqual(second[0]!.details.changed, ['greeting']);
    assertWithout([...first, ...second], ['Bom dia, texto novo']);
  });

  describe("a person's data", () => {
    const NAME = 'Marina Auditada';
    const phone = `5511977${String(Date.now() % 1e6).padStart(6, '0')}`;
    const phone2 = `5511966${String(Date.now() % 1e6).padStart(6, '0')}`;
    let customerId: string;
    let otherCustomerId: string;
    const customerOf = async (chatId: string) =>
      (await t.request('GET', `/api/chats/${chatId}`, { headers: admin() })).json.customerId as string;

    before(async () => {
      customerId = await customerOf(await f.inbound(0, phone, 'Meu CPF é 123', NAME));
      otherCustomerId = await customerOf(await f.inbound(1, phone2, 'Sou eu de outro número', NAME));
    });

    it('records a merge by ids only', async () => {
      const lines = await linesOf(t, f, async () =>
        ok(
          await t.request('POST', `/api/customers/${customerId}/merge`, {
            headers: admin(),
            body: { customerId: otherCustomerId },
          }),
        ),
      );
      assert.deepEqual(shapes(lines), [userLine('contact.merge', 'contact', customerId)]);
      assert.deepEqual(lines[0]!.details, { mergedContactId: otherCustomerId });
      assertWithout(lines, [NAME, phone, phone2]);
    });

    it("records a CSV import by its counts, with nothing of the file's people", async () => {
      const csvName = 'Importada Pessoa';
      const csvPhone = `5511944${String(Date.now() % 1e6).padStart(6, '0')}`;
      const lines = await linesOf(t, f, async () =>
        ok(
          await t.request('POST', `/api/customers/import?channelId=${f.channels[0]!.id}`, {
            headers: { ...admin(), 'content-type': 'text/csv' },
            raw: `name,phones\n${csvName},${csvPhone}`,
          }),
        ),
      );
      assert.deepEqual(shapes(lines), [userLine('contact.import', 'channel', f.channels[0]!.id)]);
      assert.deepEqual(lines[0]!.details, { created: 1, updated: 0, failed: 0 });
      assertWithout(lines, [csvName, csvPhone]);
    });

    it('records who exported whose data, with nothing of the data', async () => {
      const since = await auditMark(f);
      const res = await fetch(`${t.url}/api/contacts/${customerId}/export`, { headers: admin() });
      assert.equal(res.status, 200);
      await res.arrayBuffer();
      const lines = await auditSince(t, f, since);
      assert.deepEqual(shapes(lines), [userLine('contact.export', 'contact', customerId)]);
      assert.deepEqual(lines[0]!.details, {});
      assertWithout(lines, [NAME, phone, 'CPF']);
    });

    it("records a contacts CSV download by its filters' names", async () => {
      const since = await auditMark(f);
      const res = await fetch(`${t.url}/api/customers/export?q=${encodeURIComponent(NAME)}`, {
        headers: admin(),
      });
      assert.equal(res.status, 200);
      assert.match(await res.text(), new RegExp(NAME));
      const lines = await auditSince(t, f, since);
      assert.deepEqual(shapes(lines), [userLine('contact.export_csv', 'account', f.accountId)]);
      assert.deepEqual(lines[0]!.details, { filters: ['q'] });
      assertWithout(lines, [NAME, phone]);
    });

    it('records a report CSV download with its range and filters', async () => {
      const since = await auditMark(f);
      const teamId = f.teams[0]!.id;
      const res = await fetch(
        `${t.url}/api/reports/export?report=agents&from=2026-12-01&to=2026-12-02&teamId=${teamId}`,
        { headers: admin() },
      );
      assert.equal(res.status, 200);
      await res.text();
      const lines = await auditSince(t, f, since);
      assert.deepEqual(shapes(lines), [userLine('report.export', 'report', 'agents')]);
      assert.deepEqual(lines[0]!.details, {
        from: '2026-12-01',
        to: '2026-12-02',
        teamId,
        groupBy: 'agent',
      });
    });

    it("records an erasure without the person's name or number, and keeps none after it", async () => {
      let erasureId = '';
      const lines = await linesOf(t, f, async () => {
        const res = await t.request('POST', `/api/contacts/${customerId}/erase`, {
          headers: admin(),
          body: { confirm: 'ERASE' },
        });
        ok(res, 202);
        erasureId = res.json.id as string;
      });
      assert.deepEqual(shapes(lines), [userLine('contact.erase', 'contact', customerId)]);
      assert.deepEqual(lines[0]!.details, { erasureId });
      // A second request while it runs changes nothing: no second line.
      const again = await linesOf(t, f, async () =>
        ok(
          await t.request('POST', `/api/contacts/${customerId}/erase`, {
            headers: admin(),
            body: { confirm: 'ERASE' },
          }),
          202,
        ),
      );
      assert.deepEqual(again, []);
      assert.equal(await t.server.services.erasures.process(erasureId), true);
      // The whole log of the account, after the erasure: nothing names the person.
      assertWithout(await auditSince(t, f, '0'), [NAME, phone, phone2]);
    });
  });

  it('records the retention set', async () => {
    const lines = await linesOf(t, f, async () =>
      ok(await t.request('PUT', '/api/retention', { headers: admin(), body: { days: 365, scope: 'media' } })),
    );
    assert.deepEqual(shapes(lines), [userLine('retention.update', 'account', f.accountId)]);
    assert.deepEqual(lines[0]!.details, { days: 365, scope: 'media' });
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { migrateTo, migrateToLatest } from '../../src/db/migrate.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/db.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';

// Canned responses (/api/canned-responses): who sees and who manages each scope, the variables
// (refused when unknown, filled when inserted), search, the use count and the attachment.

interface Canned {
  id: string;
  scope: string;
  teamId: string | null;
  userId: string | null;
  shortcut: string;
  content: string;
  variables: string[];
  attachment: { mimetype: string; filename: string | null; size: number } | null;
  usageCount: number;
  lastUsedAt: string | null;
  canManage: boolean;
}
interface CannedPage {
  total: number;
  cannedResponses: Canned[];
}

// A 1×1 PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

describe('canned responses', () => {
  let t: TestApp;
  let f: Fixture;
  let other: Fixture;
  let db: pg.Pool;
  let supervisor: { id: string; token: string };

  const as = (token: string, lang?: string) => ({
    authorization: `Bearer ${token}`,
    ...(lang ? { 'accept-language': lang } : {}),
  });
  const call = (token: string, method: string, path: string, body?: unknown, lang?: string) =>
    t.request(method, path, { headers: as(token, lang), ...(body !== undefined ? { body } : {}) });
  const create = async (token: string, body: Record<string, unknown>) => {
    const res = await call(token, 'POST', '/api/canned-responses', body);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body as Canned;
  };
  const list = async (token: string, query = '') =>
    (await call(token, 'GET', `/api/canned-responses${query}`)).body as CannedPage;
  const shortcuts = (page: CannedPage) => page.cannedResponses.map((c) => c.shortcut).sort();

  before(async () => {
    t = await startTestApp({ env: { ATENDE_ROLES: 'api' } });
    f = await seedAccount(t.server.services);
    other = await seedAccount(t.server.services);
    db = new pg.Pool({ connectionString: t.databaseUrl, max: 2 });
    const { services } = t.server;
    const email = `sup${Date.now().toString(36)}@example.com`;
    const user = await services.users.create(f.admin, {
      name: 'Supervisora',
      email,
      password: 'supervisor-password',
      role: 'supervisor',
    });
    await services.teams.update(f.admin, f.teams[0]!.id, { members: [f.agents[0]!.id, user.id] });
    supervisor = {
      id: user.id,
      token: (await services.auth.login(email, 'supervisor-password')).accessToken,
    };
  });
  after(async () => {
    await db?.end();
    await t?.close();
  });

  it('account-wide: admins manage, every user of the account uses, other accounts never see it', async () => {
    const greeting = await create(f.adminToken, {
      scope: 'account',
      shortcut: 'oi',
      content: 'Olá {{contact.first_name}}!',
    });
    assert.equal(greeting.scope, 'account');
    assert.deepEqual(greeting.variables, ['contact.first_name']);
    assert.equal(greeting.canManage, true);

    const agent = f.agents[1]!.token;
    const seen = (await list(agent)).cannedResponses.find((c) => c.id === greeting.id);
    assert.equal(seen?.canManage, false);
    const refused = await call(agent, 'POST', '/api/canned-responses', {
      scope: 'account',
      shortcut: 'x',
      content: 'x',
    });
    assert.equal(refused.status, 403);
    assert.equal(
      (await call(agent, 'PATCH', `/api/canned-responses/${greeting.id}`, { content: 'y' })).status,
      403,
    );
    assert.equal(
      (await call(supervisor.token, 'DELETE', `/api/canned-responses/${greeting.id}`)).status,
      403,
    );

    // Another account: 404 for every operation, and absent from its lists.
    const outsider = other.adminToken;
    assert.equal((await call(outsider, 'GET', `/api/canned-responses/${greeting.id}`)).status, 404);
    assert.equal(
      (await call(outsider, 'PATCH', `/api/canned-responses/${greeting.id}`, { content: 'z' })).status,
      404,
    );
    assert.equal((await call(outsider, 'DELETE', `/api/canned-responses/${greeting.id}`)).status, 404);
    assert.equal((await call(outsider, 'POST', `/api/canned-responses/${greeting.id}/use`)).status, 404);
    assert.equal(
      (await call(outsider, 'GET', `/api/canned-responses/${greeting.id}/attachment`)).status,
      404,
    );
    assert.ok(!(await list(outsider)).cannedResponses.some((c) => c.id === greeting.id));
  });

  it("team: its members use it, its supervisors and admins manage it, other teams' members never see it", async () => {
    const [team0, team1] = [f.teams[0]!.id, f.teams[1]!.id];
    const mine = await create(supervisor.token, {
      scope: 'team',
      teamId: team0,
      shortcut: 'prazo',
      content: 'O prazo é de 5 dias.',
    });
    assert.equal(mine.teamId, team0);

    // A supervisor manages only their own teams' responses.
    const notTheirs = await call(supervisor.token, 'POST', '/api/canned-responses', {
      scope: 'team',
      teamId: team1,
      shortcut: 'prazo',
      content: 'x',
    });
    assert.equal(notTheirs.status, 403);
    const admins = await create(f.adminToken, {
      scope: 'team',
      teamId: team1,
      shortcut: 'prazo',
      content: 'Dez dias.',
    });

    const member = f.agents[0]!.token; // team 0
    const outsider = f.agents[1]!.token; // team 1
    assert.equal((await call(member, 'GET', `/api/canned-responses/${mine.id}`)).status, 200);
    assert.equal(
      (await call(member, 'PATCH', `/api/canned-responses/${mine.id}`, { content: 'x' })).status,
      403,
    );
    assert.equal((await call(outsider, 'GET', `/api/canned-responses/${mine.id}`)).status, 404);
    assert.equal((await call(outsider, 'POST', `/api/canned-responses/${mine.id}/use`)).status, 404);
    assert.deepEqual(
      (await list(outsider, '?scope=team')).cannedResponses.map((c) => c.id),
      [admins.id],
    );
    // Admins see and manage every team's.
    const adminView = await list(f.adminToken, '?scope=team');
    assert.deepEqual(adminView.cannedResponses.map((c) => c.id).sort(), [mine.id, admins.id].sort());
    assert.ok(adminView.cannedResponses.every((c) => c.canManage));
    assert.deepEqual(
      (await list(f.adminToken, `?teamId=${team1}`)).cannedResponses.map((c) => c.id),
      [admins.id],
    );

    const changed = await call(supervisor.token, 'PATCH', `/api/canned-responses/${mine.id}`, {
      content: 'O prazo é de 7 dias.',
    });
    assert.equal(changed.status, 200);
    assert.equal((changed.body as Canned).content, 'O prazo é de 7 dias.');

    // teamId goes with scope team, and only with it; a team of another account is unknown.
    const missing = await call(f.adminToken, 'POST', '/api/canned-responses', {
      scope: 'team',
      shortcut: 'a',
      content: 'a',
    });
    assert.equal(missing.status, 400);
    assert.deepEqual(missing.json.message, ['teamId is required for scope team, and only for it']);
    const extra = await call(f.adminToken, 'POST', '/api/canned-responses', {
      scope: 'account',
      teamId: team0,
      shortcut: 'a',
      content: 'a',
    });
    assert.equal(extra.status, 400);
    const foreignTeam = await call(f.adminToken, 'POST', '/api/canned-responses', {
      scope: 'team',
      teamId: other.teams[0]!.id,
      shortcut: 'a',
      content: 'a',
    });
    assert.equal(foreignTeam.status, 400);
    assert.deepEqual(foreignTeam.json.message, ['Equipe não encontrada']);
  });

  it('personal: only its owner sees and manages it, admins included', async () => {
    const owner = f.agents[0]!.token;
    const own = await create(owner, {
      scope: 'personal',
      shortcut: 'assinatura',
      content: 'Abraços, {{agent.first_name}}',
    });
    assert.equal(own.userId, f.agents[0]!.id);
    assert.equal(own.canManage, true);
    for (const token of [f.agents[1]!.token, f.adminToken, supervisor.token]) {
      assert.equal((await call(token, 'GET', `/api/canned-responses/${own.id}`)).status, 404);
      assert.equal((await call(token, 'DELETE', `/api/canned-responses/${own.id}`)).status, 404);
    }
    assert.ok((await list(owner, '?scope=personal')).cannedResponses.some((c) => c.id === own.id));
    assert.equal((await call(owner, 'DELETE', `/api/canned-responses/${own.id}`)).status, 204);
    assert.equal((await call(owner, 'GET', `/api/canned-responses/${own.id}`)).status, 404);
  });

  it('an unknown variable is refused with a 400 naming it and the known ones, in the asked language', async () => {
    const token = f.agents[0]!.token;
    const body = {
      scope: 'personal',
      shortcut: 'var',
      content: 'Oi {{contact.nome}} e {{ contact.attributes.plano }}',
    };
    const res = await call(token, 'POST', '/api/canned-responses', body);
    assert.equal(res.status, 400);
    assert.deepEqual(res.json.message, [
      'content has unknown variables: {{contact.nome}}, {{contact.attributes.plano}}; known variables: ' +
        '{{contact.name}}, {{contact.first_name}}, {{agent.name}}, {{agent.first_name}}',
    ]);
    const pt = await call(token, 'POST', '/api/canned-responses', body, 'pt-BR');
    assert.match(
      String((pt.json.message as string[])[0]),
      /^content tem variáveis desconhecidas: \{\{contact\.nome\}\}/,
    );
    const saved = await create(token, { scope: 'personal', shortcut: 'var', content: 'Oi {{contact.name}}' });
    const patch = await call(token, 'PATCH', `/api/canned-responses/${saved.id}`, { content: '{{x}}' });
    assert.equal(patch.status, 400);
    assert.match(String((patch.json.message as string[])[0]), /unknown variables: \{\{x\}\}/);
    assert.equal(
      ((await call(token, 'GET', `/api/canned-responses/${saved.id}`)).body as Canned).content,
      'Oi {{contact.name}}',
    );
  });

  it('bounds: shortcut form and length, content length, unique shortcut per owner, responses per owner', async () => {
    const token = f.agents[1]!.token;
    const bad = await call(token, 'POST', '/api/canned-responses', {
      scope: 'personal',
      shortcut: 'a b',
      content: 'x',
    });
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.json.message, ['shortcut must have no spaces, slashes or braces']);
    const long = await call(token, 'POST', '/api/canned-responses', {
      scope: 'personal',
      shortcut: 'a'.repeat(33),
      content: 'x'.repeat(4097),
    });
    assert.equal(long.status, 400);
    assert.equal((long.json.message as string[]).length, 2);
    const blank = await call(token, 'POST', '/api/canned-responses', {
      scope: 'personal',
      shortcut: 'b',
      content: '  ',
    });
    assert.equal(blank.status, 400);

    await create(token, { scope: 'personal', shortcut: 'Dup', content: 'x' });
    const dup = await call(token, 'POST', '/api/canned-responses', {
      scope: 'personal',
      shortcut: 'dup',
      content: 'y',
    });
    assert.equal(dup.status, 409);
    assert.equal(dup.json.message, 'Já existe uma resposta pronta com este atalho');
    // Another owner may use the same shortcut.
    await create(f.agents[0]!.token, { scope: 'personal', shortcut: 'dup', content: 'z' });

    // 300 personal responses at most: the 301st is refused.
    const userId = f.agents[1]!.id;
    await db.query(
      `INSERT INTO canned_responses (id, account_id, scope, user_id, owner_key, shortcut, content)
       SELECT substr(md5(random()::text), 1, 24), $1, 'personal', $2, $2, 'bulk' || g, 'x'
         FROM generate_series(1, 299) g`,
      [f.accountId, userId],
    );
    const full = await call(token, 'POST', '/api/canned-responses', {
      scope: 'personal',
      shortcut: 'one-more',
      content: 'x',
    });
    assert.equal(full.status, 409);
    assert.match(String(full.json.message), /At most 300|No máximo 300/);
    await db.query(`DELETE FROM canned_responses WHERE user_id = $1 AND shortcut LIKE 'bulk%'`, [userId]);
  });

  it('search by shortcut and by text, accents and case ignored; shortcuts that start with it first', async () => {
    const token = f.agents[0]!.token;
    await create(token, { scope: 'personal', shortcut: 'promo', content: 'Promoção de verão: 10% off' });
    await create(token, { scope: 'personal', shortcut: 'frete', content: 'Frete grátis na PROMOÇÃO' });
    await create(token, { scope: 'personal', shortcut: 'cupom', content: 'Use o cupom 100_OFF' });
    const byText = await list(token, '?q=promocao&scope=personal');
    assert.deepEqual(shortcuts(byText), ['frete', 'promo']);
    assert.equal(byText.total, 2);
    // `fre` starts one shortcut and is inside another's text: the shortcut leads, though `envio` sorts first.
    await create(token, { scope: 'personal', shortcut: 'envio', content: 'O frete é por conta da loja' });
    assert.deepEqual(
      (await list(token, '?q=FRE&scope=personal')).cannedResponses.map((c) => c.shortcut),
      ['frete', 'envio'],
    );
    assert.deepEqual(shortcuts(await list(token, '?q=GRATIS&scope=personal')), ['frete']);
    // LIKE's own characters are taken literally.
    assert.deepEqual(shortcuts(await list(token, '?q=0_O&scope=personal')), ['cupom']);
    assert.deepEqual(shortcuts(await list(token, '?q=%25&scope=personal')), ['promo']);
    assert.deepEqual(shortcuts(await list(token, '?q=10%25%20OFF&scope=personal')), ['promo']);
    // A search too short for the trigram index (the picker's first keys) answers alike: the shortcut
    // that starts with it first, accents and case ignored, with the exact total.
    const short = await list(token, '?q=Fr&scope=personal');
    assert.deepEqual(
      short.cannedResponses.map((c) => c.shortcut),
      ['frete', 'envio'],
    );
    assert.equal(short.total, 2);
    assert.deepEqual(shortcuts(await list(token, '?q=%C3%A7%C3%A3&scope=personal')), ['frete', 'promo']);
    // Past the last page: no response, the total still exact.
    const past = await list(token, '?scope=personal&limit=1&page=99');
    assert.equal(past.cannedResponses.length, 0);
    assert.equal(past.total, (await list(token, '?scope=personal')).total);
    const paged = await list(token, '?scope=personal&limit=1&page=2');
    assert.equal(paged.cannedResponses.length, 1);
    assert.ok(paged.total >= 3);
    const tooLong = await call(token, 'GET', `/api/canned-responses?q=${'a'.repeat(101)}`);
    assert.equal(tooLong.status, 400);
  });

  it("fills the variables for a conversation: the customer's name, its first word, the agent's name", async () => {
    const chatId = await f.inbound(0, '5511955550001', 'Oi', 'Maria  Clara Souza');
    const agent = f.agents[0]!; // team 0 sees the chat
    const r = await create(f.adminToken, {
      scope: 'account',
      shortcut: 'boas-vindas',
      content: 'Olá {{contact.first_name}} ({{ contact.name }}), sou {{agent.first_name}} — {{agent.name}}.',
    });
    const res = await call(agent.token, 'GET', `/api/canned-responses/${r.id}/render?chatId=${chatId}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body, {
      id: r.id,
      text: 'Olá Maria (Maria  Clara Souza), sou Agente — Agente 0.',
      attachment: null,
    });
    // A customer without a name: the name variables are empty.
    const nameless = await f.inbound(0, '5511955550002', 'Oi');
    const empty = await call(agent.token, 'GET', `/api/canned-responses/${r.id}/render?chatId=${nameless}`);
    assert.equal((empty.json as { text: string }).text, 'Olá  (), sou Agente — Agente 0.');
    // A chat the user does not see, or of another account: 404.
    assert.equal(
      (await call(f.agents[1]!.token, 'GET', `/api/canned-responses/${r.id}/render?chatId=${chatId}`)).status,
      404,
    );
    const foreignChat = await other.inbound(0, '5511955550003', 'Oi', 'Zé');
    assert.equal(
      (await call(agent.token, 'GET', `/api/canned-responses/${r.id}/render?chatId=${foreignChat}`)).status,
      404,
    );
  });

  it('fills a custom attribute the account defines, and refuses one it does not', async () => {
    const chatId = await f.inbound(0, '5511955550009', 'Oi', 'Rita');
    const agent = f.agents[0]!;
    const def = await call(f.adminToken, 'POST', '/api/customer-attributes', {
      key: 'plano',
      label: 'Plano',
      type: 'list',
      options: ['Ouro', 'Prata'],
    });
    assert.equal(def.status, 201, JSON.stringify(def.body));
    const chat = await call(agent.token, 'GET', `/api/chats/${chatId}`);
    const customerId = (chat.json as { customerId: string }).customerId;
    const set = await call(agent.token, 'PATCH', `/api/customers/${customerId}`, {
      attributes: { plano: 'Ouro' },
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    const r = await create(f.adminToken, {
      scope: 'account',
      shortcut: 'plano',
      content: 'Seu plano: {{contact.attributes.plano}}',
    });
    const res = await call(agent.token, 'GET', `/api/canned-responses/${r.id}/render?chatId=${chatId}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal((res.json as { text: string }).text, 'Seu plano: Ouro');
    const unknown = await call(f.adminToken, 'POST', '/api/canned-responses', {
      scope: 'account',
      shortcut: 'cidade',
      content: '{{contact.attributes.cidade}}',
    });
    assert.equal(unknown.status, 400);
    assert.match(
      String((unknown.json.message as string[])[0]),
      /unknown variables: \{\{contact\.attributes\.cidade\}\}/,
    );
  });

  it('counts every use, also at the same moment', async () => {
    const r = await create(f.adminToken, { scope: 'account', shortcut: 'obrigado', content: 'Obrigado!' });
    const users = [f.adminToken, f.agents[0]!.token, f.agents[1]!.token, supervisor.token];
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(users[i % users.length]!, 'POST', `/api/canned-responses/${r.id}/use`),
      ),
    );
    assert.ok(answers.every((a) => a.status === 200));
    const counts = answers.map((a) => (a.json as { usageCount: number }).usageCount).sort((a, b) => a - b);
    assert.deepEqual(
      counts,
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    const after = (await call(f.agents[0]!.token, 'GET', `/api/canned-responses/${r.id}`)).body as Canned;
    assert.equal(after.usageCount, 20);
    assert.ok(after.lastUsedAt);
    // With a search, the most used of equal rank come first.
    await create(f.adminToken, { scope: 'account', shortcut: 'obrigada', content: 'Obrigada!' });
    assert.equal((await list(f.adminToken, '?q=obrig')).cannedResponses[0]?.id, r.id);
  });

  it('an attachment: set, served, shown when inserted, replaced, and deleted with its response', async () => {
    const token = f.agents[0]!.token;
    const r = await create(token, { scope: 'personal', shortcut: 'catalogo', content: 'Segue o catálogo' });
    const set = await call(token, 'PUT', `/api/canned-responses/${r.id}/attachment`, {
      mimetype: 'image/png',
      filename: 'catálogo.png',
      base64: PNG.toString('base64'),
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.deepEqual((set.body as Canned).attachment, {
      mimetype: 'image/png',
      filename: 'catálogo.png',
      size: PNG.length,
    });

    const file = await fetch(`${t.url}/api/canned-responses/${r.id}/attachment`, { headers: as(token) });
    assert.equal(file.status, 200);
    assert.equal(file.headers.get('content-type'), 'image/png');
    assert.match(file.headers.get('content-disposition') ?? '', /^attachment;/);
    assert.deepEqual(Buffer.from(await file.arrayBuffer()), PNG);
    assert.equal(
      (await fetch(`${t.url}/api/canned-responses/${r.id}/attachment`, { headers: as(f.agents[1]!.token) }))
        .status,
      404,
    );

    const chatId = await f.inbound(0, '5511955550004', 'Oi', 'Rui');
    const rendered = await call(token, 'GET', `/api/canned-responses/${r.id}/render?chatId=${chatId}`);
    assert.deepEqual((rendered.json as { attachment: unknown }).attachment, {
      mimetype: 'image/png',
      filename: 'catálogo.png',
      size: PNG.length,
    });

    const refused = await call(token, 'PUT', `/api/canned-responses/${r.id}/attachment`, {
      mimetype: 'text/html',
      base64: PNG.toString('base64'),
    });
    assert.equal(refused.status, 400);
    assert.match(
      String((refused.json.message as string[])[0]),
      /^mimetype must be one of the following values/,
    );

    const blobs = async () =>
      (
        await db.query<{ n: number }>('SELECT count(*)::int AS n FROM media_blobs WHERE account_id = $1', [
          f.accountId,
        ])
      ).rows[0]!.n;
    const before = await blobs();
    await call(token, 'PUT', `/api/canned-responses/${r.id}/attachment`, {
      mimetype: 'image/png',
      base64: PNG.toString('base64'),
    });
    assert.equal(await blobs(), before); // the earlier file went
    const removed = await call(token, 'DELETE', `/api/canned-responses/${r.id}/attachment`);
    assert.equal((removed.json as { attachment: unknown }).attachment, null);
    assert.equal(await blobs(), before - 1);
    await call(token, 'PUT', `/api/canned-responses/${r.id}/attachment`, {
      mimetype: 'image/png',
      base64: PNG.toString('base64'),
    });
    assert.equal((await call(token, 'DELETE', `/api/canned-responses/${r.id}`)).status, 204);
    assert.equal(await blobs(), before - 1);
  });

  it('the built-in roles of existing accounts get the new permissions', async () => {
    const database = await createTestDatabase();
    const pool = new pg.Pool({ connectionString: database.url, max: 2 });
    const kdb = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
    try {
      await migrateTo(kdb, '028_labels');
      await pool.query(`
        INSERT INTO accounts (id, name) VALUES ('a1', 'Conta');
        INSERT INTO roles (id, account_id, name, permissions) VALUES
          ('r1', 'a1', 'admin', ARRAY['users:manage', 'teams:manage']),
          ('r2', 'a1', 'supervisor', ARRAY['teams:manage']),
          ('r3', 'a1', 'agent', ARRAY['chats:attend']);`);
      await migrateToLatest(kdb);
      const roles = await pool.query<{ name: string; permissions: string[] }>(
        'SELECT name, permissions FROM roles ORDER BY id',
      );
      // Other features' migrations may grant their own permissions too: only these are checked.
      const canned = (p: string[]) => p.filter((x) => x.startsWith('canned_responses:'));
      const [admin, supervisor, agent] = roles.rows;
      assert.deepEqual(canned(admin!.permissions), [
        'canned_responses:manage',
        'canned_responses:manage_team',
      ]);
      assert.ok(['users:manage', 'teams:manage'].every((x) => admin!.permissions.includes(x)));
      assert.deepEqual(canned(supervisor!.permissions), ['canned_responses:manage_team']);
      assert.ok(supervisor!.permissions.includes('teams:manage'));
      assert.deepEqual(canned(agent!.permissions), []);
    } finally {
      await kdb.destroy();
      await database.drop();
    }
  });
});

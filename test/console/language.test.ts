import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { preferredLanguage } from '../../src/http/language.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';

const UNKNOWN_ID = '0123456789abcdef01234567';
const badRequest = (message: string[] | string) => ({ statusCode: 400, message, error: 'Bad Request' });

describe('Accept-Language', () => {
  it('picks the supported language the header prefers, by quality then order', () => {
    const cases: [string | undefined, string | undefined][] = [
      [undefined, undefined],
      ['', undefined],
      ['pt-BR', 'pt-BR'],
      ['pt', 'pt-BR'],
      ['pt-PT', 'pt-BR'],
      ['en', 'en'],
      ['en-US,en;q=0.9', 'en'],
      ['pt-BR,pt;q=0.9,en-US;q=0.8,en;q=0.7', 'pt-BR'],
      ['en;q=0.5, pt-BR;q=0.9', 'pt-BR'],
      ['fr-FR, en;q=0.3', 'en'],
      ['fr, de', undefined],
      ['*', undefined],
      ['en;q=0, pt-BR;q=0.1', 'pt-BR'],
      ['en;q=0', undefined],
    ];
    for (const [header, expected] of cases) assert.equal(preferredLanguage(header), expected, String(header));
  });
});

describe('language of error messages', () => {
  let app: TestApp;
  let f: Fixture;
  let admin: Record<string, string>;
  before(async () => {
    app = await startTestApp();
    f = await seedAccount(app.server.services);
    admin = { authorization: `Bearer ${f.adminToken}` };
  });
  after(async () => app.close());

  const inLanguage = (headers: Record<string, string>, language: string | null) =>
    language === null ? headers : { ...headers, 'accept-language': language };

  it("the admin API's validation sentences follow Accept-Language; without it, the base wording", async () => {
    const expected: [string | null, string[]][] = [
      [
        'pt-BR',
        [
          'name não pode ficar vazio',
          'email não pode ficar vazio',
          'password não pode ficar vazio',
          'role não pode ficar vazio',
        ],
      ],
      ['pt-BR,pt;q=0.9,en;q=0.8', ['name não pode ficar vazio']],
      [
        'en',
        [
          'name should not be empty',
          'email should not be empty',
          'password should not be empty',
          'role should not be empty',
        ],
      ],
      ['en-US,en;q=0.9,pt;q=0.5', ['name should not be empty']],
      [null, ['name should not be empty']],
      ['fr', ['name should not be empty']],
    ];
    for (const [language, first] of expected) {
      const res = await app.request('POST', '/api/users', { headers: inLanguage(admin, language), body: {} });
      assert.equal(res.status, 400, String(language));
      assert.deepEqual((res.json.message as string[]).slice(0, first.length), first, String(language));
    }

    const keys = async (language: string | null) =>
      app.request('POST', '/api/api-keys', {
        headers: inLanguage(admin, language),
        body: { name: 'X', scopes: [], extra: 1 },
      });
    assert.deepEqual(
      (await keys('pt-BR')).body,
      badRequest(['a propriedade extra não é permitida', 'scopes deve conter pelo menos 1 elemento']),
    );
    assert.deepEqual(
      (await keys('en')).body,
      badRequest(['property extra should not exist', 'scopes must contain at least 1 elements']),
    );

    const page = await app.request('GET', '/api/chats?limit=1000', { headers: inLanguage(admin, 'pt-BR') });
    assert.deepEqual(page.body, badRequest(['limit não pode ser maior que 100']));
  });

  it("the admin and agent API's own messages follow Accept-Language too", async () => {
    const taken = { name: 'X', email: f.agents[0]!.email, password: '12345678', role: 'agent' };
    const create = (language: string | null) =>
      app.request('POST', '/api/users', { headers: inLanguage(admin, language), body: taken });
    assert.deepEqual((await create('pt-BR')).json.message, 'E-mail já está em uso');
    assert.deepEqual((await create('en')).json.message, 'Email already in use');
    assert.deepEqual((await create(null)).json.message, 'Email already in use');

    const missing = (language: string | null) =>
      app.request('GET', `/api/users/${UNKNOWN_ID}`, { headers: inLanguage(admin, language) });
    assert.deepEqual((await missing('pt-BR')).body, {
      statusCode: 404,
      message: 'Não encontrado',
      error: 'Not Found',
    });
    assert.deepEqual((await missing('en')).body, {
      statusCode: 404,
      message: 'Not Found',
      error: 'Not Found',
    });

    const chatId = await f.inbound(0, '5511987650001');
    const transfer = (language: string | null) =>
      app.request('POST', `/api/chats/${chatId}/transfer`, {
        headers: inLanguage(admin, language),
        body: { teamId: UNKNOWN_ID },
      });
    assert.deepEqual((await transfer('en')).body, badRequest('Team not found'));
    assert.deepEqual((await transfer('pt-BR')).body, badRequest('Equipe não encontrada'));
    assert.deepEqual((await transfer(null)).body, badRequest('Equipe não encontrada'));

    const login = (language: string | null) =>
      app.request('POST', '/auth/login', {
        headers: inLanguage({}, language),
        body: { email: f.agents[0]!.email, password: 'wrong-password' },
      });
    assert.deepEqual((await login('en')).json.message, 'Invalid email or password');
    assert.deepEqual((await login('pt-BR')).json.message, 'Email ou senha inválidos');
  });

  it("the Channel API keeps its contract's wording whatever the client asks for", async () => {
    const rotated = await app.request('POST', `/api/channels/${f.channels[0]!.id}/api-key`, {
      headers: admin,
    });
    assert.equal(rotated.status, 201, JSON.stringify(rotated.body));
    const channelKey = rotated.json.apiKey as string;
    for (const language of ['en', 'pt-BR', 'pt-BR,pt;q=0.9,en;q=0.8', null]) {
      const headers = inLanguage(f.authHeader(), language);
      const list = await app.request('GET', '/channel-api/chats?limit=1000&foo=1', { headers });
      assert.deepEqual(
        list.body,
        badRequest(['property foo should not exist', 'limit must not be greater than 100']),
        String(language),
      );

      const chatId = await f.inbound(0, '5511987650002');
      const team = await app.request('POST', `/channel-api/chats/${chatId}/transfer/team`, {
        headers,
        body: { teamId: UNKNOWN_ID },
      });
      assert.deepEqual(team.body, badRequest('Equipe não encontrada'), String(language));
      const missing = await app.request('POST', `/channel-api/chats/${UNKNOWN_ID}/transfer/team`, {
        headers,
        body: { teamId: f.teams[0]!.id },
      });
      assert.deepEqual(missing.body, { statusCode: 404, message: 'Not Found', error: 'Not Found' });

      const send = await app.request('POST', '/channel-api/messages/send', {
        headers: inLanguage({ 'x-channel-api-key': channelKey }, language),
        body: { contact: {}, message: { type: 'text', text: { value: 'x' } } },
      });
      assert.deepEqual(send.body, badRequest(['contact.value should not be empty']), String(language));
    }
  });
});

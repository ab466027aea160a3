import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import { startTestApp, type TestApp } from '../helpers/app.js';

// The OpenAPI document the server serves at /docs/json, as a client generator or a validator reads
// it. `npm run openapi:check` (part of `npm run lint`) also runs Redocly's linter on it.

interface Operation {
  operationId?: string;
  security?: Array<Record<string, string[]>>;
  requestBody?: { content: Record<string, unknown> };
  responses: Record<string, Response>;
}
interface Response {
  description: string;
  content?: Record<string, { schema?: { $ref?: string } }>;
  headers?: Record<string, unknown>;
}
interface Document {
  openapi: string;
  servers?: Array<{ url: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown> };
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** Every operation of the document, named the way a reader finds it: `POST /api/users`. */
function operations(doc: Document): Array<{ name: string; op: Operation }> {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.has(method))
      .map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, op })),
  );
}

/** Answers that are not the shared error body, on purpose: the readiness probe's own body. */
const OWN_ERROR_BODIES = new Set(['GET /readyz 503']);

const ERROR_BODY_REF = '#/components/schemas/ErrorBody';

/** JSON Schema keywords OpenAPI 3.0 does not have, wherever they stand as keywords (not field names). */
function keywordsOutside30(node: unknown, path: string, found: string[]): string[] {
  if (Array.isArray(node)) node.forEach((v, i) => keywordsOutside30(v, `${path}/${i}`, found));
  else if (node && typeof node === 'object') {
    const fieldNames = path.endsWith('/properties');
    for (const [key, value] of Object.entries(node)) {
      if (!fieldNames && ['if', 'then', 'else', 'propertyNames', 'const', '$defs'].includes(key)) {
        found.push(`${path}/${key}`);
      }
      keywordsOutside30(value, `${path}/${key}`, found);
    }
  }
  return found;
}

describe('OpenAPI document', () => {
  let t: TestApp;
  let doc: Document;
  before(async () => {
    t = await startTestApp();
    const res = await t.request('GET', '/docs/json');
    assert.equal(res.status, 200);
    doc = res.body as Document;
  });
  after(async () => {
    await t.close();
  });

  it('is valid OpenAPI 3.0 for @apidevtools/swagger-parser', async () => {
    assert.match(doc.openapi, /^3\.0\.\d+$/);
    // validate() resolves references in place: it gets a copy.
    await SwaggerParser.validate(structuredClone(doc) as never);
    assert.deepEqual(keywordsOutside30(doc, '#', []), []);
  });

  it('names a server, relative to where the document was loaded from', () => {
    assert.deepEqual(
      doc.servers?.map((s) => s.url),
      ['/'],
    );
  });

  it('gives every operation an operationId: camelCase, verb first, unique', () => {
    const missing = operations(doc)
      .filter(({ op }) => !op.operationId)
      .map(({ name }) => name);
    assert.deepEqual(missing, [], `operations without schema.operationId: ${missing.join(', ')}`);
    const seen = new Map<string, string>();
    for (const { name, op } of operations(doc)) {
      const id = op.operationId!;
      assert.match(id, /^[a-z]+[A-Z][A-Za-z0-9]*$/, `${name}: operationId ${id} is not camelCase verb+noun`);
      assert.equal(seen.get(id), undefined, `${name} and ${seen.get(id)} share the operationId ${id}`);
      seen.set(id, name);
    }
    // Generated clients call these by name: they are part of the API.
    const byRoute = Object.fromEntries(operations(doc).map(({ name, op }) => [name, op.operationId]));
    assert.equal(byRoute['POST /channel-api/messages/send'], 'sendMessage');
    assert.equal(byRoute['GET /channel-api/chats'], 'listOpenChats');
    assert.equal(byRoute['POST /auth/login'], 'loginUser');
  });

  it('says on every operation which credential it takes, public ones with `security: []`', () => {
    const schemes = new Set(Object.keys(doc.components.securitySchemes));
    for (const { name, op } of operations(doc)) {
      assert.ok(Array.isArray(op.security), `${name} has no security (public routes say security: [])`);
      for (const requirement of op.security)
        for (const scheme of Object.keys(requirement))
          assert.ok(schemes.has(scheme), `${name} names an undefined security scheme ${scheme}`);
    }
    const security = Object.fromEntries(operations(doc).map(({ name, op }) => [name, op.security]));
    for (const open of [
      'POST /auth/login',
      'GET /healthz',
      'GET /readyz',
      'POST /webhooks/whatsapp/{channelId}',
    ])
      assert.deepEqual(security[open], [], open);
    assert.deepEqual(security['GET /channel-api/chats'], [{ accountApiKey: [] }]);
    assert.deepEqual(security['POST /channel-api/messages/send'], [{ channelApiKey: [] }]);
    // The agent API takes the token as a bearer header or as the console's session cookie.
    assert.deepEqual(security['GET /api/chats'], [{ bearer: [] }, { sessionCookie: [] }]);
  });

  it('documents every error answer with the shared error body', () => {
    const wrong: string[] = [];
    for (const { name, op } of operations(doc)) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400 || OWN_ERROR_BODIES.has(`${name} ${status}`)) continue;
        const ref = response.content?.['application/json']?.schema?.$ref;
        if (ref !== ERROR_BODY_REF) wrong.push(`${name} ${status}`);
      }
    }
    assert.deepEqual(wrong, [], `error answers not documented with ErrorBody: ${wrong.join(', ')}`);
    assert.deepEqual(Object.keys(doc.components.schemas).includes('ErrorBody'), true);
  });

  it('documents the errors each route can answer: its guard’s, its inputs’, Retry-After on 429 and 503', () => {
    const ops = Object.fromEntries(operations(doc).map(({ name, op }) => [name, op]));
    const statuses = (name: string) => Object.keys(ops[name]!.responses);
    for (const { name, op } of operations(doc)) {
      if (op.requestBody?.content['application/json']) {
        for (const status of ['400', '413', '415'])
          assert.ok(op.responses[status], `${name} takes a JSON body: documents ${status}`);
      }
      for (const status of ['429', '503']) {
        const response = op.responses[status];
        if (!response || OWN_ERROR_BODIES.has(`${name} ${status}`)) continue;
        assert.ok(response.headers?.['Retry-After'], `${name} ${status} documents Retry-After`);
      }
      // Every credential is checked against the database.
      if (op.security && op.security.length > 0) assert.ok(op.responses['503'], `${name} documents 503`);
    }
    assert.deepEqual(statuses('GET /channel-api/chats').sort(), ['200', '400', '401', '404', '429', '503']);
    assert.deepEqual(statuses('POST /channel-api/messages/send').sort(), [
      '201',
      '400',
      '404',
      '413',
      '415',
      '429',
      '503',
    ]);
    // A write the session cookie authenticates is refused from another site (403).
    assert.ok(ops['PUT /api/chats/{id}/draft']!.responses['403']);
    assert.equal(ops['GET /api/drafts']!.responses['403'], undefined);
  });

  it('types template.variables (a list, or an object of lists) and amounts for a generated client', () => {
    type Schema = {
      type?: string;
      oneOf?: Schema[];
      items?: Schema;
      properties?: Record<string, Schema>;
      $ref?: string;
    };
    // `message` is one of three named schemas, chosen by its `type` (a discriminator).
    const send = doc.paths['/channel-api/messages/send']!.post!;
    const body = (send.requestBody!.content['application/json'] as { schema: Schema }).schema;
    assert.deepEqual(
      body.properties!.message!.oneOf!.map((s) => s.$ref),
      ['SendTextMessage', 'SendTemplateMessage', 'SendMediaMessage'].map((n) => `#/components/schemas/${n}`),
    );
    const template = (doc.components.schemas.SendTemplateMessage as Schema).properties!.template!;
    const variables = template.properties!.variables!;
    assert.deepEqual(
      variables.oneOf?.map((s) => s.type),
      ['array', 'object'],
    );
    const [list, object] = variables.oneOf!;
    assert.deepEqual(
      list!.items!.oneOf!.map((s) => s.type),
      ['string', 'object'],
    );
    assert.deepEqual(Object.keys(object!.properties!), ['header', 'body', 'buttons']);
    assert.deepEqual(object!.properties!.body, list);
    // Amounts: an integer in the smallest unit, or a decimal string.
    const button = template.properties!.buttons!.items!;
    const total = button.properties!.orderDetails!.properties!.totalAmount!;
    assert.deepEqual(
      total.properties!.value!.oneOf?.map((s) => s.type),
      ['integer', 'string'],
    );
  });
});

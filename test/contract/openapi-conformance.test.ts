import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';

// The served OpenAPI document against the server, property-based: for every operation, requests
// generated from its documented parameters and body (with ids that name real fixtures) must never
// be refused with a 400 the document does not list, and every answer must have a documented status,
// content type and body. fast-check generates and replays: on a failure it prints the seed and the
// smallest request found (CONFORMANCE_SEED=<seed> reruns it). It was chosen over json-schema-faker
// for that: a seed, shrinking and a replay path per property; the few JSON Schema keywords the
// document uses are turned into its arbitraries below, and every generated request is checked
// against the document with Ajv before it is sent (so `oneOf` and `not` hold exactly).

const addFormats = addFormatsModule.default;
const SEED = Number(process.env.CONFORMANCE_SEED ?? 20_251_128);
const RUNS = Number(process.env.CONFORMANCE_RUNS ?? 10);

type Schema = Record<string, unknown>;
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema: Schema;
}
interface Response {
  description: string;
  content?: Record<string, { schema?: Schema }>;
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
  responses: Record<string, Response>;
  security?: Array<Record<string, string[]>>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Values the document cannot generate: real ids, phones that exist, loopback URLs, valid templates. */
interface Pools {
  byName: Record<string, fc.Arbitrary<unknown>>;
  anyId: fc.Arbitrary<string>;
}

/** A fast-check arbitrary for the values `schema` accepts (the document's keywords; others fail). */
function arbitrary(doc: Document, schema: Schema, pools: Pools, name = '', depth = 0): fc.Arbitrary<unknown> {
  if (typeof schema.$ref === 'string') {
    const target = doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')];
    assert.ok(target, `unresolved ${schema.$ref}`);
    return arbitrary(doc, target, pools, name, depth);
  }
  // By its path in the body (`contact.value`), else by its own name (`teamId`).
  const pooled = pools.byName[name] ?? pools.byName[name.split('.').at(-1)!];
  if (pooled) return pooled;
  if (schema.nullable === true) {
    const { nullable: _n, ...rest } = schema;
    return fc.oneof(arbitrary(doc, rest, pools, name, depth), fc.constant(null));
  }
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const branches = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
  if (branches) {
    const { oneOf: _o, anyOf: _a, discriminator: _d, ...parent } = schema;
    return fc.oneof(...branches.map((b) => arbitrary(doc, merged(doc, parent, b), pools, name, depth)));
  }
  if (Array.isArray(schema.allOf)) {
    const { allOf, ...parent } = schema;
    return arbitrary(
      doc,
      (allOf as Schema[]).reduce((a, b) => merged(doc, a, b), parent),
      pools,
      name,
      depth,
    );
  }
  switch (schema.type) {
    case 'string':
      return stringArbitrary(schema, pools);
    case 'integer':
    case 'number': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : -1000;
      const max = typeof schema.maximum === 'number' ? Math.min(schema.maximum, min + 100_000) : min + 1000;
      return fc.integer({ min, max });
    }
    case 'boolean':
      return fc.boolean();
    case 'array': {
      const items = isObject(schema.items) ? schema.items : {};
      const minLength = typeof schema.minItems === 'number' ? schema.minItems : 0;
      const maxLength = Math.min(typeof schema.maxItems === 'number' ? schema.maxItems : 3, minLength + 3);
      const item = arbitrary(doc, items, pools, `${name}[]`, depth + 1);
      return schema.uniqueItems
        ? fc.uniqueArray(item, { minLength, maxLength, selector: (v) => JSON.stringify(v) })
        : fc.array(item, { minLength, maxLength });
    }
    case 'object':
    case undefined: {
      const properties = isObject(schema.properties) ? (schema.properties as Record<string, Schema>) : {};
      const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
      if (Object.keys(properties).length === 0) {
        return schema.type === 'object' || depth > 0 ? fc.constant({}) : fc.constant(undefined);
      }
      const model = Object.fromEntries(
        Object.entries(properties).map(([k, s]) => [
          k,
          arbitrary(doc, s, pools, name ? `${name}.${k}` : k, depth + 1),
        ]),
      );
      return fc.record(model, { requiredKeys: required.filter((k) => k in model) });
    }
    default:
      throw new Error(`no arbitrary for ${JSON.stringify(schema).slice(0, 200)}`);
  }
}

/** Two object schemas as one: properties and required lists together (a oneOf branch, an allOf part). */
function merged(doc: Document, a: Schema, b: Schema): Schema {
  const resolve = (s: Schema) =>
    typeof s.$ref === 'string' ? doc.components.schemas[s.$ref.replace('#/components/schemas/', '')]! : s;
  const x = resolve(a);
  const y = resolve(b);
  const properties = { ...(x.properties as Schema | undefined) };
  for (const [k, v] of Object.entries((y.properties as Record<string, Schema> | undefined) ?? {})) {
    properties[k] = isObject(properties[k]) && !('enum' in v) ? merged(doc, properties[k] as Schema, v) : v;
  }
  const { not: _not, ...rest } = { ...x, ...y };
  return {
    ...rest,
    ...(Object.keys(properties).length > 0 ? { properties } : {}),
    required: [...((x.required as string[]) ?? []), ...((y.required as string[]) ?? [])],
  };
}

function stringArbitrary(schema: Schema, pools: Pools): fc.Arbitrary<string> {
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = Math.min(typeof schema.maxLength === 'number' ? schema.maxLength : 40, 40);
  switch (schema.format) {
    case 'objectid':
      return pools.anyId;
    case 'uuid':
      return fc.uuid();
    case 'date-time':
      return fc
        .date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true })
        .map((d) => d.toISOString());
    case 'email':
      return fc.emailAddress().filter((e) => e.length <= maxLength || maxLength < minLength);
    default:
      break;
  }
  if (typeof schema.pattern === 'string') {
    return fc
      .stringMatching(new RegExp(schema.pattern, 'u'), { maxLength: Math.max(maxLength, minLength) })
      .filter(
        (s) => s.length >= minLength && [...s].length <= ((schema.maxLength as number | undefined) ?? 1e9),
      );
  }
  return fc.string({ minLength, maxLength: Math.max(maxLength, minLength) });
}

/** Whether `type` (an answer's Content-Type) is one of `documented` (media ranges allowed). */
function contentTypeDocumented(type: string, documented: string[]): boolean {
  const base = type.split(';')[0]!.trim().toLowerCase();
  return documented.some((d) => {
    const [t, s] = d.toLowerCase().split('/');
    const [bt, bs] = base.split('/');
    return (t === '*' || t === bt) && (s === '*' || s === bs);
  });
}

/** The messages an operation's documented 400 lists (`- \`message\`: when`), as patterns. */
function listedBadRequests(op: Operation): RegExp[] {
  const description = op.responses['400']?.description ?? '';
  return [...description.matchAll(/^- `([^`]+)`:/gm)].map(
    (m) =>
      new RegExp(
        `^${m[1]!
          .split(/<[^>]+>|…/)
          .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
          .join('.+')}$`,
        's',
      ),
  );
}

describe('OpenAPI conformance: generated requests against the server', () => {
  let t: TestApp;
  let f: Fixture;
  let doc: Document;
  let ajv: Ajv;
  const fixtures: Record<string, string> = {};

  before(async () => {
    t = await startTestApp({
      env: {
        // Generated webhooks point at loopback (below): allowed, and never resolved elsewhere.
        ATENDE_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WHATSAPP_GRAPH_BASE_URL: 'http://127.0.0.1:9',
        ATENDE_RATE_LIMIT_POINTS: '100000',
        ATENDE_USER_RATE_LIMIT_POINTS: '100000',
      },
    });
    f = await seedAccount(t.server.services);
    const admin = { authorization: `Bearer ${f.adminToken}` };
    const post = async (path: string, body?: unknown, headers: Record<string, string> = admin) => {
      const res = await t.request('POST', path, { headers, ...(body !== undefined ? { body } : {}) });
      assert.ok(res.status < 300, `${path}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.json;
    };
    // A chat the admin attends, with a customer message (window open) and a reply carrying a file.
    fixtures.chat = await f.inbound(0, '5511987654321');
    await post(`/api/chats/${fixtures.chat}/capture`);
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex').toString('base64');
    fixtures.mediaMessage = (
      await post(`/api/chats/${fixtures.chat}/messages`, { media: { mimetype: 'image/png', base64: png } })
    ).id as string;
    fixtures.channelKey = (await post(`/api/channels/${f.channels[0]!.id}/api-key`)).apiKey as string;
    fixtures.requestId = (
      await post(
        '/channel-api/messages/send',
        { contact: { value: '5511987654321' }, message: { type: 'text', text: { value: 'Olá' } } },
        { 'x-channel-api-key': fixtures.channelKey },
      )
    ).requestId as string;
    fixtures.webhook = (await post('/api/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['*'] }))
      .id as string;

    const res = await t.request('GET', '/docs/json');
    doc = res.body as Document;
    // The document's discriminators name their mappings, which Ajv does not read: its oneOf decides.
    ajv = new Ajv({ strict: false, allErrors: false, validateFormats: true });
    addFormats(ajv);
    ajv.addFormat('objectid', /^[0-9a-fA-F]{24}$/);
    ajv.addFormat('binary', () => true);
    ajv.addSchema({ ...doc, $id: 'doc' } as never, 'doc');
  });
  after(async () => {
    await t?.close();
  });

  const validator = (pointer: string): ValidateFunction => ajv.getSchema(`doc#${pointer}`)!;
  const escape = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

  it('for every operation, refuses no request the document allows and answers as documented', async (ctx) => {
    const services = t.server.services;
    const ids = {
      team: f.teams.map((x) => x.id),
      user: f.agents.map((x) => x.id),
      channel: f.channels.map((x) => x.id),
    };
    const phones = fc.constantFrom('5511987654321', '+55 (11) 98765-4321', '5521999998888', '551133334444');
    const loopbackUrls = fc.constantFrom('http://127.0.0.1:9/hook', 'https://localhost:9/a?b=c');
    const png = Buffer.from('89504e470d0a1a0a', 'hex').toString('base64');
    const medias = fc.constantFrom(
      { mimetype: 'image/png', base64: png, caption: 'Foto' },
      { mimetype: 'application/pdf', base64: 'JVBERi0=', filename: 'a.pdf' },
      { mimetype: 'audio/ogg; codecs=opus', base64: 'T2dnUw==' },
    );
    // Template values whose rules tie fields together (listed in the 400): valid combinations.
    const variables = fc.constantFrom(
      ['Ana', '42'],
      { body: [{ value: 'Ana', key: 'nome' }] },
      {
        header: ['x'],
        body: ['a', { value: 'b', correlationId: 1 }],
      },
    );
    const buttons = fc.constant([
      {
        index: 0,
        type: 'order_details',
        orderDetails: {
          referenceId: 'pedido-1',
          type: 'digital-goods',
          paymentType: 'br',
          currency: 'BRL',
          totalAmount: { value: 2000, offset: 100 },
          paymentSettings: [
            {
              type: 'pix_dynamic_code',
              pixDynamicCode: { code: '000201', merchantName: 'Loja', key: 'a@b.com', keyType: 'EMAIL' },
            },
          ],
          order: {
            status: 'pending',
            items: [
              { retailerId: 'sku', name: 'Item', amount: { value: '10,00', offset: 100 }, quantity: 2 },
            ],
            subtotal: { value: 2000, offset: 100 },
          },
        },
      },
    ]);
    const mediaHeaders = fc.constantFrom(
      { format: 'image', link: 'https://example.com/a.png' },
      { format: 'document', fileId: '123', filename: 'a.pdf' },
    );
    const reportDates = fc
      .date({ min: new Date('2025-01-01'), max: new Date('2027-12-31'), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10));
    const auditInstants = fc
      .date({ min: new Date('2025-01-01'), max: new Date('2027-12-31'), noInvalidDate: true })
      .map((d) => d.toISOString());
    const pools = (extra: Record<string, fc.Arbitrary<unknown>> = {}): Pools => ({
      anyId: fc.constantFrom(...ids.team, ...ids.user, ...ids.channel, fixtures.chat!),
      byName: {
        teamId: fc.constantFrom(...ids.team),
        defaultTeamId: fc.constantFrom(...ids.team),
        userId: fc.constantFrom(...ids.user),
        'members[]': fc.constantFrom(...ids.user),
        'channelIds[]': fc.constantFrom(...ids.channel),
        channelId: fc.constantFrom(...ids.channel),
        chatId: fc.constant(fixtures.chat!),
        before: fc.constant(fixtures.mediaMessage!),
        deliveryId: fc.uuid(),
        requestId: fc.constant(fixtures.requestId!),
        url: loopbackUrls,
        from: phones,
        'contact.value': phones,
        variables,
        buttons,
        mediaHeader: mediaHeaders,
        // A caption's kind and a file's size tie fields together (listed): files that fit.
        media: medias,
        ...extra,
      },
    });
    const admin = { authorization: `Bearer ${f.adminToken}` };

    /** What a run uses up gets made for each run: logging out, revoking, deleting, closing end it. */
    const fresh: Record<string, () => Promise<string>> = {
      revokeApiKey: async () =>
        (
          await services.apiKeys.create(f.admin, {
            name: 'revogada',
            scopes: ['chats:read'],
            channelIds: null,
          })
        ).id,
      deleteWebhook: async () => {
        const res = await t.request('POST', '/api/webhooks', {
          headers: admin,
          body: { url: 'http://127.0.0.1:9/gone', events: ['*'] },
        });
        return res.json.id as string;
      },
      closeChat: () => f.inbound(1, '5521988887777'),
    };
    // Changes that would take the shared fixtures away (a cancelled user, an inactive team, a
    // channel turned into another provider or given a new key) land on objects of their own.
    const own = {
      user: (
        await services.users.create(f.admin, {
          name: 'Outro',
          email: `outro${Date.now()}@example.com`,
          password: 'agent-password',
          role: 'agent',
        })
      ).id,
      team: (await services.teams.create(f.admin, { name: 'Outra', members: [] })).id,
      channel: (
        await services.channels.create(f.admin, {
          name: 'Outro',
          provider: 'sandbox',
          defaultTeamId: ids.team[0]!,
        })
      ).id,
    };
    const pathIds: Record<string, fc.Arbitrary<unknown>> = {
      getUser: fc.constantFrom(...ids.user),
      updateUser: fc.constant(own.user),
      getTeam: fc.constantFrom(...ids.team),
      updateTeam: fc.constant(own.team),
      getChannel: fc.constantFrom(...ids.channel),
      updateChannel: fc.constant(own.channel),
      generateChannelApiKey: fc.constant(own.channel),
      listChannelTemplates: fc.constantFrom(...ids.channel),
      listChannelRequestLogs: fc.constantFrom(...ids.channel),
      simulateInboundMessage: fc.constantFrom(...ids.channel),
      simulateCustomerRead: fc.constant(ids.channel[0]!),
      getMessageMedia: fc.constant(fixtures.mediaMessage!),
      getWebhook: fc.constant(fixtures.webhook!),
      updateWebhook: fc.constant(fixtures.webhook!),
      listWebhookDeliveries: fc.constant(fixtures.webhook!),
      replayWebhookDelivery: fc.constant(fixtures.webhook!),
      markNotificationRead: fc.constant(fixtures.chat!),
    };

    const problems: string[] = [];
    const counts = { requests: 0, skipped: 0, listed400: 0 };
    const statuses: Record<string, Record<number, number>> = {};
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (!isObject(op) || !op.operationId) continue;
        const pointer = `/paths/${escape(path)}/${method}`;
        const chatPath = path.startsWith('/api/chats/{id}') || path.startsWith('/channel-api/chats/{id}');
        const p = pools({
          ...(chatPath ? { id: fc.constant(fixtures.chat!) } : {}),
          // A report's `from` and `to` are dates (elsewhere `from` is a customer's number).
          ...(path.startsWith('/api/reports') ? { from: reportDates, to: reportDates } : {}),
          // The audit log's range is instants, and its page cursor a line's number.
          ...(path === '/api/audit-log'
            ? {
                from: auditInstants,
                to: auditInstants,
                before: fc.bigInt({ min: 1n, max: 10n ** 17n }).map(String),
              }
            : {}),
          ...(pathIds[op.operationId] ? { id: pathIds[op.operationId]! } : {}),
        });
        const freshId = fresh[op.operationId];
        const params = op.parameters ?? [];
        const bodySchema = op.requestBody?.content['application/json']?.schema;
        const request = fc.record({
          params: fc.record(
            Object.fromEntries(params.map((x) => [`${x.in}:${x.name}`, arbitrary(doc, x.schema, p, x.name)])),
            { requiredKeys: params.filter((x) => x.required).map((x) => `${x.in}:${x.name}`) },
          ),
          body: bodySchema ? arbitrary(doc, bodySchema, p, '', 0) : fc.constant(undefined),
        });
        const bodyValid = bodySchema
          ? validator(`${pointer}/requestBody/content/application~1json/schema`)
          : undefined;
        const listed = listedBadRequests(op);
        await fc.assert(
          fc.asyncProperty(request, async ({ params: values, body }) => {
            if (bodyValid && !bodyValid(structuredClone(body))) {
              counts.skipped++;
              return; // e.g. both of an exactly-one pair: not a request the document allows
            }
            let url = path;
            const query = new URLSearchParams();
            const headers: Record<string, string> = {};
            for (const [key, value] of Object.entries(values)) {
              const [where, name] = key.split(/:(.*)/s) as [string, string];
              if (where === 'path') {
                const v = name === 'id' && freshId ? await freshId() : String(value);
                url = url.replace(`{${name}}`, encodeURIComponent(v));
              } else if (where === 'query') query.set(name, String(value));
              else if (where === 'header') headers[name] = String(value);
            }
            const scheme = Object.keys(op.security?.[0] ?? {})[0];
            if (scheme === 'bearer' || scheme === 'sessionCookie') {
              headers.authorization =
                op.operationId === 'logoutUser'
                  ? `Bearer ${(await services.auth.login(f.agents[1]!.email, 'agent-password')).accessToken}`
                  : `Bearer ${f.adminToken}`;
            } else if (scheme === 'accountApiKey') headers.authorization = `ApiKey ${f.apiKey}`;
            else if (scheme === 'channelApiKey') headers['x-channel-api-key'] = fixtures.channelKey!;
            const target = `${url}${query.size > 0 ? `?${query}` : ''}`;
            const res = await fetch(`${t.url}${target}`, {
              method: method.toUpperCase(),
              headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
              body: body !== undefined ? JSON.stringify(body) : undefined,
            });
            counts.requests++;
            const seen = (statuses[op.operationId] ??= {});
            seen[res.status] = (seen[res.status] ?? 0) + 1;
            const text = await res.text();
            const where = `${op.operationId} ${method.toUpperCase()} ${target} ${JSON.stringify(body) ?? ''}`;
            const documented = op.responses[String(res.status)];
            if (!documented) {
              problems.push(`${where} → undocumented ${res.status} ${text.slice(0, 300)}`);
              return;
            }
            if (res.status === 400) {
              const messages = [JSON.parse(text).message].flat() as string[];
              if (messages.length > 0 && messages.every((m) => listed.some((r) => r.test(m)))) {
                counts.listed400++;
              } else problems.push(`${where} → 400 for a request the document allows: ${text.slice(0, 400)}`);
            }
            const types = Object.keys(documented.content ?? {});
            if (types.length === 0) return;
            const type = res.headers.get('content-type') ?? '';
            if (!contentTypeDocumented(type, types)) {
              problems.push(
                `${where} → ${res.status} with content type ${type}, documented: ${types.join(', ')}`,
              );
              return;
            }
            const json = types.find((x) => x === 'application/json');
            if (json && type.startsWith('application/json')) {
              const valid = validator(`${pointer}/responses/${res.status}/content/application~1json/schema`);
              if (!valid(JSON.parse(text))) {
                problems.push(`${where} → ${res.status} off its schema: ${ajv.errorsText(valid.errors)}`);
              }
            }
          }),
          { seed: SEED, numRuns: RUNS, endOnFailure: true },
        );
      }
    }
    ctx.diagnostic(`seed ${SEED}: ${JSON.stringify(counts)}`);
    if (process.env.CONFORMANCE_VERBOSE) ctx.diagnostic(JSON.stringify(statuses));
    // One line per operation: how many of its requests went wrong, and the first of them.
    const byOperation = new Map<string, string[]>();
    for (const problem of problems) {
      const op = problem.split(' ')[0]!;
      byOperation.set(op, [...(byOperation.get(op) ?? []), problem]);
    }
    const report = [...byOperation.values()].map((list) => `${list.length} × ${list[0]!.slice(0, 600)}`);
    assert.equal(
      problems.length,
      0,
      `seed ${SEED} (rerun with CONFORMANCE_SEED=${SEED}):\n${report.join('\n')}`,
    );
    assert.ok(counts.requests > Object.keys(doc.paths).length * RUNS * 0.7, JSON.stringify(counts));
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { newId } from '../../src/lib/ids.js';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';

// The customer API of the contact panel: reading, visibility across teams and accounts, name and
// attributes, attribute definitions, notes and their edits, merges, and the events each sends.

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const NOT_FOUND = { statusCode: 404, message: 'Not Found', error: 'Not Found' };
const badRequest = (message: string | string[]) => ({ statusCode: 400, message, error: 'Bad Request' });

function expectStatus(res: TestResponse, status: number, label = ''): void {
  assert.equal(res.status, status, `${label} ${JSON.stringify(res.body)}`);
}

describe('customers API', () => {
  let t: TestApp;
  let f: Fixture;
  let other: Fixture;
  let db: pg.Pool;
  const admin = () => bearer(f.adminToken);
  const agent = (i: number) => bearer(f.agents[i]!.token);
  const get = (path: string, headers: Record<string, string>) => t.request('GET', path, { headers });
  const send = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
    t.request(method, path, { headers, body });
  const customerOfChat = async (chatId: string) =>
    (await get(`/api/chats/${chatId}`, admin())).json.customerId as string;
  let seq = 0;
  const number = () => `55119${String(Date.now() % 1e6).padStart(6, '0')}${String(seq++).padStart(2, '0')}`;
  const eventsSince = async (after: number, headers: Record<string, string>) =>
    ((await get(`/api/events?after=${after}&limit=500`, headers)).json.events as {
      event: string;
      seq: number;
      data: Record<string, unknown>;
    }[]) ?? [];
  const lastSeq = async () =>
    (await db.query<{ s: string }>('SELECT coalesce(max(seq), 0) AS s FROM events')).rows[0]!.s;

  before(async () => {
    t = await startTestApp({ env: { ATENDE_ROLES: 'api' } });
    f = await seedAccount(t.server.services);
    other = await seedAccount(t.server.services);
    db = new pg.Pool({ connectionString: t.databaseUrl, max: 2 });
  });
  after(async () => {
    await db?.end();
    await t?.close();
  });

  it('a customer: identities per channel, last seen, attributes and labels; the chat names it', async () => {
    const phone = number();
    const first = await f.inbound(0, phone, 'Oi', 'Rita Souza');
    const second = await f.inbound(1, phone, 'Oi de novo');
    const id = await customerOfChat(first);
    assert.equal(await customerOfChat(second), id);
    const labelId = newId();
    await db.query(`INSERT INTO labels (id, account_id, name, color) VALUES ($1, $2, 'VIP', '#ff0000')`, [
      labelId,
      f.accountId,
    ]);
    await db.query(`INSERT INTO customer_labels (customer_id, label_id, account_id) VALUES ($1, $2, $3)`, [
      id,
      labelId,
      f.accountId,
    ]);
    const res = await get(`/api/customers/${id}`, admin());
    expectStatus(res, 200);
    const c = res.json;
    assert.equal(c.id, id);
    assert.equal(c.name, 'Rita Souza');
    assert.deepEqual(c.attributes, {});
    assert.deepEqual(c.labels, [{ id: labelId, name: 'VIP', color: '#ff0000' }]);
    const identities = c.identities as Record<string, unknown>[];
    assert.deepEqual(
      identities.map((i) => [i.channelId, i.channelName, i.provider, i.type, i.value]),
      [
        [f.channels[0]!.id, 'Canal 0', 'sandbox', 'phone', phone],
        [f.channels[1]!.id, 'Canal 1', 'sandbox', 'phone', phone],
      ],
    );
    assert.equal(typeof c.lastSeenAt, 'string');
    assert.equal(new Date(c.createdAt as string).toISOString(), c.createdAt);
    // The Channel API's chat stays the contract's: no customerId there.
    const api = await get(`/channel-api/chats?channelId=${f.channels[0]!.id}`, f.authHeader());
    const listed = (api.json.chats as Record<string, unknown>[]).find((x) => x.id === first)!;
    assert.equal('customerId' in listed, false);
    // The agent list has it.
    const mine = await get(`/api/chats?channelId=${f.channels[0]!.id}&queue=Espera`, admin());
    assert.equal((mine.json.chats as Record<string, unknown>[]).find((x) => x.id === first)!.customerId, id);
  });

  it('visibility: agents see customers of their teams’ chats; other accounts see nothing', async () => {
    const phone = number();
    const id = await customerOfChat(await f.inbound(0, phone, 'Oi', 'Caio'));
    expectStatus(await get(`/api/customers/${id}`, agent(0)), 200, 'agent of team 0');
    const hidden = await get(`/api/customers/${id}`, agent(1));
    expectStatus(hidden, 404, 'agent of team 1');
    assert.deepEqual(hidden.body, NOT_FOUND);
    const foreign = await get(`/api/customers/${id}`, bearer(other.adminToken));
    assert.deepEqual(foreign.body, NOT_FOUND);
    for (const [method, path, body] of [
      ['PATCH', `/api/customers/${id}`, { name: 'x' }],
      ['GET', `/api/customers/${id}/notes`, undefined],
      ['POST', `/api/customers/${id}/notes`, { body: 'x' }],
    ] as const) {
      expectStatus(await send(method, path, agent(1), body), 404, `${method} ${path} by agent 1`);
      expectStatus(await send(method, path, bearer(other.adminToken), body), 404, `${method} ${path} abroad`);
    }
    // Lists follow the same rule.
    const search = async (headers: Record<string, string>) =>
      ((await get(`/api/customers?q=${phone.slice(-8)}`, headers)).json.customers as { id: string }[]).map(
        (x) => x.id,
      );
    assert.deepEqual(await search(agent(0)), [id]);
    assert.deepEqual(await search(agent(1)), []);
    assert.deepEqual(await search(bearer(other.adminToken)), []);
    // Once the customer writes on a channel of team 1, its agent sees them too.
    await f.inbound(1, phone, 'Oi');
    expectStatus(await get(`/api/customers/${id}`, agent(1)), 200, 'agent 1 after a chat in team 1');
    assert.deepEqual(await search(agent(1)), [id]);
  });

  it('name and attributes: checked against the definitions; customer.update to whoever sees it', async () => {
    const id = await customerOfChat(await f.inbound(0, number(), 'Oi', 'Ana'));
    const define = (body: unknown, headers = admin()) =>
      send('POST', '/api/customer-attributes', headers, body);
    const forbidden = await define({ key: 'plan', label: 'Plano', type: 'list', options: ['a'] }, agent(0));
    expectStatus(forbidden, 403);
    assert.equal(forbidden.json.message, 'Permissão necessária: customers:manage');
    expectStatus(
      await define({ key: 'plan', label: 'Plano', type: 'list', options: ['Ouro', 'Prata'] }),
      201,
    );
    expectStatus(await define({ key: 'seats', label: 'Licenças', type: 'number' }), 201);
    expectStatus(await define({ key: 'since', label: 'Cliente desde', type: 'date' }), 201);
    expectStatus(await define({ key: 'company', label: 'Empresa', type: 'text' }), 201);
    const dup = await define({ key: 'plan', label: 'Outro', type: 'text' });
    expectStatus(dup, 409);
    assert.deepEqual(
      await define({ key: 'x', label: 'X', type: 'list' }).then((r) => r.body),
      badRequest('options must list the values of a list attribute (1 to 100)'),
    );
    expectStatus(await define({ key: 'Bad Key', label: 'X', type: 'text' }), 400);
    const defs = await get('/api/customer-attributes', agent(0));
    assert.deepEqual(
      (defs.json as unknown as { key: string }[]).length >= 4 &&
        (defs.body as { key: string; type: string }[]).slice(0, 4).map((d) => [d.key, d.type]),
      [
        ['plan', 'list'],
        ['seats', 'number'],
        ['since', 'date'],
        ['company', 'text'],
      ],
    );

    const bad = await send('PATCH', `/api/customers/${id}`, agent(0), {
      attributes: { plan: 'Bronze', seats: 'many', since: '2024-02-30', nope: 'x' },
    });
    expectStatus(bad, 400);
    assert.deepEqual((bad.json.message as string[]).sort(), [
      'attributes.nope is not a defined attribute',
      'attributes.plan must be one of: Ouro, Prata',
      'attributes.seats must be a number',
      'attributes.since must be a date (YYYY-MM-DD)',
    ]);
    const pt = await t.request('PATCH', `/api/customers/${id}`, {
      headers: { ...agent(0), 'accept-language': 'pt-BR' },
      body: { attributes: { nope: 'x' } },
    });
    assert.deepEqual(pt.json.message, ['attributes.nope não é um atributo definido']);

    const before = await lastSeq();
    const ok = await send('PATCH', `/api/customers/${id}`, agent(0), {
      name: '  Ana Lima ',
      attributes: { plan: 'Ouro', seats: 12, since: '2024-02-29', company: 'Padaria' },
    });
    expectStatus(ok, 200);
    assert.equal(ok.json.name, 'Ana Lima');
    assert.deepEqual(ok.json.attributes, {
      plan: 'Ouro',
      seats: 12,
      since: '2024-02-29',
      company: 'Padaria',
    });
    const removed = await send('PATCH', `/api/customers/${id}`, agent(0), { attributes: { company: null } });
    assert.deepEqual(removed.json.attributes, { plan: 'Ouro', seats: 12, since: '2024-02-29' });

    const seen = (await eventsSince(Number(before), agent(0))).filter((e) => e.event === 'customer.update');
    assert.equal(seen.length, 2);
    assert.equal((seen[0]!.data.customer as { name: string }).name, 'Ana Lima');
    const unseen = (await eventsSince(Number(before), agent(1))).filter((e) => e.event === 'customer.update');
    assert.deepEqual(unseen, []);

    // A definition removed takes its values with it.
    const seats = (defs.body as { id: string; key: string }[]).find((d) => d.key === 'seats')!;
    expectStatus(await send('DELETE', `/api/customer-attributes/${seats.id}`, agent(0)), 403);
    expectStatus(await send('DELETE', `/api/customer-attributes/${seats.id}`, admin()), 204);
    assert.deepEqual((await get(`/api/customers/${id}`, admin())).json.attributes, {
      plan: 'Ouro',
      since: '2024-02-29',
    });
    // Another account's definitions are its own: the same key is free there, and ours are not its.
    expectStatus(
      await send('POST', '/api/customer-attributes', bearer(other.adminToken), {
        key: 'plan',
        label: 'P',
        type: 'text',
      }),
      201,
    );
    const theirs = (await get('/api/customer-attributes', bearer(other.adminToken))).body as { id: string }[];
    assert.equal(theirs.length, 1);
    const plan = (defs.body as { id: string; key: string }[]).find((d) => d.key === 'plan')!;
    expectStatus(
      await send('PATCH', `/api/customer-attributes/${plan.id}`, bearer(other.adminToken), { label: 'x' }),
      404,
    );
  });

  it('notes: written by who sees the customer, edited by the author (edits kept), deleted by author or admin', async () => {
    const id = await customerOfChat(await f.inbound(0, number(), 'Oi', 'Bia'));
    const created = await send('POST', `/api/customers/${id}/notes`, agent(0), { body: ' Prefere e-mail ' });
    expectStatus(created, 201);
    const note = created.json;
    assert.equal(note.body, 'Prefere e-mail');
    assert.deepEqual(note.author, { id: f.agents[0]!.id, name: 'Agente 0' });
    assert.equal(note.editedAt, null);
    assert.equal(note.edits, 0);
    expectStatus(await send('POST', `/api/customers/${id}/notes`, agent(0), { body: '   ' }), 400);

    const byAdmin = await send('PATCH', `/api/customers/${id}/notes/${note.id}`, admin(), { body: 'x' });
    expectStatus(byAdmin, 403);
    assert.equal(byAdmin.json.message, 'Only its author may edit a note');
    const edited = await send('PATCH', `/api/customers/${id}/notes/${note.id}`, agent(0), {
      body: 'Prefere WhatsApp',
    });
    expectStatus(edited, 200);
    assert.equal(edited.json.body, 'Prefere WhatsApp');
    assert.equal(typeof edited.json.editedAt, 'string');
    assert.equal(edited.json.edits, 1);
    const edits = await get(`/api/customers/${id}/notes/${note.id}/edits`, agent(0));
    assert.deepEqual(
      (edits.body as Record<string, unknown>[]).map((e) => [e.previousBody, (e.editor as { id: string }).id]),
      [['Prefere e-mail', f.agents[0]!.id]],
    );
    const page = await get(`/api/customers/${id}/notes`, admin());
    assert.equal(page.json.total, 1);
    assert.equal((page.json.notes as { body: string }[])[0]!.body, 'Prefere WhatsApp');
    // Another customer's path does not reach the note.
    const elsewhere = await customerOfChat(await f.inbound(0, number()));
    expectStatus(await send('DELETE', `/api/customers/${elsewhere}/notes/${note.id}`, admin()), 404);
    expectStatus(await send('DELETE', `/api/customers/${id}/notes/${note.id}`, admin()), 204);
    assert.equal((await get(`/api/customers/${id}/notes`, admin())).json.total, 0);
  });

  it('merge: an admin joins two customers; contacts, chats, notes and labels follow; recorded; customer.merge', async () => {
    const keep = await customerOfChat(await f.inbound(0, number(), 'Oi', 'Davi'));
    const goneChat = await f.inbound(1, number(), 'Oi', 'Davi Souza');
    const gone = await customerOfChat(goneChat);
    await send('POST', `/api/customers/${gone}/notes`, agent(1), { body: 'Nota do outro' });
    const merge = (id: string, customerId: string, headers = admin()) =>
      send('POST', `/api/customers/${id}/merge`, headers, { customerId });
    expectStatus(await merge(keep, gone, agent(0)), 403);
    assert.deepEqual((await merge(keep, keep)).body, badRequest('A customer cannot be merged into itself'));
    const foreignChat = await other.inbound(0, number());
    const foreign = (await get(`/api/chats/${foreignChat}`, bearer(other.adminToken))).json
      .customerId as string;
    assert.deepEqual(
      (await merge(keep, foreign)).body,
      badRequest('customerId is not a customer of the account'),
    );
    expectStatus(await merge(foreign, keep), 404);

    const before = await lastSeq();
    const merged = await merge(keep, gone);
    expectStatus(merged, 200);
    assert.equal(merged.json.id, keep);
    assert.equal((merged.json.identities as unknown[]).length, 2);
    assert.equal(await customerOfChat(goneChat), keep);
    expectStatus(await get(`/api/customers/${gone}`, admin()), 404);
    const notes = await get(`/api/customers/${keep}/notes`, admin());
    assert.deepEqual(
      (notes.json.notes as { body: string }[]).map((n) => n.body),
      ['Nota do outro'],
    );
    const recorded = await db.query(
      'SELECT customer_id, merged_customer_id, merged_name, contact_ids, actor_id FROM customer_merges WHERE merged_customer_id = $1',
      [gone],
    );
    assert.equal(recorded.rows.length, 1);
    assert.equal(recorded.rows[0].customer_id, keep);
    assert.equal(recorded.rows[0].merged_name, 'Davi Souza');
    assert.equal(recorded.rows[0].contact_ids.length, 1);
    assert.equal(recorded.rows[0].actor_id, f.admin.userId);
    // Both teams' agents hear of it: each had one of the two customers' chats.
    for (const i of [0, 1]) {
      const got = (await eventsSince(Number(before), agent(i))).filter((e) => e.event === 'customer.merge');
      assert.equal(got.length, 1, `agent ${i}`);
      assert.equal(got[0]!.data.mergedCustomerId, gone);
    }
    // Now agent 1 sees the merged customer through its chat on channel 1.
    expectStatus(await get(`/api/customers/${keep}`, agent(1)), 200);
  });

  it('the contacts page: search by any form of the number, name without accents, label and attribute', async () => {
    const phone = '5521987650001';
    const id = await customerOfChat(await f.inbound(0, phone, 'Oi', 'Joana Araújo'));
    const ids = async (query: string, headers = admin()) => {
      const res = await get(`/api/customers?${query}`, headers);
      expectStatus(res, 200, query);
      return (res.json.customers as { id: string }[]).map((c) => c.id);
    };
    assert.deepEqual(await ids(`q=${encodeURIComponent('(21) 98765-0001')}`), [id]);
    assert.deepEqual(await ids(`q=${encodeURIComponent('+55 21 98765 0001')}`), [id]);
    assert.deepEqual(await ids('q=araujo'), [id]);
    assert.deepEqual(await ids('q=JOANA'), [id]);
    assert.deepEqual(await ids('q=%25'), []);
    const labelId = newId();
    await db.query(`INSERT INTO labels (id, account_id, name, color) VALUES ($1, $2, 'Atacado', '#00ff00')`, [
      labelId,
      f.accountId,
    ]);
    await db.query(`INSERT INTO customer_labels (customer_id, label_id, account_id) VALUES ($1, $2, $3)`, [
      id,
      labelId,
      f.accountId,
    ]);
    assert.deepEqual(await ids(`label=${labelId}`), [id]);
    await send('POST', '/api/customer-attributes', admin(), { key: 'tier', label: 'Nível', type: 'number' });
    await send('PATCH', `/api/customers/${id}`, admin(), { attributes: { tier: 3 } });
    assert.deepEqual(await ids('attr.tier=3'), [id]);
    assert.deepEqual(await ids('attr.tier=3.0'), [id]);
    assert.deepEqual(await ids('attr.tier=4'), []);
    assert.deepEqual(await ids(`attr.tier=3&label=${labelId}&q=joana`), [id]);
    const bad = await get('/api/customers?attr.nope=1', admin());
    assert.deepEqual(bad.body, badRequest(['attributes.nope is not a defined attribute']));
    expectStatus(await get('/api/customers?other=1', admin()), 400);
    const page = await get('/api/customers?limit=2&page=1', admin());
    assert.equal((page.json.customers as unknown[]).length, 2);
    assert.equal(page.json.hasNextPage, true);
    assert.ok((page.json.total as number) > 2);
  });
});

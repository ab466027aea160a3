import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CsvReader, csvLine, unguard } from '../../src/modules/contacts/csv.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';

// The contacts page's CSV: the export streamed from a cursor (visibility and filters as the list),
// the import read as it arrives (bounded, each line's problem reported by its number).

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Parses a whole CSV text with the import's reader, fed in small chunks. */
function parse(text: string, chunk = 7): string[][] {
  const reader = new CsvReader();
  const bytes = Buffer.from(text);
  const out: string[][] = [];
  for (let i = 0; i < bytes.length; i += chunk)
    out.push(...reader.write(bytes.subarray(i, i + chunk)).map((r) => r.fields));
  out.push(...reader.end().map((r) => r.fields));
  return out;
}

describe('CSV reading and writing', () => {
  it('reads quotes, doubled quotes, line breaks inside quotes, CRLF and multi-byte characters split across chunks', () => {
    const text = '\uFEFFid,name\r\n1,"Souza, Ana"\n2,"Diz ""oi""\nem duas linhas"\n3,João Ção';
    assert.deepEqual(parse(text), [
      ['id', 'name'],
      ['1', 'Souza, Ana'],
      ['2', 'Diz "oi"\nem duas linhas'],
      ['3', 'João Ção'],
    ]);
  });

  it('reads CRLF split across chunks as one line break', () => {
    for (const chunk of [1, 2, 3, 5])
      assert.deepEqual(parse('a,b\r\nc,d\r\n', chunk), [
        ['a', 'b'],
        ['c', 'd'],
      ]);
  });

  it('writes what it reads back, formula-like values guarded', () => {
    const fields = ['=cmd()', 'a,b', 'say "x"', '+5511', 'plain'];
    const [read] = parse(csvLine(fields));
    assert.deepEqual(read!.map(unguard), fields);
    assert.equal(read![0], "'=cmd()");
  });
});

describe('customers CSV', () => {
  let t: TestApp;
  let f: Fixture;
  const admin = () => bearer(f.adminToken);
  const importCsv = (csv: string, headers: Record<string, string> = admin(), channel = f.channels[0]!.id) =>
    t.request('POST', `/api/customers/import?channelId=${channel}`, {
      headers: { ...headers, 'content-type': 'text/csv' },
      raw: csv,
    });
  const exportCsv = async (query = '', headers = admin()) => {
    const res = await fetch(`${t.url}/api/customers/export${query}`, { headers });
    assert.equal(res.status, 200, await res.clone().text());
    assert.match(res.headers.get('content-type') ?? '', /^text\/csv/);
    return parse(await res.text());
  };

  before(async () => {
    t = await startTestApp({ env: { ATENDE_ROLES: 'api' } });
    f = await seedAccount(t.server.services);
    await t.request('POST', '/api/customer-attributes', {
      headers: admin(),
      body: { key: 'plan', label: 'Plano', type: 'list', options: ['Ouro', 'Prata'] },
    });
  });
  after(async () => t?.close());

  it('imports: creates, updates by id or by number, reports each bad line by its number', async () => {
    const existing = await f.inbound(1, '5511955550001', 'Oi', 'Rui');
    const existingCustomer = (await t.request('GET', `/api/chats/${existing}`, { headers: admin() })).json
      .customerId as string;
    const csv = [
      'name,phones,emails,attr.plan',
      'Marta,+55 11 95555-0002,marta@example.com,Ouro',
      'Rui Lima,5511955550001,,Prata', // the number is Rui's (channel 1): updated, and added on channel 0
      'Sem nada,,,',
      'Errada,123,,Bronze',
      '"Linha, com vírgula",5511955550003;5511955550004,,',
    ].join('\n');
    const res = await importCsv(csv);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.json, {
      created: 2,
      updated: 1,
      failed: 2,
      errors: [
        { line: 4, message: 'a line without id needs a phone or an e-mail' },
        { line: 5, message: '123: not a valid phone number; attributes.plan must be one of: Ouro, Prata' },
      ],
      errorsTruncated: false,
    });
    const rui = (await t.request('GET', `/api/customers/${existingCustomer}`, { headers: admin() })).json;
    assert.equal(rui.name, 'Rui Lima');
    assert.deepEqual(rui.attributes, { plan: 'Prata' });
    assert.deepEqual(
      (rui.identities as { channelId: string }[]).map((i) => i.channelId).sort(),
      [f.channels[0]!.id, f.channels[1]!.id].sort(),
    );
    const marta = (await t.request('GET', '/api/customers?q=marta', { headers: admin() })).json.customers as {
      id: string;
      identities: { type: string; value: string }[];
      attributes: unknown;
    }[];
    assert.equal(marta.length, 1);
    assert.deepEqual(
      marta[0]!.identities.map((i) => [i.type, i.value]),
      [
        ['phone', '5511955550002'],
        ['email', 'marta@example.com'],
      ],
    );
    assert.deepEqual(marta[0]!.attributes, { plan: 'Ouro' });
    // An id updates that customer; a number of another customer on the same line is refused.
    const again = await importCsv(
      `id,name,phones\n${marta[0]!.id},Marta Reis,\n${marta[0]!.id},,5511955550001\nffffffffffffffffffffffff,X,`,
    );
    assert.deepEqual(again.json, {
      created: 0,
      updated: 1,
      failed: 2,
      errors: [
        { line: 3, message: 'a number or e-mail of the line belongs to another customer' },
        { line: 4, message: 'id is not a customer of the account' },
      ],
      errorsTruncated: false,
    });
    // In Portuguese when asked.
    const pt = await importCsv('name,phones\nX,', { ...admin(), 'accept-language': 'pt-BR' });
    assert.deepEqual(pt.json.errors, [
      { line: 2, message: 'uma linha sem id precisa de um telefone ou um e-mail' },
    ]);
  });

  it('refuses a bad header, another account’s channel, agents and a file too large', async () => {
    const header = await importCsv('nome,telefone\nA,1');
    assert.equal(header.status, 400);
    assert.deepEqual(header.json.message, ['column nome is not known', 'column telefone is not known']);
    assert.equal((await importCsv('name,attr.nope\nA,1')).status, 400);
    const other = await seedAccount(t.server.services);
    const foreign = await importCsv('name,phones\nA,5511955550009', admin(), other.channels[0]!.id);
    assert.deepEqual(foreign.json.message, 'channelId is not a channel of the account');
    const agent = await importCsv('name,phones\nA,5511955550009', bearer(f.agents[0]!.token));
    assert.equal(agent.status, 403);
    const big = await importCsv(`name,phones\n${'A,5511955550009\n'.repeat(400_000)}`);
    assert.equal(big.status, 413);
    assert.equal(big.json.message, 'The file is larger than 5 MiB');
    const json = await t.request('POST', `/api/customers/import?channelId=${f.channels[0]!.id}`, {
      headers: admin(),
      body: { name: 'A' },
    });
    assert.equal(json.status, 415);
    const none = await t.request('POST', `/api/customers/import?channelId=${f.channels[0]!.id}`, {
      headers: admin(),
    });
    assert.deepEqual(none.json.message, 'The body must be the CSV file, sent as text/csv');
    const quote = await importCsv('name,phones\n"A,5511955550009\n');
    assert.equal(quote.status, 400);
  });

  it('exports what the user may see, filtered as the list, streamed in batches; the import reads it back', async () => {
    // More customers than one cursor batch (500).
    const csv = ['name,phones,attr.plan'];
    for (let i = 0; i < 620; i++)
      csv.push(`Lote ${i},55119666${String(i).padStart(5, '0')},${i % 2 ? 'Ouro' : 'Prata'}`);
    const made = await importCsv(csv.join('\n'));
    assert.equal(made.json.created, 620, JSON.stringify(made.json.errors));

    const all = await exportCsv();
    assert.deepEqual(all[0], [
      'id',
      'name',
      'phones',
      'emails',
      'createdAt',
      'lastSeenAt',
      'labels',
      'attr.plan',
    ]);
    const lots = all.slice(1).filter((r) => r[1]!.startsWith('Lote '));
    assert.equal(lots.length, 620);
    assert.equal(new Set(all.slice(1).map((r) => r[0])).size, all.length - 1);
    const gold = await exportCsv('?attr.plan=Ouro&q=lote');
    assert.equal(gold.length - 1, 310);
    assert.ok(gold.slice(1).every((r) => r[7] === 'Ouro'));
    // An agent exports only the customers of their teams' chats: none of the imported ones.
    const agentRows = await exportCsv('?q=lote', bearer(f.agents[0]!.token));
    assert.deepEqual(agentRows.slice(1), []);
    // Read back: every line names an existing customer, so all are updates.
    const back = gold.map((r) => csvLine(r)).join('');
    const res = await importCsv(back);
    assert.deepEqual([res.json.created, res.json.updated, res.json.failed], [0, 310, 0]);
    const bad = await fetch(`${t.url}/api/customers/export?attr.nope=1`, { headers: admin() });
    assert.equal(bad.status, 400);
  });
});

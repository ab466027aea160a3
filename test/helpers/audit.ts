import assert from 'node:assert/strict';
import type { TestApp, TestResponse } from './app.js';
import type { Fixture } from './fixtures.js';

/** A line of the audit log as `listAuditLog` answers it. */
export interface AuditEntry {
  id: string;
  actor: { type: string; id: string | null; name: string | null };
  action: string;
  target: { type: string; id: string | null };
  details: Record<string, unknown>;
  ip: string | null;
  userAgent: string | null;
  createdAt: string;
}

export const bearer = (token: string) => ({
  authorization: `Bearer ${token}`,
  'user-agent': 'audit-test/1.0',
});

export function ok(res: TestResponse, status = 200): void {
  assert.equal(res.status, status, JSON.stringify(res.body));
}

/** The id of the account's newest line ('0' without any): what an action's lines come after. */
export async function auditMark(f: Fixture): Promise<string> {
  const row = await f.services.db
    .selectFrom('audit_log')
    .select((eb) => eb.fn.max('id').as('m'))
    .where('account_id', '=', f.accountId)
    .executeTakeFirst();
  return String(row?.m ?? '0');
}

/** The account's lines written after `since`, oldest first, read through `listAuditLog` as its admin. */
export async function auditSince(t: TestApp, f: Fixture, since: string): Promise<AuditEntry[]> {
  const res = await t.request('GET', '/api/audit-log?limit=200', { headers: bearer(f.adminToken) });
  ok(res);
  return (res.body as { entries: AuditEntry[] }).entries
    .filter((e) => BigInt(e.id) > BigInt(since))
    .reverse();
}

/** `[action, actor type, actor id, target type, target id]` of each line: what every test compares. */
export const shapes = (lines: AuditEntry[]) =>
  lines.map((l) => [l.action, l.actor.type, l.actor.id, l.target.type, l.target.id]);

/** Runs an admin action and answers the lines it wrote, oldest first. */
export async function linesOf(t: TestApp, f: Fixture, act: () => Promise<unknown>): Promise<AuditEntry[]> {
  const since = await auditMark(f);
  await act();
  return auditSince(t, f, since);
}

/** None of `values` (secrets, a person's name or number) appears anywhere in the lines. */
export function assertWithout(lines: AuditEntry[], values: string[]): void {
  const text = JSON.stringify(lines);
  for (const v of values) assert.ok(!text.includes(v), `the audit log holds ${v}: ${text}`);
}

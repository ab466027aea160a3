/**
 * Where a conversation stands against its SLA targets, as the live board counts it and the chat list
 * filters it (`sla=at_risk|breached`, docs/adr/0090-live-board.md). SQL text over `chats` (prefix
 * `c`, e.g. `'c.'` or `''`), no parameters, so statements that embed it stay prepared-statement
 * friendly.
 */

/** A target not yet breached is at risk when due within this long (the lists' "near" marker, ADR 88). */
export const SLA_AT_RISK_MINUTES = 15;

/**
 * A target missed: marked by the breach loop, or past due and not marked yet (the loop may be a
 * moment late). A null due instant (no target) compares as unknown: `coalesce` makes it false, so the
 * condition can be negated.
 */
export const slaBreachedSql = (c: string) =>
  `(${c}first_response_breached_at IS NOT NULL OR ${c}resolution_breached_at IS NOT NULL` +
  ` OR coalesce(${c}first_responded_at IS NULL AND ${c}first_response_due_at <= now(), false)` +
  ` OR coalesce(${c}resolution_due_at <= now(), false))`;

const SOON = `now() + interval '${SLA_AT_RISK_MINUTES} minutes'`;

/** A running target due within `SLA_AT_RISK_MINUTES`, none missed yet. */
export const slaAtRiskSql = (c: string) =>
  `(NOT ${slaBreachedSql(c)} AND (coalesce(${c}first_responded_at IS NULL AND ${c}first_response_due_at <= ${SOON}, false)` +
  ` OR coalesce(${c}resolution_due_at <= ${SOON}, false)))`;

/** The SLA filter of a list. */
export type SlaFilter = 'at_risk' | 'breached';

export const slaFilterSql = (f: SlaFilter, c: string) =>
  f === 'breached' ? slaBreachedSql(c) : slaAtRiskSql(c);

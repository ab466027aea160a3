/**
 * A timestamp expression written as JavaScript's toISOString writes it (UTC, milliseconds; both
 * truncate the microseconds PostgreSQL keeps), for JSON that PostgreSQL builds.
 */
export const isoTime = (expression: string) =>
  `to_char(${expression} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** A validated integer written into a statement's text (LIMIT, OFFSET, a lock timeout): see src/db/prepared.ts. */
export function sqlInteger(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`not a row count: ${n}`);
  return String(n);
}

/**
 * The smallest power of two at least `limit`: a page's literal bound, so that the page sizes 1–100
 * share eight statement texts (a page size under it is a parameter; src/db/prepared.ts).
 */
export function limitBucket(limit: number): number {
  let bucket = 1;
  while (bucket < limit) bucket *= 2;
  return bucket;
}

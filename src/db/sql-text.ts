/**
 * A timestamp expression written as JavaScript's toISOString writes it (UTC, milliseconds; both
 * truncate the microseconds PostgreSQL keeps), for JSON that PostgreSQL builds.
 */
export const isoTime = (expression: string) =>
  `to_char(${expression} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

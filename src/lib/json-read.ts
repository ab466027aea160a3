/**
 * Reading JSON of unknown shape (request bodies, providers' webhooks) without casts: each helper
 * answers the value when it has the expected type.
 */

export type JsonObject = Record<string, unknown>;

/** An object: not null, not an array. */
export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function obj(v: unknown): JsonObject | undefined {
  return isJsonObject(v) ? v : undefined;
}

/** The array, or none. */
export function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** A string with at least one character. */
export function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** A finite number, or a numeric string read as one. */
export function num(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
}

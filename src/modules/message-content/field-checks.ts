import { isJsonObject, type JsonObject } from '../../lib/json-read.js';

/**
 * The sentences of a refused message (each a 400 message, paths with the caller's prefix) and the
 * field checks every part of `prepareMessage` words them with.
 */

/** Collects the 400 sentences; paths are reported with the caller's prefix. */
export class Issues {
  readonly list: string[] = [];
  constructor(private readonly prefix: string) {}
  add(path: string, sentence: string): void {
    this.list.push(`${this.prefix}${path} ${sentence}`);
  }
  /** A sentence that already starts with its path (from parseAmount). */
  worded(sentence: string): void {
    this.list.push(`${this.prefix}${sentence}`);
  }
  /** A sentence the contract fixes word for word, without a path. */
  exact(sentence: string): void {
    this.list.push(sentence);
  }
}

export function isNonNegativeInteger(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

export function isHttpsUrl(s: string): boolean {
  try {
    const url = new URL(s);
    return url.protocol === 'https:' && url.hostname !== '';
  } catch {
    return false;
  }
}

/** Length in characters (code points), as the provider counts it; stops early on long strings. */
export function longerThan(s: string, max: number): boolean {
  if (s.length <= max) return false;
  let n = 0;
  for (const _ of s) if (++n > max) return true;
  return false;
}

export function requireObject(v: unknown, path: string, issues: Issues): JsonObject | undefined {
  if (v === undefined || v === null) {
    issues.add(path, 'should not be empty');
    return undefined;
  }
  if (!isJsonObject(v)) {
    issues.add(path, 'must be an object');
    return undefined;
  }
  return v;
}

export function requireArray(v: unknown, path: string, issues: Issues): unknown[] | undefined {
  if (v === undefined || v === null) {
    issues.add(path, 'should not be empty');
    return undefined;
  }
  if (!Array.isArray(v)) {
    issues.add(path, 'must be an array');
    return undefined;
  }
  if (v.length === 0) {
    issues.add(path, 'must contain at least 1 elements');
    return undefined;
  }
  return v;
}

export function requireString(v: unknown, path: string, issues: Issues, max?: number): string | undefined {
  if (v === undefined || v === null) {
    issues.add(path, 'should not be empty');
    return undefined;
  }
  if (typeof v !== 'string') {
    issues.add(path, 'must be a string');
    return undefined;
  }
  if (v.trim() === '') {
    issues.add(path, 'should not be empty');
    return undefined;
  }
  if (max !== undefined && longerThan(v, max)) {
    issues.add(path, `must be shorter than or equal to ${max} characters`);
    return undefined;
  }
  return v;
}

/** An optional string; '' counts as absent. */
export function optionalString(v: unknown, path: string, issues: Issues, max?: number): string | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') {
    issues.add(path, 'must be a string');
    return undefined;
  }
  if (max !== undefined && longerThan(v, max)) {
    issues.add(path, `must be shorter than or equal to ${max} characters`);
    return undefined;
  }
  return v;
}

export function requireEnum<T extends string>(
  v: unknown,
  path: string,
  allowed: readonly T[],
  issues: Issues,
): T | undefined {
  if (v === undefined || v === null || v === '') {
    issues.add(path, 'should not be empty');
    return undefined;
  }
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
    issues.add(path, `must be one of the following values: ${allowed.join(', ')}`);
    return undefined;
  }
  return v as T;
}

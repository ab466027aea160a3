import type { FastifyInstance } from 'fastify';
import { AppError } from './errors.js';
import { MAX_VALIDATION_MESSAGES } from './validation-messages.js';

/**
 * What schema validation lets through but the platform cannot take, refused with a 400 naming the
 * field: NUL characters and unpaired surrogates (PostgreSQL refuses them in text and jsonb, which would
 * be a 500), and numbers outside the safe-integer range (JavaScript cannot hold them exactly,
 * PostgreSQL's bigint overflows; Ajv's query coercion even turns `limit=1e400` into Infinity and then
 * skips the range checks).
 * A preHandler, so it runs after validation and the order of answers (401, 429, 404, 400) stays.
 */
export function installInputGuard(app: FastifyInstance): void {
  app.addHook('preHandler', async (request) => {
    const problems = inputProblems(request.params, request.query, request.body);
    if (problems.length > 0) throw new AppError(400, problems);
  });
}

/** What the guard refuses in these values; empty when they pass. */
export function inputProblems(...values: unknown[]): string[] {
  const problems: string[] = [];
  for (const value of values) inspect(value, problems);
  return problems;
}

/** Walks plain objects and arrays without recursion, so nesting depth cannot overflow the stack. */
function inspect(root: unknown, problems: string[]): void {
  const stack: Array<{ value: unknown; path: string }> = [{ value: root, path: '' }];
  const name = (path: string) => path || 'body';
  while (stack.length > 0 && problems.length < MAX_VALIDATION_MESSAGES) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) problems.push(`${name(path)} must not contain null characters`);
      if (hasLoneSurrogate(value)) problems.push(`${name(path)} must not contain unpaired surrogates`);
    } else if (typeof value === 'number') {
      if (!(value <= Number.MAX_SAFE_INTEGER)) {
        problems.push(`${name(path)} must not be greater than ${Number.MAX_SAFE_INTEGER}`);
      } else if (!(value >= Number.MIN_SAFE_INTEGER)) {
        problems.push(`${name(path)} must not be less than ${Number.MIN_SAFE_INTEGER}`);
      }
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--)
        stack.push({ value: value[i], path: join(path, String(i)) });
    } else if (value !== null && typeof value === 'object' && isPlain(value)) {
      const entries = Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i]!;
        if (key.includes('\u0000')) problems.push(`${name(path)} must not contain null characters`);
        if (hasLoneSurrogate(key)) problems.push(`${name(path)} must not contain unpaired surrogates`);
        stack.push({ value: child, path: join(path, key) });
      }
    }
  }
}

/**
 * Half of a UTF-16 surrogate pair without its other half (JSON's `"\ud800"`): not a character, so
 * not valid UTF-8 for PostgreSQL's jsonb. The first test is a quick scan that ordinary text passes.
 */
function hasLoneSurrogate(value: string): boolean {
  return (
    /[\ud800-\udfff]/.test(value) &&
    /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(value)
  );
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

/** Parsed JSON and query strings; raw bodies (Buffers, streams) are not ours to look into. */
function isPlain(value: object): boolean {
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return false;
  return typeof (value as { pipe?: unknown }).pipe !== 'function';
}

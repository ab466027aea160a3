import { Ajv, type Options, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchema, FastifySchemaCompiler } from 'fastify';

// ajv-formats is CommonJS: under NodeNext its function is reached as `.default` (also set at run time).
const addFormats = addFormatsModule.default;

const OBJECT_ID = /^[0-9a-fA-F]{24}$/;

/**
 * Values (array items and object properties, at any depth) up to which a refused input gets every
 * problem reported; beyond it, only the first. Reporting everything costs work per value (and Ajv's
 * `uniqueItems` compares items pairwise), so on a large input it would let one request hold the
 * process for seconds; the first problem of such an input is almost always its size anyway.
 */
export const FULL_REPORT_MAX_VALUES = 2_000;

function makeAjv(coerceTypes: Options['coerceTypes'], allErrors: boolean): Ajv {
  const ajv = new Ajv({
    // Unknown fields are refused, not silently dropped.
    removeAdditional: false,
    allErrors,
    useDefaults: true,
    coerceTypes,
    strict: false,
    // OpenAPI's discriminator picks the oneOf branch by its tag, so only that branch's errors are
    // reported; verbose errors carry the failing schema, which words some of them (http/errors.ts).
    discriminator: true,
    verbose: true,
    formats: { objectid: OBJECT_ID },
  });
  addFormats(ajv);
  return ajv;
}

type Validator = ((data: unknown) => boolean) & { errors?: ValidateFunction['errors'] };

/**
 * Request validators per part. Query strings, path params and headers arrive as text, so their types
 * are coerced (`limit=20` is the integer 20). JSON bodies already carry types and are taken as sent:
 * `{"userId": 42}` is refused instead of becoming "42", and an amount's `25` (smallest unit) never
 * turns into `"25"` (major units).
 *
 * Each input is checked first by a validator that stops at the first problem (Ajv checks size
 * bounds such as `maxItems` before it looks at the items); only a refused input of at most
 * FULL_REPORT_MAX_VALUES values is checked again to list every problem, class-validator style.
 */
export function requestValidators(): FastifySchemaCompiler<FastifySchema> {
  return ({ schema, httpPart, url, method }) => {
    // A route schema is a module's constant: compiled once per part, whichever app asks again.
    const cache = typeof schema === 'object' && schema !== null ? compiled.get(schema) : undefined;
    const known = cache?.get(httpPart ?? '');
    if (known) return known;
    const validate = compile(schema, httpPart, `${method} ${url} ${httpPart ?? ''}`);
    if (typeof schema === 'object' && schema !== null) {
      if (!cache) compiled.set(schema, new Map([[httpPart ?? '', validate]]));
      else cache.set(httpPart ?? '', validate);
    }
    return validate;
  };
}

/**
 * Ajv and its compiled validators, shared by every app of the process: compiling is most of the cost
 * of building an app, and the test suite builds many apps in one process.
 */
let ajvs: { first: Record<'exact' | 'coercing', Ajv>; every: Record<'exact' | 'coercing', Ajv> } | null =
  null;
const compiled = new WeakMap<object, Map<string, Validator>>();

function compile(schema: unknown, httpPart: string | undefined, where: string): Validator {
  ajvs ??= {
    first: { exact: makeAjv(false, false), coercing: makeAjv('array', false) },
    every: { exact: makeAjv(false, true), coercing: makeAjv('array', true) },
  };
  const { first, every } = ajvs;
  const kind = httpPart === 'body' ? 'exact' : 'coercing';
  const bounded = withPropertyBounds(schema, where);
  const fast = first[kind].compile(bounded);
  let full: ValidateFunction | null = null;
  const validate: Validator = (data) => {
    if (fast(data)) {
      validate.errors = null;
      return true;
    }
    if (countValues(data, FULL_REPORT_MAX_VALUES) > FULL_REPORT_MAX_VALUES) {
      validate.errors = fast.errors;
    } else {
      full ??= every[kind].compile(bounded);
      full(data);
      validate.errors = full.errors ?? fast.errors;
    }
    return false;
  };
  return validate;
}

/**
 * A copy of a request schema in which every object that refuses unknown properties also has
 * `maxProperties` (its number of known ones), so a body with a million extra keys is refused on its
 * size before any key is looked at. Refuses, at startup, an array without `maxItems` and a
 * free-form map without `maxProperties`: every request part must have a bounded size.
 */
function withPropertyBounds(schema: unknown, where: string): object {
  const copy = (node: unknown, path: string): unknown => {
    if (Array.isArray(node)) return node.map((v, i) => copy(v, `${path}/${i}`));
    if (node === null || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) out[k] = copy(v, `${path}/${k}`);
    // `if: {type: 'array'}` only picks a branch: the branch is what bounds the value.
    const condition = path.endsWith('/if') || path.endsWith('/not');
    const isArray =
      !condition && (out.type === 'array' || (Array.isArray(out.type) && out.type.includes('array')));
    if (isArray && out.maxItems === undefined) {
      throw new Error(`${where} ${path || '/'}: every array of a request needs maxItems`);
    }
    const props = out.properties as Record<string, unknown> | undefined;
    const closed = out.additionalProperties === false && out.patternProperties === undefined;
    if (closed && props && out.maxProperties === undefined && !where.endsWith('headers')) {
      out.maxProperties = Object.keys(props).length;
    }
    const freeForm =
      (out.patternProperties !== undefined || typeof out.additionalProperties === 'object') &&
      !where.endsWith('headers');
    if (freeForm && out.maxProperties === undefined) {
      throw new Error(`${where} ${path || '/'}: every map of a request needs maxProperties`);
    }
    return out;
  };
  return copy(schema, '') as object;
}

/** Arrays items and object properties of `value`, counted up to just past `limit`. */
function countValues(value: unknown, limit: number): number {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && count <= limit) {
    const v = stack.pop();
    if (Array.isArray(v)) {
      count += v.length;
      if (count <= limit) stack.push(...v);
    } else if (v !== null && typeof v === 'object') {
      const values = Object.values(v);
      count += values.length;
      if (count <= limit) stack.push(...values);
    }
  }
  return count;
}

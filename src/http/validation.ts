import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchema, FastifySchemaCompiler } from 'fastify';

// ajv-formats is CommonJS: under NodeNext its function is reached as `.default` (also set at run time).
const addFormats = addFormatsModule.default;

const OBJECT_ID = /^[0-9a-fA-F]{24}$/;

function makeAjv(coerceTypes: Options['coerceTypes']): Ajv {
  const ajv = new Ajv({
    // Unknown fields are refused, not silently dropped; every problem is reported at once.
    removeAdditional: false,
    allErrors: true,
    useDefaults: true,
    coerceTypes,
    strict: false,
    formats: { objectid: OBJECT_ID },
  });
  addFormats(ajv);
  return ajv;
}

/**
 * Request validators per part. Query strings, path params and headers arrive as text, so their types
 * are coerced (`limit=20` is the integer 20). JSON bodies already carry types and are taken as sent:
 * `{"userId": 42}` is refused instead of becoming "42", and an amount's `25` (smallest unit) never
 * turns into `"25"` (major units).
 */
export function requestValidators(): FastifySchemaCompiler<FastifySchema> {
  const exact = makeAjv(false);
  const coercing = makeAjv('array');
  return ({ schema, httpPart }) => (httpPart === 'body' ? exact : coercing).compile(schema as object);
}

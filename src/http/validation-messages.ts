import { en, type Language, Text } from './language.js';

/**
 * Ajv's validation errors worded as the contract's 400 sentences (class-validator's wording, and its
 * Portuguese for a client that asks for it): one sentence per failed field, the schema's own
 * `x-error-message` where it has one.
 */

export interface AjvError {
  keyword: string;
  instancePath: string;
  schemaPath?: string;
  params: Record<string, unknown>;
  message?: string;
  /** The failing keyword's value (Ajv's `verbose`): read for oneOf, not and pattern. */
  schema?: unknown;
  /** The schema holding the failing keyword (Ajv's `verbose`): read for `x-error-message`. */
  parentSchema?: unknown;
}

/** Keywords whose failure a schema's `x-error-message` words. */
const WORDED_KEYWORDS = new Set(['pattern', 'format', 'not']);

/**
 * `x-error-message: [english, portuguese]` on a schema: how a failure of its `pattern`, `format` or
 * `not` is worded after the value's path, when the service that judged it before said it so (e.g.
 * `contact.value must be a valid phone number`): the rule moves into the schema, the sentence stays.
 */
function errorMessageOf(e: AjvError): [string, string] | undefined {
  if (!WORDED_KEYWORDS.has(e.keyword)) return undefined;
  const parent = e.parentSchema as Record<string, unknown> | undefined;
  const wording = parent?.['x-error-message'];
  return Array.isArray(wording) && wording.length === 2 && wording.every((w) => typeof w === 'string')
    ? [wording[0] as string, wording[1] as string]
    : undefined;
}

/**
 * The pattern of a string that must have a character other than white space (`NonBlank` in
 * http/schemas.ts): its failure is worded as an empty value, as the services word a blank one.
 */
export const NOT_BLANK_PATTERN = '\\S';

/**
 * The names of `oneOf: [{required: [a]}, {required: [b]}, ...]` ("exactly one of a or b"), or
 * undefined for any other oneOf.
 */
function exactlyOneOf(schema: unknown): string[] | undefined {
  if (!Array.isArray(schema) || schema.length < 2) return undefined;
  const names: string[] = [];
  for (const branch of schema as unknown[]) {
    if (branch === null || typeof branch !== 'object') return undefined;
    const { required, ...rest } = branch as { required?: unknown };
    if (Object.keys(rest).length > 0 || !Array.isArray(required) || required.length !== 1) return undefined;
    names.push(String(required[0]));
  }
  return names;
}

/** `a, b or c` / `a, b ou c`. */
const listed = (names: string[], or: string) =>
  names.length > 1 ? `${names.slice(0, -1).join(', ')} ${or} ${names.at(-1)}` : (names[0] ?? '');

const CONST_BRANCH = /^(.*\/anyOf)\/\d+\/const$/;
const NULL_BRANCH = /\/anyOf\/\d+\/type$/;

/**
 * TypeBox writes an enum as a union of literals, which fails with one `const` error per branch. Finds
 * the unions whose branches all failed that way, so they are reported once, class-validator style.
 * Returns the allowed values per `instancePath + anyOf schemaPath`; linear in the errors.
 */
function literalUnions(errors: AjvError[]): Map<string, string[]> {
  const values = new Map<string, string[]>();
  const mixed = new Set<string>(); // anyOf paths where some branch failed otherwise
  for (const e of errors) {
    const path = e.schemaPath ?? '';
    const m = e.keyword === 'const' ? CONST_BRANCH.exec(path) : null;
    if (m) {
      const key = `${e.instancePath}\u0000${m[1]}`;
      const list = values.get(key) ?? [];
      const v = String(e.params.allowedValue);
      if (!list.includes(v)) list.push(v);
      values.set(key, list);
    } else if (e.keyword !== 'anyOf') {
      for (let i = path.indexOf('/anyOf/'); i >= 0; i = path.indexOf('/anyOf/', i + 1)) {
        mixed.add(path.slice(0, i + '/anyOf'.length));
      }
    }
  }
  for (const key of values.keys()) if (mixed.has(key.split('\u0000')[1] ?? '')) values.delete(key);
  return values;
}

/** Format checks: the English (base) and Portuguese predicates. */
const FORMAT_WORDING: Record<string, [string, string]> = {
  objectid: ['must be a 24-character hexadecimal id', 'deve ser um id válido (24 caracteres hexadecimais)'],
  uuid: ['must be a UUID', 'deve ser um UUID'],
  email: ['must be an email', 'deve ser um e-mail'],
  uri: ['must be a URL address', 'deve ser um endereço URL'],
  'date-time': ['must be a valid ISO 8601 date string', 'deve ser uma data ISO 8601 válida'],
};

const TYPE_WORDING: Record<string, [string, string]> = {
  integer: ['must be an integer number', 'deve ser um número inteiro'],
  number: ['must be a number conforming to the specified constraints', 'deve ser um número'],
  string: ['must be a string', 'deve ser um texto'],
  boolean: ['must be a boolean value', 'deve ser verdadeiro ou falso (boolean)'],
  array: ['must be an array', 'deve ser uma lista'],
  object: ['must be an object', 'deve ser um objeto'],
  null: ['must be null', 'deve ser nulo'],
};

/** `name` followed by a predicate given in both languages. */
const says = (name: string, [english, portuguese]: [string, string]) =>
  en(`${name} ${english}`, `${name} ${portuguese}`);

const elements = (n: string) => (n === '1' ? '1 elemento' : `${n} elementos`);

/**
 * Most sentences one validation failure reports. A huge array of bad items would otherwise give one
 * sentence per item: megabytes of answer, and seconds of work, for a few kilobytes of request.
 */
export const MAX_VALIDATION_MESSAGES = 50;

/**
 * Turns Ajv errors into the sentences clients of this API already parse (class-validator wording),
 * e.g. `limit must not be greater than 100`, `property foo should not exist`, each with its
 * Portuguese wording for the console's API. The property path always comes first, as the console
 * places a sentence beside the field it names.
 */
export function validationTexts(errors: AjvError[], context?: string): Text[] {
  const out: Text[] = [];
  const seen = new Set<string>();
  const unions = literalUnions(errors);
  // "Exactly one of" failures are one sentence: the missing branch's `required` errors are not
  // reported besides it (each would say a field is missing, when any one of them would do).
  const exactlyOne = errors
    .filter((e) => e.keyword === 'oneOf' && exactlyOneOf(e.schema) !== undefined)
    .map((e) => `${e.schemaPath ?? ''}/`);
  // An empty value fails its pattern or format too: that it is empty is the one thing to say.
  const empty = new Set(
    errors.filter((e) => e.keyword === 'minLength' && Number(e.params.limit) <= 1).map((e) => e.instancePath),
  );
  const inExactlyOne = (e: AjvError) => exactlyOne.some((prefix) => (e.schemaPath ?? '').startsWith(prefix));
  // `maxProperties` on an object that refuses unknown properties only says there are unknown ones:
  // when those are named, the count adds nothing.
  const named = new Set(
    errors.filter((e) => e.keyword === 'additionalProperties').map((e) => e.instancePath),
  );
  const unionOf = (e: AjvError, anyOfPath: string | undefined) =>
    anyOfPath === undefined ? undefined : unions.get(`${e.instancePath}\u0000${anyOfPath}`);
  const push = (t: Text) => {
    if (!seen.has(t.base)) {
      seen.add(t.base);
      out.push(t);
    }
  };
  for (const e of errors) {
    if (out.length >= MAX_VALIDATION_MESSAGES) break;
    const prop = e.instancePath
      .split('/')
      .filter(Boolean)
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
      .join('.');
    const name = prop || (context === 'body' ? 'body' : context || 'value');
    const join = (child: string) => (prop ? `${prop}.${child}` : child);
    const p = e.params;
    const limit = String(p.limit);
    if (e.keyword === 'const' && unionOf(e, CONST_BRANCH.exec(e.schemaPath ?? '')?.[1])) continue;
    if (inExactlyOne(e)) continue;
    if ((e.keyword === 'pattern' || e.keyword === 'format') && empty.has(e.instancePath)) continue;
    const worded = errorMessageOf(e);
    if (worded) {
      push(says(name, worded));
      continue;
    }
    // The `null` branch of a nullable field: the other branch's errors say what is wrong.
    if (e.keyword === 'type' && p.type === 'null' && NULL_BRANCH.test(e.schemaPath ?? '')) continue;
    switch (e.keyword) {
      case 'maximum':
        push(says(name, [`must not be greater than ${limit}`, `não pode ser maior que ${limit}`]));
        break;
      case 'minimum':
        push(says(name, [`must not be less than ${limit}`, `não pode ser menor que ${limit}`]));
        break;
      case 'exclusiveMinimum':
        push(says(name, [`must be greater than ${limit}`, `deve ser maior que ${limit}`]));
        break;
      case 'exclusiveMaximum':
        push(says(name, [`must be less than ${limit}`, `deve ser menor que ${limit}`]));
        break;
      case 'type': {
        const t = String(p.type).split(',')[0] ?? '';
        push(
          says(name, TYPE_WORDING[t] ?? [`must be ${String(p.type)}`, `deve ser do tipo ${String(p.type)}`]),
        );
        break;
      }
      case 'required':
        push(says(join(String(p.missingProperty)), EMPTY));
        break;
      case 'additionalProperties': {
        const extra = join(String(p.additionalProperty));
        push(en(`property ${extra} should not exist`, `a propriedade ${extra} não é permitida`));
        break;
      }
      case 'minLength':
        push(
          Number(p.limit) <= 1
            ? says(name, EMPTY)
            : says(name, [
                `must be longer than or equal to ${limit} characters`,
                `deve ter pelo menos ${limit} caracteres`,
              ]),
        );
        break;
      case 'maxLength':
        push(
          says(name, [
            `must be shorter than or equal to ${limit} characters`,
            `deve ter no máximo ${limit} caracteres`,
          ]),
        );
        break;
      case 'minItems':
        push(
          says(name, [
            `must contain at least ${limit} elements`,
            `deve conter pelo menos ${elements(limit)}`,
          ]),
        );
        break;
      case 'maxItems':
        push(
          says(name, [
            `must contain no more than ${limit} elements`,
            `deve conter no máximo ${elements(limit)}`,
          ]),
        );
        break;
      case 'minProperties':
        push(says(name, EMPTY));
        break;
      case 'maxProperties':
        if (named.has(e.instancePath)) break;
        push(
          says(name, [
            `must contain no more than ${limit} properties`,
            `deve conter no máximo ${limit} propriedades`,
          ]),
        );
        break;
      case 'uniqueItems':
        push(en(`All ${name}'s elements must be unique`, `${name} não pode ter elementos repetidos`));
        break;
      case 'enum': {
        const allowed = Array.isArray(p.allowedValues) ? p.allowedValues.map(String).join(', ') : '';
        push(oneOf(name, allowed));
        break;
      }
      case 'const':
        push(
          says(name, [
            `must be equal to ${JSON.stringify(p.allowedValue)}`,
            `deve ser igual a ${JSON.stringify(p.allowedValue)}`,
          ]),
        );
        break;
      case 'format':
        push(
          says(
            name,
            FORMAT_WORDING[String(p.format)] ?? [
              `must match format ${String(p.format)}`,
              `deve estar no formato ${String(p.format)}`,
            ],
          ),
        );
        break;
      case 'pattern':
        if (p.pattern === NOT_BLANK_PATTERN) {
          push(says(name, EMPTY));
          break;
        }
        push(
          says(name, [
            `must match ${String(p.pattern)} regular expression`,
            `deve corresponder à expressão regular ${String(p.pattern)}`,
          ]),
        );
        break;
      case 'if':
        // if/then/else picks one shape by the value's type; that branch's errors say what is wrong.
        break;
      case 'discriminator':
        // The tag is also checked on its own (required, one of its values), which says what is wrong;
        // a valid tag's branch reports its own errors.
        break;
      case 'not': {
        // `not: {required: [a, b]}`: a and b exclude each other.
        const pair = (e.schema as { required?: unknown } | undefined)?.required;
        if (Array.isArray(pair) && pair.length === 2) {
          const [a, b] = pair.map((x) => join(String(x)));
          push(en(`${a} and ${b} cannot be used together`, `${a} e ${b} não podem ser usados juntos`));
        } else push(says(name, ['has an invalid shape', 'tem um formato inválido']));
        break;
      }
      case 'oneOf': {
        const names = exactlyOneOf(e.schema);
        if (names) {
          const fields = names.map(join);
          push(
            en(
              `exactly one of ${listed(fields, 'or')} must be given`,
              `informe exatamente um de ${listed(fields, 'ou')}`,
            ),
          );
          break;
        }
        // The branch errors above already say what is wrong; only add a sentence when none did.
        if (out.length === 0) push(says(name, ['has an invalid shape', 'tem um formato inválido']));
        break;
      }
      case 'anyOf': {
        const allowed = e.keyword === 'anyOf' ? unionOf(e, e.schemaPath) : undefined;
        if (allowed) push(oneOf(name, allowed.join(', ')));
        // The branch errors above already say what is wrong; only add a sentence when none did.
        else if (out.length === 0) push(says(name, ['has an invalid shape', 'tem um formato inválido']));
        break;
      }
      default:
        push(en(`${name} ${e.message ?? 'is invalid'}`, `${name} é inválido`));
    }
  }
  return out;
}

const EMPTY: [string, string] = ['should not be empty', 'não pode ficar vazio'];

const oneOf = (name: string, allowed: string) =>
  says(name, [
    `must be one of the following values: ${allowed}`,
    `deve ser um dos seguintes valores: ${allowed}`,
  ]);

/** The validation sentences in `language`, or the base (class-validator) wording. */
export function validationMessages(errors: AjvError[], context?: string, language?: Language): string[] {
  return validationTexts(errors, context).map((t) => t.in(language));
}

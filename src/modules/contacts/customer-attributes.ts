import { Type, type Static } from '@sinclair/typebox';
import { sql } from 'kysely';
import type { Db, Tx } from '../../db/index.js';
import type { AuditService } from '../audit/index.js';
import type { CustomerAttributeType, CustomerAttributeValues } from '../../db/types.js';
import { badRequest, conflict, notFound } from '../../http/errors.js';
import { en, type Text } from '../../http/language.js';
import { Nullable } from '../../http/schemas.js';
import { newId } from '../../lib/ids.js';
import type { UserActor } from '../../access/actors.js';
import { requirePermission } from '../../access/guards.js';
import { ATTRIBUTE_KEY_PATTERN, MAX_ATTRIBUTES, MAX_TEXT_VALUE } from './customers.schemas.js';

/**
 * Custom attributes of customers: the admin's definitions (key, label, type — text, number, date,
 * list with its options) and the check of every value written against them.
 */

const MAX_OPTIONS = 100;
const AttributeType = Type.Union(
  ['text', 'number', 'date', 'list'].map((t) => Type.Literal(t)),
  {
    description: '`text`, `number`, `date` (`YYYY-MM-DD`) or `list` (one of `options`)',
  },
);
const Options = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  maxItems: MAX_OPTIONS,
  uniqueItems: true,
  description: 'The values a `list` attribute may take (1 to 100); empty for other types',
});
const Label = Type.String({ minLength: 1, maxLength: 100, description: 'What the console shows' });
const Description = Nullable(Type.String({ maxLength: 500 }));

export const AttributeDefinitionSchema = Type.Object({
  id: Type.String(),
  key: Type.String({ description: 'Name of the value in `attributes` (fixed once created)' }),
  label: Type.String(),
  type: Type.String({ description: '`text`, `number`, `date` or `list`' }),
  options: Type.Array(Type.String()),
  description: Nullable(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
export type AttributeDefinitionT = Static<typeof AttributeDefinitionSchema>;

export const CreateAttributeBody = Type.Object(
  {
    key: Type.String({
      pattern: ATTRIBUTE_KEY_PATTERN,
      description: 'a-z, 0-9 and _, from a letter; 40 at most',
    }),
    label: Label,
    type: AttributeType,
    options: Type.Optional(Options),
    description: Type.Optional(Description),
  },
  { additionalProperties: false },
);
export const UpdateAttributeBody = Type.Object(
  { label: Type.Optional(Label), options: Type.Optional(Options), description: Type.Optional(Description) },
  { additionalProperties: false, minProperties: 1 },
);
type CreateAttributeInput = Static<typeof CreateAttributeBody>;
type UpdateAttributeInput = Static<typeof UpdateAttributeBody>;

export const ATTRIBUTE_KEY_TAKEN = en(
  'An attribute with this key already exists',
  'Já existe um atributo com esta chave',
);
export const TOO_MANY_ATTRIBUTES = en(
  `An account may define at most ${MAX_ATTRIBUTES} attributes`,
  `Uma conta pode definir no máximo ${MAX_ATTRIBUTES} atributos`,
);
export const LIST_NEEDS_OPTIONS = en(
  'options must list the values of a list attribute (1 to 100)',
  'options deve listar os valores de um atributo de lista (1 a 100)',
);
export const OPTIONS_ONLY_FOR_LISTS = en(
  'options are only for list attributes',
  'options são apenas para atributos de lista',
);

interface DefinitionRow {
  id: string;
  key: string;
  label: string;
  type: CustomerAttributeType;
  options: string[];
  description: string | null;
  created_at: Date;
  updated_at: Date;
}

const toDefinition = (r: DefinitionRow): AttributeDefinitionT => ({
  id: r.id,
  key: r.key,
  label: r.label,
  type: r.type,
  options: r.options,
  description: r.description,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
});

export class CustomerAttributesRepo {
  constructor(private readonly db: Db) {}

  private select(db: Db | Tx) {
    return db
      .selectFrom('customer_attributes')
      .select(['id', 'key', 'label', 'type', 'options', 'description', 'created_at', 'updated_at']);
  }

  async list(accountId: string, db: Db | Tx = this.db): Promise<DefinitionRow[]> {
    return this.select(db).where('account_id', '=', accountId).orderBy('created_at').orderBy('id').execute();
  }

  async find(accountId: string, id: string, db: Db | Tx = this.db): Promise<DefinitionRow | undefined> {
    return this.select(db).where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  }

  /** Inserts unless the account has `max` definitions or the key is taken; answers which. */
  async insert(
    tx: Tx,
    row: {
      id: string;
      account_id: string;
      key: string;
      label: string;
      type: CustomerAttributeType;
      options: string[];
      description: string | null;
    },
    max: number,
  ): Promise<'ok' | 'full' | 'taken'> {
    // Definitions of one account are created one at a time, so the count holds until commit.
    await sql`SELECT pg_advisory_xact_lock(hashtext('customer_attributes'), hashtext(${row.account_id}))`.execute(
      tx,
    );
    const { n } = await tx
      .selectFrom('customer_attributes')
      .select((e) => e.fn.countAll<number>().as('n'))
      .where('account_id', '=', row.account_id)
      .executeTakeFirstOrThrow();
    if (Number(n) >= max) return 'full';
    const done = await tx
      .insertInto('customer_attributes')
      .values(row)
      .onConflict((oc) => oc.columns(['account_id', 'key']).doNothing())
      .executeTakeFirst();
    return Number(done.numInsertedOrUpdatedRows ?? 0n) > 0 ? 'ok' : 'taken';
  }

  async update(
    tx: Tx,
    accountId: string,
    id: string,
    patch: { label?: string; options?: string[]; description?: string | null },
  ): Promise<void> {
    await tx
      .updateTable('customer_attributes')
      .set({ ...patch, updated_at: sql`now()` })
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .execute();
  }

  async delete(tx: Tx, accountId: string, id: string): Promise<string | undefined> {
    const row = await tx
      .deleteFrom('customer_attributes')
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .returning('key')
      .executeTakeFirst();
    return row?.key;
  }
}

/** What removing an attribute's definition also does: drop its values from every customer. */
export interface AttributeValuesDrop {
  dropAttribute(tx: Tx, accountId: string, key: string): Promise<void>;
}

export class CustomerAttributesService {
  constructor(
    private readonly db: Db,
    private readonly repo: CustomerAttributesRepo,
    private readonly values: AttributeValuesDrop,
    private readonly audit: AuditService,
  ) {}

  /** Every user of the account reads them: the contact panel shows and edits the values. */
  async list(actor: UserActor): Promise<AttributeDefinitionT[]> {
    return (await this.repo.list(actor.accountId)).map(toDefinition);
  }

  async create(actor: UserActor, input: CreateAttributeInput): Promise<AttributeDefinitionT> {
    requirePermission(actor, 'customers:manage');
    const options = checkOptions(input.type, input.options ?? []);
    const id = newId();
    const outcome = await this.db.transaction().execute(async (tx) => {
      const result = await this.repo.insert(
        tx,
        {
          id,
          account_id: actor.accountId,
          key: input.key,
          label: input.label.trim(),
          type: input.type as CustomerAttributeType,
          options,
          description: input.description ?? null,
        },
        MAX_ATTRIBUTES,
      );
      // `attribute`, not `key`: the log's safety net drops fields named like a credential (`…key`).
      if (result === 'ok')
        await this.audit.record(tx, actor, {
          action: 'attribute.create',
          target: { type: 'attribute', id },
          details: { attribute: input.key, label: input.label.trim(), type: input.type },
        });
      return result;
    });
    if (outcome === 'full') throw conflict(TOO_MANY_ATTRIBUTES);
    if (outcome === 'taken') throw conflict(ATTRIBUTE_KEY_TAKEN);
    return toDefinition((await this.repo.find(actor.accountId, id))!);
  }

  /** Label, description, and a list's options (values already stored keep their value). */
  async update(actor: UserActor, id: string, input: UpdateAttributeInput): Promise<AttributeDefinitionT> {
    requirePermission(actor, 'customers:manage');
    const found = await this.repo.find(actor.accountId, id);
    if (!found) throw notFound();
    const patch: { label?: string; options?: string[]; description?: string | null } = {};
    if (input.label !== undefined) patch.label = input.label.trim();
    if (input.options !== undefined) patch.options = checkOptions(found.type, input.options);
    if (input.description !== undefined) patch.description = input.description;
    await this.db.transaction().execute(async (tx) => {
      await this.repo.update(tx, actor.accountId, id, patch);
      await this.audit.record(tx, actor, {
        action: 'attribute.update',
        target: { type: 'attribute', id },
        details: {
          attribute: found.key,
          changed: Object.keys(patch).sort(),
          ...(patch.label !== undefined && { label: patch.label }),
        },
      });
    });
    return toDefinition((await this.repo.find(actor.accountId, id))!);
  }

  /** Removes the definition and its values from every customer. */
  async delete(actor: UserActor, id: string): Promise<void> {
    requirePermission(actor, 'customers:manage');
    await this.db.transaction().execute(async (tx) => {
      const key = await this.repo.delete(tx, actor.accountId, id);
      if (key === undefined) throw notFound();
      await this.values.dropAttribute(tx, actor.accountId, key);
      await this.audit.record(tx, actor, {
        action: 'attribute.delete',
        target: { type: 'attribute', id },
        details: { attribute: key },
      });
    });
  }

  /** The account's definitions by key, to check values against. */
  async byKey(accountId: string, db: Db | Tx = this.db): Promise<Map<string, DefinitionRow>> {
    return new Map((await this.repo.list(accountId, db)).map((d) => [d.key, d]));
  }
}

function checkOptions(type: string, options: string[]): string[] {
  const trimmed = options.map((o) => o.trim());
  if (type === 'list') {
    if (trimmed.length === 0 || trimmed.some((o) => o === '') || new Set(trimmed).size !== trimmed.length)
      throw badRequest(LIST_NEEDS_OPTIONS);
    return trimmed;
  }
  if (trimmed.length > 0) throw badRequest(OPTIONS_ONLY_FOR_LISTS);
  return [];
}

/** A definition as value checks read it. */
export type AttributeDefinition = Pick<DefinitionRow, 'key' | 'type' | 'options'>;

/**
 * A value checked against its definition, or the sentence saying why not. Strings given for numbers
 * (a CSV cell, a query string) are read as numbers; dates must be real `YYYY-MM-DD` days.
 */
export function checkAttributeValue(
  def: AttributeDefinition | undefined,
  key: string,
  raw: unknown,
): { ok: true; value: string | number } | { ok: false; message: Text } {
  if (!def)
    return fail(
      `attributes.${key} is not a defined attribute`,
      `attributes.${key} não é um atributo definido`,
    );
  switch (def.type) {
    case 'number': {
      const n =
        typeof raw === 'number'
          ? raw
          : typeof raw === 'string' && raw.trim() !== ''
            ? Number(raw.trim())
            : NaN;
      if (!Number.isFinite(n) || Math.abs(n) > Number.MAX_SAFE_INTEGER)
        return fail(`attributes.${key} must be a number`, `attributes.${key} deve ser um número`);
      return { ok: true, value: n };
    }
    case 'date': {
      const s = typeof raw === 'string' ? raw.trim() : '';
      const d = /^\d{4}-\d{2}-\d{2}$/.test(s) ? new Date(`${s}T00:00:00Z`) : null;
      if (!d || Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== s)
        return fail(
          `attributes.${key} must be a date (YYYY-MM-DD)`,
          `attributes.${key} deve ser uma data (AAAA-MM-DD)`,
        );
      return { ok: true, value: s };
    }
    case 'list': {
      const s = typeof raw === 'string' ? raw.trim() : '';
      if (!def.options.includes(s))
        return fail(
          `attributes.${key} must be one of: ${def.options.join(', ')}`,
          `attributes.${key} deve ser um de: ${def.options.join(', ')}`,
        );
      return { ok: true, value: s };
    }
    default: {
      const s = typeof raw === 'string' ? raw.trim() : typeof raw === 'number' ? String(raw) : '';
      if (s === '')
        return fail(`attributes.${key} should not be empty`, `attributes.${key} não deve estar vazio`);
      if (s.length > MAX_TEXT_VALUE)
        return fail(
          `attributes.${key} must be at most ${MAX_TEXT_VALUE} characters`,
          `attributes.${key} deve ter no máximo ${MAX_TEXT_VALUE} caracteres`,
        );
      return { ok: true, value: s };
    }
  }
}

const fail = (english: string, portuguese: string) => ({
  ok: false as const,
  message: en(english, portuguese),
});

/** Applies `changes` (null removes) to `current`, checked against the definitions; 400 with every problem. */
export function applyAttributeChanges(
  defs: ReadonlyMap<string, AttributeDefinition>,
  current: CustomerAttributeValues,
  changes: Record<string, unknown>,
): CustomerAttributeValues {
  const next: CustomerAttributeValues = { ...current };
  const problems: Text[] = [];
  for (const [key, raw] of Object.entries(changes)) {
    if (raw === null) {
      delete next[key];
      continue;
    }
    const checked = checkAttributeValue(defs.get(key), key, raw);
    if (checked.ok) next[key] = checked.value;
    else problems.push(checked.message);
  }
  if (problems.length > 0) throw badRequest(problems);
  return next;
}

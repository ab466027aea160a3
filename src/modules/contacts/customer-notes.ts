import { Type, type Static } from '@sinclair/typebox';
import { sql } from 'kysely';
import type { Db, Tx } from '../../db/index.js';
import { eventType } from '../../events/catalogue.js';
import type { EventBuffer, EventsService } from '../../events/events.service.js';
import { targets } from '../../events/rooms.js';
import { forbidden, notFound } from '../../http/errors.js';
import { en } from '../../http/language.js';
import { NonBlank, Nullable, ObjectIdString, pageInfo, pageOf, PaginationQuery } from '../../http/schemas.js';
import { newId } from '../../lib/ids.js';
import type { UserActor } from '../../access/actors.js';
import type { CustomersRepo } from './customers.repo.js';
import type { CustomersService } from './customers.service.js';

/**
 * Notes about a customer: written by anyone who may see the customer, edited by their author only
 * (each edit keeps the text it replaced), deleted by their author or by an admin (`customers:manage`).
 */

export const MAX_NOTE_LENGTH = 5000;

export const NoteSchema = Type.Object({
  id: Type.String(),
  customerId: Type.String(),
  body: Type.String(),
  author: Nullable(
    Type.Object({ id: Type.String(), name: Type.String() }, { description: 'null once the user is deleted' }),
  ),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
  editedAt: Nullable(
    Type.String({ format: 'date-time', description: 'The last edit; null if never edited' }),
  ),
  edits: Type.Integer({ description: 'How many times it was edited (`GET .../edits` lists them)' }),
});
export type NoteT = Static<typeof NoteSchema>;
export const NotePageSchema = pageOf('notes', NoteSchema);

export const NoteEditSchema = Type.Object({
  id: Type.String(),
  previousBody: Type.String({ description: 'The text this edit replaced' }),
  editor: Nullable(Type.Object({ id: Type.String(), name: Type.String() })),
  createdAt: Type.String({ format: 'date-time' }),
});

export const NoteBody = Type.Object(
  { body: NonBlank({ maxLength: MAX_NOTE_LENGTH }) },
  { additionalProperties: false },
);
export const NoteParams = Type.Object(
  { id: ObjectIdString({ description: 'Customer id' }), noteId: ObjectIdString({ description: 'Note id' }) },
  { additionalProperties: false },
);
export const NotesQuery = Type.Object({ ...PaginationQuery }, { additionalProperties: false });

export const CUSTOMER_NOTE = eventType(
  'customer.note',
  Type.Object(
    {
      note: NoteSchema,
      action: Type.String({ description: '`created`, `updated` or `deleted`' }),
    },
    { description: 'A note about a customer was written, edited or deleted' },
  ),
);

export const NOT_NOTE_AUTHOR = en('Only its author may edit a note', 'Só o autor pode editar uma nota');

interface NoteRow {
  id: string;
  customer_id: string;
  body: string;
  author_id: string | null;
  author_name: string | null;
  created_at: Date;
  updated_at: Date;
  edited_at: Date | null;
  edits: number;
}

const toNote = (r: NoteRow): NoteT => ({
  id: r.id,
  customerId: r.customer_id,
  body: r.body,
  author: r.author_id !== null ? { id: r.author_id, name: r.author_name ?? '' } : null,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
  editedAt: r.edited_at ? r.edited_at.toISOString() : null,
  edits: r.edits,
});

export class CustomerNotesRepo {
  constructor(private readonly db: Db) {}

  private select(db: Db | Tx) {
    return db
      .selectFrom('customer_notes as n')
      .leftJoin('users as u', 'u.id', 'n.author_id')
      .select([
        'n.id',
        'n.customer_id',
        'n.body',
        'n.author_id',
        'u.name as author_name',
        'n.created_at',
        'n.updated_at',
        'n.edited_at',
        sql<number>`(SELECT count(*)::int FROM customer_note_edits e WHERE e.note_id = n.id)`.as('edits'),
      ]);
  }

  async page(customerId: string, page: number, limit: number): Promise<{ rows: NoteRow[]; total: number }> {
    const { n } = await this.db
      .selectFrom('customer_notes')
      .select((e) => e.fn.countAll<number>().as('n'))
      .where('customer_id', '=', customerId)
      .executeTakeFirstOrThrow();
    const offset = (page - 1) * limit;
    if (!Number.isSafeInteger(offset) || offset >= Number(n)) return { rows: [], total: Number(n) };
    const rows = await this.select(this.db)
      .where('n.customer_id', '=', customerId)
      .orderBy('n.created_at', 'desc')
      .orderBy('n.id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute();
    return { rows, total: Number(n) };
  }

  async find(
    accountId: string,
    customerId: string,
    id: string,
    db: Db | Tx = this.db,
  ): Promise<NoteRow | undefined> {
    return this.select(db)
      .where('n.account_id', '=', accountId)
      .where('n.customer_id', '=', customerId)
      .where('n.id', '=', id)
      .executeTakeFirst();
  }

  async insert(
    tx: Tx,
    row: { id: string; account_id: string; customer_id: string; author_id: string; body: string },
  ) {
    await tx.insertInto('customer_notes').values(row).execute();
  }

  /** The new text, and the one it replaces recorded as an edit. */
  async edit(tx: Tx, id: string, editorId: string, body: string): Promise<void> {
    // Locked first, so two edits at once each record the text the other left; separate statements,
    // since a row updated by a statement is not seen by a locking read in its own WITH.
    const { rows } = await sql<{
      body: string;
    }>`SELECT body FROM customer_notes WHERE id = ${id} FOR UPDATE`.execute(tx);
    if (rows[0] === undefined || rows[0].body === body) return;
    await tx
      .insertInto('customer_note_edits')
      .values({ id: newId(), note_id: id, editor_id: editorId, previous_body: rows[0].body })
      .execute();
    await sql`UPDATE customer_notes SET body = ${body}, edited_at = now(), updated_at = now()
      WHERE id = ${id}`.execute(tx);
  }

  async delete(tx: Tx, id: string): Promise<void> {
    await tx.deleteFrom('customer_notes').where('id', '=', id).execute();
  }

  async edits(noteId: string) {
    return this.db
      .selectFrom('customer_note_edits as e')
      .leftJoin('users as u', 'u.id', 'e.editor_id')
      .select(['e.id', 'e.previous_body', 'e.editor_id', 'u.name as editor_name', 'e.created_at'])
      .where('e.note_id', '=', noteId)
      .orderBy('e.created_at', 'desc')
      .orderBy('e.id', 'desc')
      .limit(100)
      .execute();
  }
}

export class CustomerNotesService {
  constructor(
    private readonly repo: CustomerNotesRepo,
    private readonly customers: CustomersService,
    private readonly customerRows: CustomersRepo,
    private readonly events: EventsService,
  ) {}

  async list(actor: UserActor, customerId: string, query: { page?: number; limit?: number }) {
    await this.customers.assertVisible(actor, customerId);
    const page = query.page ?? 1;
    const limit = query.limit ?? 20;
    const { rows, total } = await this.repo.page(customerId, page, limit);
    return { ...pageInfo(total, page, limit), notes: rows.map(toNote) };
  }

  async create(actor: UserActor, customerId: string, body: string): Promise<NoteT> {
    await this.customers.assertVisible(actor, customerId);
    const id = newId();
    return this.events.transaction(async (tx, events) => {
      await this.repo.insert(tx, {
        id,
        account_id: actor.accountId,
        customer_id: customerId,
        author_id: actor.userId,
        body: body.trim(),
      });
      return this.record(tx, events, actor.accountId, customerId, id, 'created');
    });
  }

  /** By its author only; the text replaced is kept (`edits`). */
  async update(actor: UserActor, customerId: string, id: string, body: string): Promise<NoteT> {
    await this.customers.assertVisible(actor, customerId);
    return this.events.transaction(async (tx, events) => {
      const note = await this.repo.find(actor.accountId, customerId, id, tx);
      if (!note) throw notFound();
      if (note.author_id !== actor.userId) throw forbidden(NOT_NOTE_AUTHOR);
      await this.repo.edit(tx, id, actor.userId, body.trim());
      return this.record(tx, events, actor.accountId, customerId, id, 'updated');
    });
  }

  /** By its author, or an admin. */
  async delete(actor: UserActor, customerId: string, id: string): Promise<void> {
    await this.customers.assertVisible(actor, customerId);
    await this.events.transaction(async (tx, events) => {
      const note = await this.repo.find(actor.accountId, customerId, id, tx);
      if (!note) throw notFound();
      if (note.author_id !== actor.userId && !actor.permissions.has('customers:manage')) throw forbidden();
      await this.repo.delete(tx, id);
      events.add(
        actor.accountId,
        CUSTOMER_NOTE,
        { note: toNote(note), action: 'deleted' },
        targets.customer(await this.customerRows.place([customerId], tx)),
      );
    });
  }

  async edits(actor: UserActor, customerId: string, id: string) {
    await this.customers.assertVisible(actor, customerId);
    if (!(await this.repo.find(actor.accountId, customerId, id))) throw notFound();
    return (await this.repo.edits(id)).map((e) => ({
      id: e.id,
      previousBody: e.previous_body,
      editor: e.editor_id !== null ? { id: e.editor_id, name: e.editor_name ?? '' } : null,
      createdAt: e.created_at.toISOString(),
    }));
  }

  private async record(
    tx: Tx,
    events: EventBuffer,
    accountId: string,
    customerId: string,
    id: string,
    action: 'created' | 'updated',
  ): Promise<NoteT> {
    const note = toNote((await this.repo.find(accountId, customerId, id, tx))!);
    events.add(
      accountId,
      CUSTOMER_NOTE,
      { note, action },
      targets.customer(await this.customerRows.place([customerId], tx)),
    );
    return note;
  }
}

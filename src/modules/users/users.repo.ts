import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Db, Tx } from '../../db/index.js';
import type { UsersTable } from '../../db/types.js';
import { Statement } from '../../db/prepared.js';
import { keyActiveSql } from '../api-keys/index.js';

export type UserRow = Pick<
  Selectable<UsersTable>,
  'id' | 'account_id' | 'name' | 'email' | 'status' | 'role_id' | 'availability'
> & { role_name: string };

export interface UserAuthRow extends UserRow {
  password_hash: string;
  permissions: string[];
  token_version: number;
}

const columns = [
  'u.id',
  'u.account_id',
  'u.name',
  'u.email',
  'u.status',
  'u.role_id',
  'u.availability',
  'r.name as role_name',
] as const;

// The Channel API's user list, serialized by PostgreSQL as `UserSchema` objects in list order (the
// server passes the text through). Read on every such request: prepared.
// The acting API key is checked in the same statement (`key_active`, modules/api-keys/key-check.ts).
const activeUsersJson = Statement.prepared<{ users: string; key_active: boolean }>(
  `SELECT coalesce('[' || string_agg(json_build_object('id', u.id, 'name', u.name, 'email', u.email,
   'status', u.status, 'role', json_build_object('id', r.id, 'name', r.name),
   'availability', u.availability)::text, ','
   ORDER BY u.created_at, u.id) || ']', '[]') AS users, ${keyActiveSql('$2::text')} AS key_active
 FROM users u JOIN roles r ON r.id = u.role_id
 WHERE u.account_id = $1 AND u.status IN ('active', 'onboarding')`,
);

export class UsersRepo {
  constructor(private readonly db: Db) {}

  private base(db: Db | Tx = this.db) {
    return db.selectFrom('users as u').innerJoin('roles as r', 'r.id', 'u.role_id');
  }

  async list(accountId: string): Promise<UserRow[]> {
    return this.base()
      .select(columns)
      .where('u.account_id', '=', accountId)
      .orderBy('u.created_at')
      .orderBy('u.id')
      .execute();
  }

  /**
   * Active and onboarding users as a JSON array (`UserSchema`), in `list` order, and whether API key
   * `keyId` is not revoked.
   */
  async listActiveJson(accountId: string, keyId: string): Promise<{ json: string; keyActive: boolean }> {
    const [row] = await activeUsersJson.execute(this.db, [accountId, keyId]);
    return { json: row?.users ?? '[]', keyActive: row?.key_active ?? false };
  }

  async find(accountId: string, id: string, db: Db | Tx = this.db): Promise<UserRow | undefined> {
    return this.base(db)
      .select(columns)
      .where('u.account_id', '=', accountId)
      .where('u.id', '=', id)
      .executeTakeFirst();
  }

  /** The user with role permissions, for authentication. */
  async findForAuth(by: { id: string } | { email: string }): Promise<UserAuthRow | undefined> {
    let q = this.base().select([...columns, 'u.password_hash', 'r.permissions', 'u.token_version']);
    q = 'id' in by ? q.where('u.id', '=', by.id) : q.where('u.email', '=', by.email);
    return q.executeTakeFirst();
  }

  /** Whether the installation has any user at all (a new one has none until its first admin). */
  async anyUser(): Promise<boolean> {
    return (await this.db.selectFrom('users').select('id').limit(1).executeTakeFirst()) !== undefined;
  }

  async emailTaken(email: string, exceptId?: string): Promise<boolean> {
    let q = this.db.selectFrom('users').select('id').where('email', '=', email);
    if (exceptId) q = q.where('id', '<>', exceptId);
    return (await q.executeTakeFirst()) !== undefined;
  }

  async roleByName(accountId: string, name: string, db: Db | Tx = this.db) {
    return db
      .selectFrom('roles')
      .select(['id', 'name'])
      .where('account_id', '=', accountId)
      .where('name', '=', name)
      .executeTakeFirst();
  }

  async insert(db: Db | Tx, row: Insertable<UsersTable>): Promise<void> {
    await db.insertInto('users').values(row).execute();
  }

  async update(
    db: Db | Tx,
    accountId: string,
    id: string,
    patch: Pick<Updateable<UsersTable>, 'name' | 'email' | 'status' | 'role_id' | 'password_hash'>,
    opts: { endSessions?: boolean } = {},
  ): Promise<boolean> {
    const res = await db
      .updateTable('users')
      .set({
        ...patch,
        ...(opts.endSessions ? { token_version: sql<number>`token_version + 1` } : {}),
        updated_at: sql`now()`,
      })
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .executeTakeFirst();
    return res.numUpdatedRows > 0n;
  }

  /** Ends every session of the user: tokens issued before are refused from now on. */
  async endSessions(id: string, db: Db | Tx = this.db): Promise<void> {
    await db
      .updateTable('users')
      .set({ token_version: sql<number>`token_version + 1` })
      .where('id', '=', id)
      .execute();
  }

  /** Which of these ids are users of the account that are not cancelled. */
  async existing(accountId: string, ids: string[], db: Db | Tx = this.db): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await db
      .selectFrom('users')
      .select('id')
      .where('account_id', '=', accountId)
      .where('id', 'in', ids)
      .where('status', '<>', 'cancelled')
      .execute();
    return new Set(rows.map((r) => r.id));
  }
}

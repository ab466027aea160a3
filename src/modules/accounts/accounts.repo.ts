import { sql } from 'kysely';
import type { Db, Tx } from '../../db/index.js';
import { BUILT_IN_ROLES, ROLE_NAMES, type RoleName } from '../../access/permissions.js';

/** A new account's rows: the account, its built-in roles and its first admin (password already hashed). */
export interface AccountRows {
  accountId: string;
  accountName: string;
  roleIds: Record<RoleName, string>;
  admin: { id: string; name: string; email: string; passwordHash: string };
}

export class AccountsRepo {
  /** Held until the transaction ends: two nodes starting together do not both create the first account. */
  async lockFirstRun(tx: Tx): Promise<void> {
    await sql`SELECT pg_advisory_xact_lock(728371)`.execute(tx);
  }

  async anyAccount(tx: Tx): Promise<boolean> {
    return (await tx.selectFrom('accounts').select('id').limit(1).executeTakeFirst()) !== undefined;
  }

  async insert(tx: Tx, rows: AccountRows): Promise<void> {
    await tx.insertInto('accounts').values({ id: rows.accountId, name: rows.accountName }).execute();
    await tx
      .insertInto('roles')
      .values(
        ROLE_NAMES.map((name) => ({
          id: rows.roleIds[name],
          account_id: rows.accountId,
          name,
          permissions: BUILT_IN_ROLES[name],
        })),
      )
      .execute();
    await tx
      .insertInto('users')
      .values({
        id: rows.admin.id,
        account_id: rows.accountId,
        name: rows.admin.name,
        email: rows.admin.email,
        status: 'active',
        role_id: rows.roleIds.admin,
        password_hash: rows.admin.passwordHash,
      })
      .execute();
  }

  /**
   * Adds to every account's built-in roles the permissions of `BUILT_IN_ROLES` they miss; never
   * removes one. A release that introduces a permission grants it in a migration, but during a
   * rolling upgrade a node of the previous release may still create an account with the roles it
   * knows: this catches those (and any account a migration missed). Returns the roles changed.
   */
  async grantBuiltInPermissions(db: Db): Promise<number> {
    let changed = 0;
    for (const name of ROLE_NAMES) {
      const wanted = BUILT_IN_ROLES[name];
      const result = await sql`
UPDATE roles SET permissions = permissions || ARRAY(
  SELECT p FROM unnest(${wanted}::text[]) WITH ORDINALITY AS w(p, i)
  WHERE NOT (p = ANY (roles.permissions)) ORDER BY i)
WHERE name = ${name} AND NOT (permissions @> ${wanted}::text[])`.execute(db);
      changed += Number(result.numAffectedRows ?? 0);
    }
    return changed;
  }
}

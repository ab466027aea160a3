import { sql } from 'kysely';
import { inTransaction, type Db, type Tx } from '../../db/index.js';
import { newId } from '../../lib/ids.js';
import { hashPassword } from '../../lib/secrets.js';
import { BUILT_IN_ROLES, ROLE_NAMES, type RoleName } from '../../access/permissions.js';

export interface NewAccount {
  accountName: string;
  adminName: string;
  email: string;
  password: string;
}

export interface CreatedAccount {
  accountId: string;
  adminId: string;
  roleIds: Record<RoleName, string>;
}

export class AccountsService {
  constructor(private readonly db: Db) {}

  /** Creates an account with its built-in roles and its first admin. */
  async createWithAdmin(input: NewAccount): Promise<CreatedAccount> {
    const passwordHash = await hashPassword(input.password);
    return inTransaction(this.db, (tx) => this.insert(tx, input, passwordHash));
  }

  /**
   * First run: on an installation without accounts, creates the first account and its admin. The
   * advisory lock keeps two nodes starting together from both doing it.
   */
  async bootstrapFirstAdmin(email: string, password: string): Promise<CreatedAccount | null> {
    const passwordHash = await hashPassword(password);
    return inTransaction(this.db, async (tx) => {
      await sql`SELECT pg_advisory_xact_lock(728371)`.execute(tx);
      if (await tx.selectFrom('accounts').select('id').limit(1).executeTakeFirst()) return null;
      return this.insert(tx, { accountName: 'Atende', adminName: 'Admin', email, password }, passwordHash);
    });
  }

  private async insert(tx: Tx, input: NewAccount, passwordHash: string): Promise<CreatedAccount> {
    const accountId = newId();
    const adminId = newId();
    const roleIds = Object.fromEntries(ROLE_NAMES.map((r) => [r, newId()])) as Record<RoleName, string>;
    await tx.insertInto('accounts').values({ id: accountId, name: input.accountName }).execute();
    await tx
      .insertInto('roles')
      .values(
        ROLE_NAMES.map((name) => ({
          id: roleIds[name],
          account_id: accountId,
          name,
          permissions: BUILT_IN_ROLES[name],
        })),
      )
      .execute();
    await tx
      .insertInto('users')
      .values({
        id: adminId,
        account_id: accountId,
        name: input.adminName,
        email: input.email.trim().toLowerCase(),
        status: 'active',
        role_id: roleIds.admin,
        password_hash: passwordHash,
      })
      .execute();
    return { accountId, adminId, roleIds };
  }
}

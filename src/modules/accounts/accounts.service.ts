import { inTransaction, type Db, type Tx } from '../../db/index.js';
import { newId } from '../../lib/ids.js';
import { hashPassword } from '../../lib/secrets.js';
import { ROLE_NAMES, type RoleName } from '../../access/permissions.js';
import type { AccountsRepo } from './accounts.repo.js';

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
  constructor(
    private readonly db: Db,
    private readonly repo: AccountsRepo,
  ) {}

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
      await this.repo.lockFirstRun(tx);
      if (await this.repo.anyAccount(tx)) return null;
      return this.insert(tx, { accountName: 'Atende', adminName: 'Admin', email, password }, passwordHash);
    });
  }

  /** Built-in roles get the permissions this release gives them (see the repo); the roles changed. */
  grantBuiltInPermissions(): Promise<number> {
    return this.repo.grantBuiltInPermissions(this.db);
  }

  private async insert(tx: Tx, input: NewAccount, passwordHash: string): Promise<CreatedAccount> {
    const accountId = newId();
    const adminId = newId();
    const roleIds = Object.fromEntries(ROLE_NAMES.map((r) => [r, newId()])) as Record<RoleName, string>;
    await this.repo.insert(tx, {
      accountId,
      accountName: input.accountName,
      roleIds,
      admin: { id: adminId, name: input.adminName, email: input.email.trim().toLowerCase(), passwordHash },
    });
    return { accountId, adminId, roleIds };
  }
}

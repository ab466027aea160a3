import { sql, type Kysely } from 'kysely';

/**
 * The permission to define labels (`labels:manage`), given to every account's built-in `admin` role.
 * New accounts get it from the built-in roles (access/permissions.ts); roles stored before it existed
 * get it here, so admins keep meaning "every permission".
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
UPDATE roles SET permissions = array_append(permissions, 'labels:manage')
 WHERE name = 'admin' AND NOT ('labels:manage' = ANY (permissions))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`UPDATE roles SET permissions = array_remove(permissions, 'labels:manage')`.execute(db);
}

import { sql, type Kysely } from 'kysely';

/**
 * Sessions that can be ended: every access token carries its user's token version, and a token whose
 * version is no longer the user's is refused. Logout, a password change, cancelling the user and a
 * role change bump it. Existing users start at 0, the version tokens issued before it are read as.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE users ADD COLUMN token_version integer NOT NULL DEFAULT 0;`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE users DROP COLUMN token_version;`.execute(db);
}

import { sql, type Kysely } from 'kysely';

/**
 * The audit log of admin actions (docs/adr/0093-audit-log.md): append-only, one row per change an
 * admin (or an API key, or the platform itself) made to the account's configuration, written in the
 * change's own transaction. `details` holds the changed fields' names and non-secret values only.
 *
 * - The trigger refuses UPDATE: a line, once written, is never rewritten (rows go only with their
 *   account, by the cascade, or by a retention DELETE).
 * - Indexes: the list is newest first by id per account; each filter (actor, action prefix, target,
 *   date range) has its own.
 * - Admin roles get `audit:read`, the permission the list requires.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
CREATE TABLE audit_log (
  -- The list's order and its cursor: a sequence, since timestamps of one transaction's lines tie.
  id bigserial PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  actor_type text NOT NULL CHECK (actor_type IN ('user', 'api_key', 'system')),
  actor_id text,
  action text NOT NULL,
  target_type text NOT NULL,
  target_id text,
  details jsonb NOT NULL DEFAULT '{}',
  ip text,
  user_agent text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_log_account_order ON audit_log (account_id, id DESC);
CREATE INDEX audit_log_created ON audit_log (account_id, created_at);
CREATE INDEX audit_log_actor ON audit_log (account_id, actor_type, actor_id, id DESC);
CREATE INDEX audit_log_action ON audit_log (account_id, action text_pattern_ops);
CREATE INDEX audit_log_target ON audit_log (account_id, target_type, target_id, id DESC);

CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_log is append-only';
END $$;
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();

UPDATE roles SET permissions = array_append(permissions, 'audit:read')
  WHERE name = 'admin' AND NOT ('audit:read' = ANY (permissions));
`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
DROP TABLE audit_log;
DROP FUNCTION audit_log_append_only();
UPDATE roles SET permissions = array_remove(permissions, 'audit:read');
`.execute(db);
}

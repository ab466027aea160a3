import { sql, type Kysely } from 'kysely';

/**
 * Canned responses: answers an agent inserts with `/` in the composer. Each belongs to one scope:
 * the account (every user may use it; admins manage it), a team (its members use it; admins and the
 * team's supervisors manage it) or one user (personal: only its owner sees it). `owner_key` names the
 * scope's owner in one column (`account`, the team's id or the user's id) so that a shortcut is unique
 * per owner whatever its letter case, and the count per owner is bounded under one advisory lock.
 *
 * - `attachment_id`: an optional file in `media_blobs` (the media module's store of outbound files),
 *   deleted with the response by the service; ON DELETE SET NULL keeps a response whose file went.
 * - `usage_count`: incremented in place (`usage_count + 1`), so concurrent uses are never lost.
 * - Search by shortcut and text, accents and case ignored as in the chat search (`search_fold`, migration
 *   014), reads `search_text` and `search_shortcut`: folded once when written, since folding on every
 *   read costs about 70 µs a row (a third of a second over 5,000 responses); trigram-indexed.
 * - Two permissions, granted to the built-in roles of existing accounts: `canned_responses:manage`
 *   (admins: account-wide and every team's) and `canned_responses:manage_team` (supervisors: their
 *   own teams').
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
CREATE TABLE canned_responses (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  scope text NOT NULL CHECK (scope IN ('account', 'team', 'personal')),
  team_id text REFERENCES teams(id) ON DELETE CASCADE,
  user_id text REFERENCES users(id) ON DELETE CASCADE,
  owner_key text NOT NULL,
  shortcut text NOT NULL,
  content text NOT NULL,
  attachment_id text REFERENCES media_blobs(id) ON DELETE SET NULL,
  usage_count integer NOT NULL DEFAULT 0,
  last_used_at timestamptz,
  created_by text REFERENCES users(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  search_shortcut text GENERATED ALWAYS AS (search_fold(shortcut)) STORED,
  search_text text GENERATED ALWAYS AS (search_fold(shortcut || ' ' || content)) STORED,
  CHECK (
    (scope = 'account' AND team_id IS NULL AND user_id IS NULL AND owner_key = 'account') OR
    (scope = 'team' AND team_id IS NOT NULL AND user_id IS NULL AND owner_key = team_id) OR
    (scope = 'personal' AND user_id IS NOT NULL AND team_id IS NULL AND owner_key = user_id)
  )
);
CREATE UNIQUE INDEX canned_responses_shortcut_key ON canned_responses (account_id, owner_key, lower(shortcut));
CREATE INDEX canned_responses_list_idx ON canned_responses (account_id, scope, shortcut);
CREATE INDEX canned_responses_search_idx ON canned_responses USING gin (search_text gin_trgm_ops);

UPDATE roles SET permissions = permissions || ARRAY['canned_responses:manage', 'canned_responses:manage_team']
 WHERE name = 'admin' AND NOT ('canned_responses:manage' = ANY(permissions));
UPDATE roles SET permissions = permissions || ARRAY['canned_responses:manage_team']
 WHERE name = 'supervisor' AND NOT ('canned_responses:manage_team' = ANY(permissions));
`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
DROP TABLE canned_responses;
UPDATE roles SET permissions = array_remove(array_remove(permissions, 'canned_responses:manage'), 'canned_responses:manage_team');
`.execute(db);
}

import { sql, type Kysely } from 'kysely';

/**
 * What a team knows about a customer (the contact panel and the contacts page):
 *
 * - `customers.attributes`: the values of the account's custom attributes, by key, checked by the
 *   application against `customer_attributes` (the admin's definitions: text, number, date, list).
 *   The contacts page filters by a value with `attributes @> {key: value}`, which the `jsonb_path_ops`
 *   GIN index answers; the name search uses the same trigram folding as the chat search (014).
 * - `customer_notes`, and `customer_note_edits`: each edit keeps the text it replaced, who edited and when.
 * - `customer_merges`: a merge recorded (the customer kept, the one merged into it, its name and
 *   attributes as they were, the contacts that moved, who merged), since the merged row is gone.
 * - The permission `customers:manage` (attribute definitions, merges, imports, anyone's notes) given
 *   to the accounts' admin roles, as new accounts get it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
ALTER TABLE customers ADD COLUMN attributes jsonb NOT NULL DEFAULT '{}'::jsonb;
CREATE INDEX customers_attributes_idx ON customers USING gin (attributes jsonb_path_ops);
CREATE INDEX customers_name_search_idx ON customers USING gin (search_fold(name) gin_trgm_ops);

CREATE TABLE customer_attributes (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  key text NOT NULL,
  label text NOT NULL,
  type text NOT NULL CHECK (type IN ('text', 'number', 'date', 'list')),
  options text[] NOT NULL DEFAULT '{}',
  description text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (account_id, key)
);

CREATE TABLE customer_notes (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  customer_id text NOT NULL REFERENCES customers(id) ON DELETE CASCADE,
  author_id text REFERENCES users(id) ON DELETE SET NULL,
  body text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  edited_at timestamptz
);
CREATE INDEX customer_notes_customer_idx ON customer_notes (customer_id, created_at DESC, id DESC);

CREATE TABLE customer_note_edits (
  id text PRIMARY KEY,
  note_id text NOT NULL REFERENCES customer_notes(id) ON DELETE CASCADE,
  editor_id text REFERENCES users(id) ON DELETE SET NULL,
  previous_body text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX customer_note_edits_note_idx ON customer_note_edits (note_id, created_at DESC, id DESC);

CREATE TABLE customer_merges (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  customer_id text NOT NULL REFERENCES customers(id) ON DELETE CASCADE,
  merged_customer_id text NOT NULL,
  merged_name text,
  merged_attributes jsonb NOT NULL,
  contact_ids text[] NOT NULL,
  actor_id text REFERENCES users(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX customer_merges_customer_idx ON customer_merges (customer_id, created_at DESC);

UPDATE roles SET permissions = array_append(permissions, 'customers:manage')
 WHERE name = 'admin' AND NOT ('customers:manage' = ANY (permissions));
`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
UPDATE roles SET permissions = array_remove(permissions, 'customers:manage');
DROP TABLE customer_merges;
DROP TABLE customer_note_edits;
DROP TABLE customer_notes;
DROP TABLE customer_attributes;
DROP INDEX customers_name_search_idx;
DROP INDEX customers_attributes_idx;
ALTER TABLE customers DROP COLUMN attributes;
`.execute(db);
}

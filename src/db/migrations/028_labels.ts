import { sql, type Kysely } from 'kysely';

/**
 * Labels: the account's own words for organising conversations and customers (name, colour,
 * description), defined by admins and put on chats and on customers by agents. Names are unique per
 * account whatever their letter case. A label's links go with it (and with their chat or customer).
 * `account_id` on the links lets every list filter by label within one account from the link's own
 * index; `created_by` says who put the label (kept when the user is deleted, as null).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
CREATE TABLE labels (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name text NOT NULL,
  color text NOT NULL,
  description text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX labels_account_name_key ON labels (account_id, lower(name));

CREATE TABLE chat_labels (
  chat_id text NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
  label_id text NOT NULL REFERENCES labels(id) ON DELETE CASCADE,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  created_by text REFERENCES users(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (chat_id, label_id)
);
CREATE INDEX chat_labels_label_idx ON chat_labels (account_id, label_id, chat_id);

CREATE TABLE customer_labels (
  customer_id text NOT NULL REFERENCES customers(id) ON DELETE CASCADE,
  label_id text NOT NULL REFERENCES labels(id) ON DELETE CASCADE,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  created_by text REFERENCES users(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (customer_id, label_id)
);
CREATE INDEX customer_labels_label_idx ON customer_labels (account_id, label_id, customer_id);
`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE customer_labels; DROP TABLE chat_labels; DROP TABLE labels;`.execute(db);
}

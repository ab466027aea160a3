import { sql, type Kysely } from 'kysely';

/**
 * Customers: the person behind a channel's contacts. A contact is one customer's address on one
 * channel (a WhatsApp number on one business number, a sandbox phone, an e-mail); the customer is what
 * an agent knows about the person across channels — their conversations on every channel, and later
 * their attributes, notes and labels — and what two contacts of one person are merged into.
 *
 * - `customers` (account-scoped). A new contact joins the customer of the account's earliest contact
 *   with the same type and value on another channel (the same phone on two business numbers is one
 *   person); else it starts its own customer, whose id is the contact's id — so for the common case of
 *   one contact per customer the two ids are the same, and a contact's id always finds its customer.
 * - Kept by two triggers on `contacts`, so that every way of writing a contact (inbound upserts,
 *   the send pipeline's batched find-or-create, the contact repair, a previous version of the code
 *   during a rolling upgrade) gets its customer without each writing it: a BEFORE INSERT trigger gives
 *   a row without a customer its own id (an assignment, cheap on the send path, where most inserts
 *   meet a conflict and write nothing), and an AFTER INSERT statement trigger, over the rows really
 *   inserted (transition table), links each to its group's earliest contact and creates the customers
 *   that did not exist. The foreign key is deferred to commit, since a contact is written first.
 * - The backfill groups the existing contacts the same way.
 */
const GROUP_AND_LINK = `
CREATE FUNCTION contacts_join_customers() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Each inserted row: the customer of its group's earliest contact (itself when it is the first).
  WITH owners AS (
    SELECT DISTINCT ON (i.id) i.id, c.customer_id
      FROM inserted i
      JOIN contacts c ON c.account_id = i.account_id AND c.type = i.type AND c.value = i.value
     ORDER BY i.id, c.created_at, c.id
  ), moved AS (
    UPDATE contacts t SET customer_id = o.customer_id
      FROM owners o
     WHERE t.id = o.id AND t.customer_id IS DISTINCT FROM o.customer_id
  )
  INSERT INTO customers (id, account_id, name, created_at, updated_at)
  SELECT i.id, i.account_id, i.name, i.created_at, i.updated_at
    FROM inserted i JOIN owners o ON o.id = i.id
   WHERE o.customer_id = i.id
  ON CONFLICT (id) DO NOTHING;
  RETURN NULL;
END $$;

CREATE FUNCTION contacts_default_customer() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.customer_id IS NULL THEN NEW.customer_id := NEW.id; END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER contacts_default_customer BEFORE INSERT ON contacts
  FOR EACH ROW EXECUTE FUNCTION contacts_default_customer();
CREATE TRIGGER contacts_join_customers AFTER INSERT ON contacts
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION contacts_join_customers();
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
CREATE TABLE customers (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX customers_account_idx ON customers (account_id, created_at DESC, id DESC);

-- Finds a contact's group (the same value on the account's other channels).
CREATE INDEX contacts_account_value_idx ON contacts (account_id, type, value, created_at, id);

ALTER TABLE contacts ADD COLUMN customer_id text;
UPDATE contacts t SET customer_id = o.owner
  FROM (SELECT id, first_value(id) OVER (PARTITION BY account_id, type, value ORDER BY created_at, id) AS owner
          FROM contacts) o
 WHERE t.id = o.id;
-- A customer's name: the most recently updated name among its contacts.
INSERT INTO customers (id, account_id, name, created_at, updated_at)
SELECT DISTINCT ON (c.customer_id) c.customer_id, c.account_id, c.name, o.created_at, o.updated_at
  FROM contacts c JOIN contacts o ON o.id = c.customer_id
 ORDER BY c.customer_id, c.name IS NULL, c.updated_at DESC;
ALTER TABLE contacts ALTER COLUMN customer_id SET NOT NULL,
  ADD CONSTRAINT contacts_customer_fkey FOREIGN KEY (customer_id) REFERENCES customers(id)
    DEFERRABLE INITIALLY DEFERRED;
CREATE INDEX contacts_customer_idx ON contacts (customer_id);
`.execute(db);
  await sql.raw(GROUP_AND_LINK).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
DROP TRIGGER contacts_join_customers ON contacts;
DROP TRIGGER contacts_default_customer ON contacts;
DROP FUNCTION contacts_join_customers();
DROP FUNCTION contacts_default_customer();
ALTER TABLE contacts DROP COLUMN customer_id;
DROP INDEX contacts_account_value_idx;
DROP TABLE customers;
`.execute(db);
}

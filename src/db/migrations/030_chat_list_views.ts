import { sql, type Kysely } from 'kysely';

/**
 * Conversation lists that organise the day.
 *
 * - `chats.last_customer_at`: when the customer last wrote in this conversation; `chats.waiting_since`:
 *   since when the customer has been waiting for an answer (their first message after the last reply
 *   from an agent or the API; null once answered). Both follow the chat's `last_message`, which every
 *   writer of messages already keeps, through one row trigger on that column alone: no writer needs to
 *   know about them, and an update that leaves `last_message` alone pays nothing.
 * - Indexes for the two new sorts, in list order, beside the existing newest-first ones.
 * - `chat_views`: each user's saved views (a name and the list's filters and sort), in their order.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
ALTER TABLE chats ADD COLUMN last_customer_at timestamptz, ADD COLUMN waiting_since timestamptz;

CREATE FUNCTION chats_follow_last_message() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  origin text := NEW.last_message->>'origin';
  at timestamptz;
BEGIN
  IF TG_OP = 'UPDATE' AND NEW.last_message IS NOT DISTINCT FROM OLD.last_message THEN
    RETURN NEW;
  END IF;
  IF origin = 'contact' THEN
    at := coalesce((NEW.last_message->>'createdAt')::timestamptz, now());
    NEW.last_customer_at := greatest(NEW.last_customer_at, at);
    NEW.waiting_since := coalesce(NEW.waiting_since, at);
  ELSIF origin IN ('user', 'api') THEN
    NEW.waiting_since := NULL;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER chats_follow_last_message BEFORE INSERT OR UPDATE OF last_message ON chats
  FOR EACH ROW EXECUTE FUNCTION chats_follow_last_message();

UPDATE chats SET last_customer_at = (last_message->>'createdAt')::timestamptz,
                 waiting_since = (last_message->>'createdAt')::timestamptz
 WHERE last_message->>'origin' = 'contact';

CREATE INDEX chats_list_waiting_idx ON chats (account_id, status, waiting_since, id);
CREATE INDEX chats_list_customer_idx ON chats (account_id, status, last_customer_at DESC NULLS LAST, id DESC);

CREATE TABLE chat_views (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name text NOT NULL,
  filters jsonb NOT NULL,
  position int NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX chat_views_user_idx ON chat_views (user_id, position, id);
`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
DROP TABLE chat_views;
DROP INDEX chats_list_customer_idx; DROP INDEX chats_list_waiting_idx;
DROP TRIGGER chats_follow_last_message ON chats; DROP FUNCTION chats_follow_last_message();
ALTER TABLE chats DROP COLUMN waiting_since, DROP COLUMN last_customer_at;`.execute(db);
}

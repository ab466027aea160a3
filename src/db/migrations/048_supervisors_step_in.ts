import { sql, type Kysely } from 'kysely';

/**
 * Supervisors step in (docs/adr/0079-supervisors-step-in-and-bulk-actions.md):
 * - Two permissions, granted to the built-in roles of existing accounts (new accounts get them from
 *   access/permissions.ts): `chats:supervise` (admins: reply in or take over any conversation, act in
 *   bulk on any) and `chats:supervise_team` (supervisors: the same within their own teams).
 * - `messages.by_supervisor`: a reply written by someone stepping into a conversation another agent
 *   attends, kept with the message so it stays marked after the chat changes hands. A constant default
 *   is a catalogue change only: no table rewrite.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
UPDATE roles SET permissions = permissions || ARRAY['chats:supervise']
 WHERE name = 'admin' AND NOT ('chats:supervise' = ANY(permissions));
UPDATE roles SET permissions = permissions || ARRAY['chats:supervise_team']
 WHERE name = 'supervisor' AND NOT ('chats:supervise_team' = ANY(permissions));
ALTER TABLE messages ADD COLUMN by_supervisor boolean NOT NULL DEFAULT false;`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
ALTER TABLE messages DROP COLUMN by_supervisor;
UPDATE roles SET permissions = array_remove(array_remove(permissions, 'chats:supervise'), 'chats:supervise_team');`.execute(
    db,
  );
}

import { sql, type Kysely } from 'kysely';

/**
 * The columns automation (issue "the Automação queue made real") is built on, added before its parts:
 *
 * - `messages.automation`: a message the platform's automation wrote rather than a person — `flow`
 *   (a channel's built-in menu, greeting, away or closing message) or `bot` (an account's bot,
 *   through the Channel API); null for everything else. `messages.bot_id` names the bot.
 * - `users.availability`: whether an agent takes conversations now — `online`, `away` or `offline`
 *   (the default: nobody is online before they say so).
 *
 * Constant defaults and nullable columns are catalogue changes only: no table is rewritten.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
ALTER TABLE messages
  ADD COLUMN automation text CHECK (automation IN ('flow', 'bot')),
  ADD COLUMN bot_id text;
ALTER TABLE users
  ADD COLUMN availability text NOT NULL DEFAULT 'offline' CHECK (availability IN ('online', 'away', 'offline'));
`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
ALTER TABLE users DROP COLUMN availability;
ALTER TABLE messages DROP COLUMN bot_id, DROP COLUMN automation;
`.execute(db);
}

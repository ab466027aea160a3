import { sql, type Kysely } from 'kysely';

/**
 * Agents' availability kept by the platform, and automatic assignment per team
 * (docs/adr/0085-availability-and-auto-assignment.md). `users.availability` itself is migration 054's.
 *
 * - `users.availability_at`: when the availability last changed; the sweep that sets a user without
 *   connections offline leaves alone a change younger than its grace (an agent who sets `online`
 *   before their console connects).
 * - `users.availability_resume`: what the sweep set offline (`online` or `away`), so the user's next
 *   gateway connection brings it back; null after a choice of their own.
 * - `user_connections`: one row per user and gateway node with its connections: `live` while the node
 *   has one, `seen_at` renewed by the node's heartbeat while live and stamped when its last one goes.
 *   A node that dies stops renewing, so its rows age like a disconnection: nobody stays online forever.
 * - `team_assignment`: a team's mode (`off`, `round_robin`, `capacity`), the most open conversations
 *   an agent may have (null: no limit, round robin only), per-agent overrides (`{userId: max}`), and
 *   whether an agent going offline gives back the conversations they have not answered.
 * - `team_members.last_assigned_at`: the rotation of round robin, and the tie-break of capacity.
 * - `chats_waiting_team_idx`: the waiting conversations of a team, oldest first — what assignment
 *   reads on every wake-up.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
ALTER TABLE users
  ADD COLUMN availability_at timestamptz NOT NULL DEFAULT now(),
  ADD COLUMN availability_resume text CHECK (availability_resume IN ('online', 'away'));
CREATE INDEX users_available_idx ON users (availability_at) WHERE availability <> 'offline';

CREATE TABLE user_connections (
  user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  node_id text NOT NULL,
  live boolean NOT NULL DEFAULT true,
  seen_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, node_id)
);
CREATE INDEX user_connections_node_idx ON user_connections (node_id) WHERE live;

CREATE TABLE team_assignment (
  team_id text PRIMARY KEY REFERENCES teams(id) ON DELETE CASCADE,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  mode text NOT NULL DEFAULT 'off' CHECK (mode IN ('off', 'round_robin', 'capacity')),
  max_open integer CHECK (max_open BETWEEN 1 AND 1000),
  overrides jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(overrides) = 'object'),
  release_on_offline boolean NOT NULL DEFAULT true,
  updated_by text REFERENCES users(id) ON DELETE SET NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (mode <> 'capacity' OR max_open IS NOT NULL)
);
CREATE INDEX team_assignment_on_idx ON team_assignment (account_id) WHERE mode <> 'off';

ALTER TABLE team_members ADD COLUMN last_assigned_at timestamptz;

CREATE INDEX chats_waiting_team_idx ON chats (team_id, created_at, id)
  WHERE status = 'open' AND queue = 'Espera' AND user_id IS NULL AND snoozed_at IS NULL;
`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
DROP INDEX chats_waiting_team_idx;
ALTER TABLE team_members DROP COLUMN last_assigned_at;
DROP TABLE team_assignment;
DROP TABLE user_connections;
DROP INDEX users_available_idx;
ALTER TABLE users DROP COLUMN availability_at, DROP COLUMN availability_resume;
`.execute(db);
}

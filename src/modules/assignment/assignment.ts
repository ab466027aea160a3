import type { AssignmentMode } from '../../db/types.js';

/**
 * Who gets which waiting conversation (docs/adr/0085-availability-and-auto-assignment.md): pure, so
 * the rule is tested without a database. The caller holds the account's assignment lock and passes
 * the team's online agents with their open conversations now.
 */
export interface Candidate {
  userId: string;
  /** Open conversations the agent attends now, in every team. */
  open: number;
  /** The most they may have (null: no limit). */
  max: number | null;
  /** When assignment last gave them one of this team's conversations (ms; null: never). */
  lastAssignedAt: number | null;
}

const hasRoom = (c: Candidate) => c.max === null || c.open < c.max;

/** Earlier is better: never assigned first, then the longest since, then the user id (a stable order). */
const byLastAssigned = (a: Candidate, b: Candidate) =>
  (a.lastAssignedAt ?? -Infinity) - (b.lastAssignedAt ?? -Infinity) || (a.userId < b.userId ? -1 : 1);

/**
 * The agent of each chat, in the chats' order (oldest waiting first), until nobody has room: round
 * robin takes the agent who got one longest ago; capacity the least loaded, then the same. Each pick
 * counts at once, so one plan never puts an agent past their maximum.
 */
export function planAssignments(
  mode: Exclude<AssignmentMode, 'off'>,
  candidates: readonly Candidate[],
  chatIds: readonly string[],
): { chatId: string; userId: string }[] {
  const pool = candidates.map((c) => ({ ...c }));
  const out: { chatId: string; userId: string }[] = [];
  // Picks within the plan are later than any stored time, in the order they are made.
  let tick = Math.max(Date.now(), ...pool.map((c) => c.lastAssignedAt ?? 0));
  const order = (a: Candidate, b: Candidate) =>
    mode === 'capacity' ? a.open - b.open || byLastAssigned(a, b) : byLastAssigned(a, b);
  for (const chatId of chatIds) {
    let best: Candidate | null = null;
    for (const c of pool) if (hasRoom(c) && (best === null || order(c, best) < 0)) best = c;
    if (best === null) break;
    best.open += 1;
    best.lastAssignedAt = ++tick;
    out.push({ chatId, userId: best.userId });
  }
  return out;
}

/** The most open conversations the team's configuration lets an agent have (null: no limit). */
export const maxOf = (
  config: { max_open: number | null; overrides: Record<string, number> },
  userId: string,
) => config.overrides[userId] ?? config.max_open;

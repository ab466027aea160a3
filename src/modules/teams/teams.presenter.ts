import type { TeamRow } from './teams.repo.js';
import type { TeamT } from './teams.schemas.js';

/** A team row as the API shows it. */
export function toTeam(row: TeamRow): TeamT {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    status: row.status,
    members: row.members,
  };
}

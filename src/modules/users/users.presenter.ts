import type { UserRow } from './users.repo.js';
import type { UserT } from './users.schemas.js';

/** A user row as the API shows it. */
export function toUser(row: UserRow): UserT {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    status: row.status,
    role: { id: row.role_id, name: row.role_name },
    availability: row.availability,
  };
}

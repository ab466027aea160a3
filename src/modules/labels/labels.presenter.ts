import type { LabelRow } from './labels.repo.js';
import type { LabelT } from './labels.schemas.js';

export function toLabel(row: LabelRow): LabelT {
  return {
    id: row.id,
    name: row.name,
    color: row.color,
    description: row.description,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

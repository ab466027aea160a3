import type { CannedRow } from './canned.repo.js';
import type { CannedResponseT } from './canned.schemas.js';
import { variablesOf } from './canned.variables.js';

/** A response as the API shows it; `canManage` as the service judged it for the caller. */
export function toCanned(row: CannedRow, canManage: boolean): CannedResponseT {
  return {
    id: row.id,
    scope: row.scope,
    teamId: row.team_id,
    userId: row.user_id,
    shortcut: row.shortcut,
    content: row.content,
    variables: variablesOf(row.content),
    attachment:
      row.attachment_id && row.attachment_mimetype
        ? {
            mimetype: row.attachment_mimetype,
            filename: row.attachment_filename,
            size: Number(row.attachment_size ?? 0),
          }
        : null,
    usageCount: row.usage_count,
    lastUsedAt: row.last_used_at?.toISOString() ?? null,
    canManage,
    createdBy: row.created_by,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

import type { ApiKeyRow } from './api-keys.repo.js';
import type { ApiKeyT } from './api-keys.schemas.js';

/** An API key row as the API shows it (never its secret). */

export function toApiKey(row: ApiKeyRow): ApiKeyT {
  return {
    id: row.id,
    name: row.name,
    scopes: row.scopes,
    channelIds: row.channel_ids,
    createdBy: row.created_by,
    lastUsedAt: row.last_used_at?.toISOString() ?? null,
    revokedAt: row.revoked_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
  };
}

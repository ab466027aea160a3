import type { ApiKeyActor } from '../../access/actors.js';
import { unauthorized } from '../../http/errors.js';

/**
 * SQL that is true while the account API key `param` names is not revoked, for a statement that
 * checks the key in the same snapshot as the work it does (one round trip less than a lookup first).
 */
export const keyActiveSql = (param: string) =>
  `EXISTS (SELECT 1 FROM account_api_keys WHERE id = ${param} AND revoked_at IS NULL)`;

/** What a statement found with `keyActiveSql`: a revoked key is 401, an active one confirmed. */
export function keyChecked(actor: ApiKeyActor, active: boolean): void {
  if (!active) throw unauthorized();
  actor.check.confirmed = true;
}

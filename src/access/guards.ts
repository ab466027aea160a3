import { AppError } from '../http/errors.js';
import { pt } from '../http/language.js';
import type { ApiKeyActor, UserActor } from './actors.js';
import type { ApiKeyScope, Permission } from './permissions.js';

/** The checks every service makes of the acting user or key: 403 without a permission, 404 without a key's scope. */

export function requirePermission(actor: UserActor, permission: Permission): void {
  if (!actor.permissions.has(permission)) {
    throw new AppError(403, pt(`Permissão necessária: ${permission}`, `Permission required: ${permission}`));
  }
}

/** A key without the route's scope is answered as if the route did not exist (contract: 404). */
export function requireScope(actor: ApiKeyActor, scope: ApiKeyScope): void {
  if (!actor.scopes.includes(scope)) throw new AppError(404, 'Not Found');
}

/** Whether an account API key may reach a channel. */
export function keyAllowsChannel(actor: ApiKeyActor, channelId: string): boolean {
  return actor.channelIds === null || actor.channelIds.includes(channelId);
}

import type { Permission, ApiKeyScope } from './permissions.js';

/** A logged-in agent or admin, as loaded for each request (status and role are always current). */
export interface UserActor {
  kind: 'user';
  accountId: string;
  userId: string;
  name: string;
  permissions: ReadonlySet<Permission>;
}

/** An account API key calling the Channel API. `channelIds` null means every channel. */
export interface ApiKeyActor {
  kind: 'api_key';
  accountId: string;
  keyId: string;
  scopes: readonly ApiKeyScope[];
  channelIds: readonly string[] | null;
}

export type Actor = UserActor | ApiKeyActor;

export function actorRef(actor: Actor): { type: 'user' | 'api_key'; id: string } {
  return actor.kind === 'user' ? { type: 'user', id: actor.userId } : { type: 'api_key', id: actor.keyId };
}

import type { Permission, ApiKeyScope } from './permissions.js';

/** A logged-in agent or admin, as loaded for each request (status and role are always current). */
export interface UserActor {
  kind: 'user';
  accountId: string;
  userId: string;
  name: string;
  permissions: ReadonlySet<Permission>;
  /** Where the request came from, for the audit log (absent when the actor acts outside a request). */
  origin?: RequestOrigin;
}

export interface RequestOrigin {
  ip: string | null;
  userAgent: string | null;
}

/** An account API key calling the Channel API. `channelIds` null means every channel. */
export interface ApiKeyActor {
  kind: 'api_key';
  accountId: string;
  keyId: string;
  scopes: readonly ApiKeyScope[];
  channelIds: readonly string[] | null;
  /**
   * Whether the key is known not to be revoked as of this request: read from the database by the
   * guard, or checked by the statement that did the work (modules/api-keys/key-check.ts). A key the
   * guard took from this node's memory starts unconfirmed, and no answer leaves with it so: the
   * Channel API confirms it first (channel-api/guards.ts).
   */
  readonly check: { confirmed: boolean };
}

export type Actor = UserActor | ApiKeyActor;

export function actorRef(actor: Actor): { type: 'user' | 'api_key'; id: string } {
  return actor.kind === 'user' ? { type: 'user', id: actor.userId } : { type: 'api_key', id: actor.keyId };
}

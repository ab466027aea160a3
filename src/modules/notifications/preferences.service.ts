import type { UserActor } from '../../access/actors.js';
import type { PreferencesRepo, PreferencesRow } from './preferences.repo.js';
import {
  withDefaults,
  type NotificationPreferencesInput,
  type NotificationPreferencesT,
} from './preferences.schemas.js';

/**
 * A user's notification preferences: what the console announces with a sound and with a desktop
 * notification. Only the user reads and changes their own; the console applies them (the server sends
 * every event as before, whatever they say).
 */
export class NotificationPreferencesService {
  constructor(private readonly repo: PreferencesRepo) {}

  async get(actor: UserActor): Promise<NotificationPreferencesT> {
    return present(await this.repo.get(actor.userId));
  }

  async put(actor: UserActor, input: NotificationPreferencesInput): Promise<NotificationPreferencesT> {
    return present(await this.repo.put(actor.accountId, actor.userId, { ...input }));
  }
}

function present(row: PreferencesRow | undefined): NotificationPreferencesT {
  return { ...withDefaults(row?.preferences ?? null), updatedAt: row?.updated_at.toISOString() ?? null };
}

import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from '../../http/schemas.js';

/** How one moment is announced in the console. */
const Announce = Type.Object(
  {
    sound: Type.Boolean({ description: 'A short sound, played by one tab of the console' }),
    desktop: Type.Boolean({
      description: "A desktop notification (the browser's Notification API, once the browser allows it)",
    }),
  },
  { additionalProperties: false },
);

/** The moments the console announces. */
const MOMENTS = {
  newChat: 'a conversation arrives in the waiting queue of one of your teams',
  newMessage: 'a customer writes in a conversation you attend',
  transfer: 'a conversation is transferred or assigned to you, or a snoozed one comes back to you',
  mention: 'someone mentions you in a note',
} as const;

const moments = {
  newChat: Announce,
  newMessage: Announce,
  transfer: Announce,
  mention: Announce,
};

/** The body of `PUT /api/me/notification-preferences`: every moment, both ways. */
export const NotificationPreferencesBody = Type.Object(moments, {
  additionalProperties: false,
  description: Object.entries(MOMENTS)
    .map(([k, s]) => `\`${k}\`: ${s}.`)
    .join(' '),
});
export type NotificationPreferencesInput = Static<typeof NotificationPreferencesBody>;

export const NotificationPreferencesSchema = Type.Object(
  {
    ...moments,
    updatedAt: Nullable(
      Type.String({ format: 'date-time', description: 'When you last changed them; null for the defaults' }),
    ),
  },
  {
    description: `Which moments the console announces, and how; by default every one, both ways. ${Object.entries(
      MOMENTS,
    )
      .map(([k, s]) => `\`${k}\`: ${s}.`)
      .join(' ')}`,
  },
);
export type NotificationPreferencesT = Static<typeof NotificationPreferencesSchema>;

export const DEFAULT_PREFERENCES: NotificationPreferencesInput = {
  newChat: { sound: true, desktop: true },
  newMessage: { sound: true, desktop: true },
  transfer: { sound: true, desktop: true },
  mention: { sound: true, desktop: true },
};

/** A stored document read with the defaults filled in (a moment added later has its default). */
export function withDefaults(stored: Record<string, unknown> | null): NotificationPreferencesInput {
  const out: NotificationPreferencesInput = structuredClone(DEFAULT_PREFERENCES);
  if (!stored) return out;
  for (const key of Object.keys(MOMENTS) as (keyof typeof MOMENTS)[]) {
    const v = stored[key];
    if (typeof v !== 'object' || v === null) continue;
    const { sound, desktop } = v as Record<string, unknown>;
    if (typeof sound === 'boolean') out[key].sound = sound;
    if (typeof desktop === 'boolean') out[key].desktop = desktop;
  }
  return out;
}

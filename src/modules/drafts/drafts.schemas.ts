import { Type, type Static } from '@sinclair/typebox';
import { eventType } from '../../events/catalogue.js';

/** A reply draft as the API and the `draft.update` event show it. */
export const DraftSchema = Type.Object({
  chatId: Type.String(),
  text: Type.String({ description: 'Empty when the draft was cleared' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
export type DraftT = Static<typeof DraftSchema>;

export const DRAFT_UPDATE = eventType(
  'draft.update',
  Type.Object(
    { draft: DraftSchema },
    { description: "One of the user's drafts changed (on another device)" },
  ),
);

import { Type, type Static } from '@sinclair/typebox';
import { eventType } from '../../events/catalogue.js';
import { Nullable } from '../../http/schemas.js';

/** A user's notification as the API and the `notification.new` event show it. */
export const NotificationSchema = Type.Object({
  id: Type.String(),
  kind: Type.String({
    description:
      "`chat.assigned` (a chat was transferred or assigned to you), `chat.unsnoozed` (a snoozed chat you attend came back by itself, at its time or at the customer's message; for a chat without an attendant, to its team's members), `note.mention` (a colleague mentioned you in a private note), `webhook.disabled` (an outgoing webhook endpoint was disabled after failing), `channel.unhealthy` (the provider refused a channel's access token; to users with `channels:manage`), `contact.split` (`atende doctor` found other customers' messages in a contact and gave them contacts of their own; to users with `channels:manage`) or `sla.breached` (a conversation of your team missed its SLA target; to the team's supervisors)",
  }),
  data: Type.Unsafe<Record<string, unknown>>({
    type: 'object',
    additionalProperties: true,
    description:
      '`{chatId, by, contact: {name, value}, reasonCode, reason}` for chat.assigned; `{chatId, reason: time | customer_message, contact: {name, value}}` for chat.unsnoozed; `{chatId, noteId, by, byName, contact: {name, value}, excerpt}` for note.mention; `{webhookId, url}` for webhook.disabled; `{channelId, name, reason: {code, message, details?}}` for channel.unhealthy; `{channelId, channelName, contact: {id, name, value}, customers: [{contactId, name, value, messages, chatIds}]}` for contact.split; `{chatId, teamId, kind: first_response | resolution, dueAt, contact: {name, value}}` for sla.breached',
  }),
  readAt: Nullable(Type.String({ format: 'date-time' })),
  createdAt: Type.String({ format: 'date-time' }),
});
export type NotificationT = Static<typeof NotificationSchema>;

export const NOTIFICATION_NEW = eventType(
  'notification.new',
  Type.Object({ notification: NotificationSchema }, { description: "Something needs the user's attention" }),
);

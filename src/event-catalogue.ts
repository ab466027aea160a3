import type { EventCatalogue } from './events/catalogue.js';
import {
  CHAT_BOT_RELEASED,
  CHAT_CAPTURE,
  CHAT_CLOSE,
  CHAT_NEW,
  CHAT_QUEUE,
  CHAT_REOPEN,
  CHAT_SNOOZED,
  CHAT_SPLIT,
  CHAT_TRANSFER,
  CHAT_UNSNOOZED,
  CHAT_UPDATE,
  SLA_BREACHED,
} from './modules/chats/index.js';
import { CUSTOMER_MERGE, CUSTOMER_NOTE, CUSTOMER_UPDATE } from './modules/contacts/index.js';
import { DRAFT_UPDATE } from './modules/drafts/index.js';
import {
  CHAT_LABELS,
  CUSTOMER_LABELS,
  LABEL_CREATE,
  LABEL_DELETE,
  LABEL_UPDATE,
} from './modules/labels/index.js';
import { MESSAGE_UPDATE, MESSAGE_UPSERT } from './modules/messages/index.js';
import { NOTE_DELETE, NOTE_NEW, NOTE_UPDATE } from './modules/notes/index.js';
import { NOTIFICATION_NEW } from './modules/notifications/index.js';
import { BOT_UPDATE } from './modules/bots/index.js';
import { TEAM_BUSINESS_HOURS, TEAM_SLA } from './modules/teams/index.js';
import { TEAM_ASSIGNMENT, USER_AVAILABILITY } from './modules/assignment/index.js';
import { CHANNEL_FLOW, CHAT_CSAT } from './modules/flows/index.js';

/**
 * Every event of the log with the schema of its data, as the modules that own them declare them: what
 * `/docs/events.json` (AsyncAPI) publishes. A name of `EVENT_NAMES` without its module's declaration
 * here does not compile.
 */
export const EVENT_CATALOGUE: EventCatalogue = {
  'message.upsert': MESSAGE_UPSERT,
  'message.update': MESSAGE_UPDATE,
  'chat.new': CHAT_NEW,
  'chat.update': CHAT_UPDATE,
  'chat.queue': CHAT_QUEUE,
  'chat.capture': CHAT_CAPTURE,
  'chat.transfer': CHAT_TRANSFER,
  'chat.close': CHAT_CLOSE,
  'chat.reopen': CHAT_REOPEN,
  'chat.split': CHAT_SPLIT,
  'chat.snoozed': CHAT_SNOOZED,
  'chat.unsnoozed': CHAT_UNSNOOZED,
  'chat.bot_released': CHAT_BOT_RELEASED,
  'chat.labels': CHAT_LABELS,
  'customer.labels': CUSTOMER_LABELS,
  'label.create': LABEL_CREATE,
  'label.update': LABEL_UPDATE,
  'label.delete': LABEL_DELETE,
  'note.new': NOTE_NEW,
  'note.update': NOTE_UPDATE,
  'note.delete': NOTE_DELETE,
  'notification.new': NOTIFICATION_NEW,
  'draft.update': DRAFT_UPDATE,
  'customer.update': CUSTOMER_UPDATE,
  'customer.merge': CUSTOMER_MERGE,
  'customer.note': CUSTOMER_NOTE,
  'team.business_hours': TEAM_BUSINESS_HOURS,
  'bot.update': BOT_UPDATE,
  'team.sla': TEAM_SLA,
  'sla.breached': SLA_BREACHED,
  'team.assignment': TEAM_ASSIGNMENT,
  'user.availability': USER_AVAILABILITY,
  'channel.flow': CHANNEL_FLOW,
  'chat.csat': CHAT_CSAT,
};

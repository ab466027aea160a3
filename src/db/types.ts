/* eslint-disable max-lines -- one description of every table for Kysely, kept whole so that each column is found in one place. */
import type { ColumnType, Generated, Kysely, Transaction } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Json<T> = ColumnType<T, string | T, string | T>;

export interface AccountsTable {
  id: string;
  name: string;
  created_at: Timestamp;
}

/** Last seq of each account's event log, incremented in the transaction of each change (migration 018). */
export interface RolesTable {
  id: string;
  account_id: string;
  name: string;
  permissions: string[];
}

export type UserStatus = 'active' | 'onboarding' | 'cancelled';
export interface UsersTable {
  id: string;
  account_id: string;
  name: string;
  email: string;
  status: UserStatus;
  role_id: string;
  password_hash: string;
  /** Bumped to end every session of the user (migration 010). */
  token_version: Generated<number>;
  /** Whether the user takes conversations now (migration 054). */
  availability: ColumnType<UserAvailability, UserAvailability | undefined, UserAvailability>;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** When the availability last changed (migration 055). */
  availability_at: Timestamp;
  /** What the sweep set offline, back at the user's next gateway connection (migration 055). */
  availability_resume: ColumnType<'online' | 'away' | null, never, 'online' | 'away' | null>;
}

/** A user's gateway connections on one node (migration 055). */
export interface UserConnectionsTable {
  user_id: string;
  node_id: string;
  live: ColumnType<boolean, boolean | undefined, boolean>;
  seen_at: Timestamp;
}

export type AssignmentMode = 'off' | 'round_robin' | 'capacity';
/** A team's automatic assignment (migration 055); a team without a row assigns nothing. */
export interface TeamAssignmentTable {
  team_id: string;
  account_id: string;
  mode: AssignmentMode;
  max_open: number | null;
  /** Per-agent maximum of open conversations, by user id. */
  overrides: Json<Record<string, number>>;
  release_on_offline: boolean;
  updated_by: string | null;
  updated_at: Timestamp;
}

export type UserAvailability = 'online' | 'away' | 'offline';

export type TeamStatus = 'active' | 'inactive';
export interface TeamsTable {
  id: string;
  account_id: string;
  name: string;
  description: string | null;
  status: ColumnType<TeamStatus, TeamStatus | undefined, TeamStatus>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A team's business hours (migration 053); a team without a row is always open. */
export interface TeamBusinessHoursTable {
  team_id: string;
  account_id: string;
  time_zone: ColumnType<string, string | undefined, string>;
  /** Seven lists of `{start, end}` (`HH:MM`), Sunday first; null: no weekly hours. */
  weekly: Json<{ start: string; end: string }[][]> | null;
  holidays: ColumnType<string[], string[] | undefined, string[]>;
  updated_by: string | null;
  updated_at: Timestamp;
}

export interface TeamSlasTable {
  team_id: string;
  account_id: string;
  /** Business minutes to the first person's reply; null: no target. */
  first_response_minutes: number | null;
  /** Business minutes to the close; null: no target. */
  resolution_minutes: number | null;
  updated_by: string | null;
  updated_at: Timestamp;
}

export interface TeamMembersTable {
  team_id: string;
  user_id: string;
  added_at: Timestamp;
  /** When automatic assignment last gave the member a conversation of the team (migration 055). */
  last_assigned_at: ColumnType<Date | null, never, Date | null>;
}

export type ProviderName = 'sandbox' | 'whatsapp-cloud';
export interface ChannelsTable {
  id: string;
  account_id: string;
  name: string;
  provider: ProviderName;
  provider_config: Json<Record<string, unknown>>;
  api_enabled: ColumnType<boolean, boolean | undefined, boolean>;
  api_key_hash: Buffer | null;
  default_team_id: string;
  queue: ColumnType<string, string | undefined, string>;
  /** `unhealthy` once the provider refused the channel's credentials (migration 013). */
  health: ColumnType<ChannelHealth, ChannelHealth | undefined, ChannelHealth>;
  health_reason: Json<ProviderErrorInfo> | null;
  unhealthy_since: Date | null;
  /** Whether an agent reading a chat sends the provider a read receipt (migration 013). */
  send_read_receipts: ColumnType<boolean, boolean | undefined, boolean>;
  /** The bot new conversations go to (migration 057), within `bot_hours` when set. */
  bot_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** When the bot takes new conversations: business hours' shape; null: at any time. */
  bot_hours: ColumnType<BotHours | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type ChannelHealth = 'ok' | 'unhealthy';

/** A provider's error as stored: its code, message and, when it gave them, further details. */
export interface ProviderErrorInfo {
  code: string;
  message: string;
  details?: string;
}

export interface AccountApiKeysTable {
  id: string;
  account_id: string;
  name: string;
  token_hash: Buffer;
  scopes: string[];
  channel_ids: string[] | null;
  created_by: string | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
  created_at: Timestamp;
}

/** An admin action's line (migration 061): append-only, no secret in `details`. */
export interface AuditLogTable {
  /** bigserial: read as a string. */
  id: Generated<string>;
  account_id: string;
  actor_type: 'user' | 'api_key' | 'system';
  actor_id: string | null;
  action: string;
  target_type: string;
  target_id: string | null;
  details: Json<Record<string, unknown>>;
  ip: string | null;
  user_agent: string | null;
  created_at: Timestamp;
}

/** `user_id`: a customer known only by a provider's business-scoped user id (migration 011). */
export type ContactType = 'phone' | 'email' | 'user_id';
export interface ContactsTable {
  id: string;
  account_id: string;
  channel_id: string;
  type: ContactType;
  value: string;
  name: string | null;
  provider_address: string | null;
  /** When the customer last wrote: the 24-hour window runs from it (migration 015). */
  last_inbound_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /**
   * The person this contact is an address of (migration 027). Written by the database when a contact
   * is inserted (the account's earlier contact with the same value on another channel, or a customer of
   * its own with the contact's id); code sets it only to move a contact to another customer.
   */
  customer_id: ColumnType<string, string | undefined, string>;
  /** `search_fold(name)`, kept by the database (migration 052): what name searches compare. */
  search_name: ColumnType<string | null, never, never>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** An account's label (migration 028). */
export interface LabelsTable {
  id: string;
  account_id: string;
  name: string;
  /** `#rrggbb`. */
  color: string;
  description: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A label on a chat (migration 028). */
export interface ChatLabelsTable {
  chat_id: string;
  label_id: string;
  account_id: string;
  created_by: string | null;
  created_at: Timestamp;
  /** The chat's status and creation instant, the label's list order: kept by triggers (migration 064). */
  chat_status: ColumnType<ChatStatus, never, never>;
  chat_created_at: ColumnType<Date, never, never>;
}

/** A label on a customer (migration 028). */
export interface CustomerLabelsTable {
  customer_id: string;
  label_id: string;
  account_id: string;
  created_by: string | null;
  created_at: Timestamp;
}

export type CannedScope = 'account' | 'team' | 'personal';
/** A canned response (migration 041): account-wide, a team's or one user's. */
export interface CannedResponsesTable {
  id: string;
  account_id: string;
  scope: CannedScope;
  team_id: string | null;
  user_id: string | null;
  /** `account`, the team's id or the user's id: a shortcut is unique per owner. */
  owner_key: string;
  shortcut: string;
  content: string;
  /** The optional file, in `media_blobs`. */
  attachment_id: string | null;
  usage_count: ColumnType<number, number | undefined, number>;
  last_used_at: Date | null;
  created_by: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** Folded for search (`search_fold`), written by the database. */
  search_shortcut: ColumnType<string, never, never>;
  search_text: ColumnType<string, never, never>;
}

/** The person behind a channel's contacts (migration 027). */
export interface CustomersTable {
  id: string;
  account_id: string;
  name: string | null;
  /** Custom attribute values by key (migration 033), checked against `customer_attributes`. */
  attributes: Json<CustomerAttributeValues>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A customer's custom attribute values: text, list and date (`YYYY-MM-DD`) as strings, numbers as numbers. */
export type CustomerAttributeValues = Record<string, string | number>;

export type CustomerAttributeType = 'text' | 'number' | 'date' | 'list';
/** An admin's definition of a custom attribute of customers (migration 033). */
export interface CustomerAttributesTable {
  id: string;
  account_id: string;
  key: string;
  label: string;
  type: CustomerAttributeType;
  options: string[];
  description: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A note about a customer (migration 033); `edited_at` is set by the first edit. */
export interface CustomerNotesTable {
  id: string;
  account_id: string;
  customer_id: string;
  author_id: string | null;
  body: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  edited_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

/** The text a note's edit replaced (migration 033). */
export interface CustomerNoteEditsTable {
  id: string;
  note_id: string;
  editor_id: string | null;
  previous_body: string;
  created_at: Timestamp;
}

/** A merge of two customers (migration 033): the one kept, and what the merged one was. */
export interface CustomerMergesTable {
  id: string;
  account_id: string;
  customer_id: string;
  merged_customer_id: string;
  merged_name: string | null;
  merged_attributes: Json<CustomerAttributeValues>;
  contact_ids: string[];
  actor_id: string | null;
  created_at: Timestamp;
}

export type MessageOrigin = 'contact' | 'user' | 'api' | 'system';
export type MessageAutomation = 'flow' | 'bot';
export interface LastMessage {
  id: string;
  origin: MessageOrigin;
  type: string;
  content: string;
  createdAt: string;
  /** The agent who wrote it, for `user` messages (older rows may lack it). */
  userId?: string;
}

export type ChatStatus = 'open' | 'closed';
export interface ChatsTable {
  id: string;
  account_id: string;
  channel_id: string;
  contact_id: string;
  team_id: string;
  user_id: string | null;
  status: ColumnType<ChatStatus, ChatStatus | undefined, ChatStatus>;
  queue: string;
  unread_messages: ColumnType<number, number | undefined, number>;
  last_message: Json<LastMessage> | null;
  version: ColumnType<number, number | undefined, number>;
  created_at: Timestamp;
  updated_at: Timestamp;
  closed_at: Date | null;
  /** The user who closed it; null when the Channel API or a repair did, or before this was kept. */
  closed_by: ColumnType<string | null, string | null | undefined, string | null>;
  /** When the customer last wrote in this chat; kept by a trigger on `last_message` (migration 030). */
  last_customer_at: ColumnType<Date | null, never, never>;
  /** Since when the customer waits for an answer (null once answered); kept like `last_customer_at`. */
  waiting_since: ColumnType<Date | null, never, never>;
  /** Set while the chat is snoozed (migration 047); cleared by the wake-up, the customer or a close. */
  snoozed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** When the snooze ends by itself; null when only the customer's message (or an agent) ends it. */
  snoozed_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** The user who snoozed it. */
  snoozed_by: ColumnType<string | null, string | null | undefined, string | null>;
  /** The bot holding the conversation in queue `Automação` (migration 057); null otherwise. */
  bot_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** When the bot's answer to the customer is overdue; null while nothing waits for it. */
  bot_due_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** SLA clocks (migration 058): started by the customer's first message of the conversation. */
  sla_started_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  first_response_due_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  first_responded_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  first_response_breached_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  resolution_due_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  resolution_breached_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** A user's saved view of the chat list (migration 030). */
export interface ChatViewsTable {
  id: string;
  account_id: string;
  user_id: string;
  name: string;
  filters: Json<Record<string, unknown>>;
  position: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ChatCountsTable {
  account_id: string;
  status: string;
  channel_id: string;
  team_id: string;
  queue: string;
  user_id: string;
  /** A combination's total is the sum of its slots (migration 020). */
  slot: ColumnType<number, number | undefined, number>;
  n: ColumnType<string, number, number>;
}

/** Chats per status and queue, for one channel, team or attendant (migration 021). */
export interface ChatTotalsTable {
  account_id: string;
  status: string;
  dim: 'channel' | 'team' | 'user' | 'label';
  value: string;
  queue: string;
  slot: ColumnType<number, number | undefined, number>;
  n: ColumnType<string, number, number>;
}

export type MessageStatus = 'queued' | 'sent' | 'delivered' | 'read' | 'failed' | 'received';
export interface MessagesTable {
  id: string;
  account_id: string;
  chat_id: string;
  channel_id: string;
  origin: MessageOrigin;
  type: string;
  content: Json<Record<string, unknown>>;
  status: MessageStatus;
  provider_message_id: string | null;
  error: Json<{ code: number | string; message: string; details?: string }> | null;
  request_id: string | null;
  user_id: string | null;
  /**
   * A customer's message: the address the provider said it came from (WhatsApp's `wa_id`) and the
   * profile name it carried (migration 024; null on older messages and on the platform's own).
   */
  sender_address: ColumnType<string | null, string | null | undefined, string | null>;
  sender_name: ColumnType<string | null, string | null | undefined, string | null>;
  /** What the provider reported with its delivery statuses (migration 025). */
  delivery: ColumnType<DeliveryDetails | null, never, never>;
  /** A reply by a supervisor or admin in a conversation another agent attends (migration 048). */
  by_supervisor: ColumnType<boolean, boolean | undefined, never>;
  /** Written by the platform's automation: a channel's flow or a bot (migration 054); null otherwise. */
  automation: ColumnType<MessageAutomation | null, MessageAutomation | null | undefined, never>;
  /** The bot that wrote it, when `automation` is `bot`. */
  bot_id: ColumnType<string | null, string | null | undefined, never>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ChatTransfersTable {
  id: string;
  account_id: string;
  chat_id: string;
  from_team_id: string | null;
  to_team_id: string;
  from_user_id: string | null;
  to_user_id: string | null;
  reason_code: string | null;
  reason: string | null;
  /** `flow`: the channel's built-in flow routed it (`actor_id`: the channel; migration 056). */
  actor_type: 'api_key' | 'user' | 'flow';
  actor_id: string;
  created_at: Generated<Date>;
}

/** A channel's built-in flow (migration 056): `settings` as modules/flows/flow.ts declares it. */
export interface ChannelFlowsTable {
  channel_id: string;
  account_id: string;
  enabled: boolean;
  settings: Json<Record<string, unknown>>;
  updated_by: string | null;
  updated_at: Timestamp;
}

export type ChatFlowStage = 'menu' | 'csat';
/** What a channel's flow waits for in a conversation, and until when (migration 056). */
export interface ChatFlowsTable {
  chat_id: string;
  account_id: string;
  channel_id: string;
  contact_id: string;
  stage: ChatFlowStage;
  attempts: ColumnType<number, number | undefined, number>;
  due_at: Date;
  created_at: Timestamp;
}

/** A conversation's rating by the customer, with the attendant and team it is about (migration 056). */
export interface ChatCsatTable {
  chat_id: string;
  account_id: string;
  channel_id: string;
  team_id: string;
  user_id: string | null;
  score: number;
  created_at: Timestamp;
}

export type RequestStatus = 'queued' | 'processing' | 'sent' | 'failed';
/** Whom a Channel API request was for, as accepted. */
export interface RequestContact {
  type: ContactType;
  value: string;
  name: string | null;
}

export interface RequestLogsTable {
  request_id: string;
  account_id: string;
  channel_id: string;
  status: RequestStatus;
  idempotency_key: string | null;
  flow_id: string | null;
  metadata: Json<Record<string, string>>;
  contact: Json<RequestContact>;
  message_type: 'text' | 'template' | 'media';
  template_name: string | null;
  close_conversation: ColumnType<boolean, boolean | undefined, boolean>;
  payload: Json<Record<string, unknown>>;
  media_blob_id: string | null;
  message_id: string | null;
  provider_message_id: string | null;
  error: Json<ProviderErrorInfo> | null;
  attempts: ColumnType<number, number | undefined, number>;
  /** The chat the request was delivered into (set by its first attempt). */
  chat_id: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface MediaBlobsTable {
  id: string;
  account_id: string;
  mimetype: string;
  filename: string | null;
  /** The whole file, in rows of earlier versions; null when it is in `media_blob_chunks` (migration 026). */
  bytes: Buffer | null;
  size: number | null;
  chunk_size: number | null;
  created_at: Timestamp;
}

/** A chunk of a waiting outbound file (migration 026). */
export interface MediaBlobChunksTable {
  blob_id: string;
  seq: number;
  bytes: Buffer;
}

/** A message's file in the media store (migration 012); readable once `complete`. */
export interface MediaObjectsTable {
  message_id: string;
  account_id: string;
  mimetype: string;
  filename: string | null;
  size: ColumnType<number, number | undefined, number>;
  chunk_size: number;
  sha256: Buffer | null;
  complete: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: Timestamp;
}

export interface MediaChunksTable {
  message_id: string;
  seq: number;
  bytes: Buffer;
}

export interface SettingsTable {
  key: string;
  value: string;
}

export interface InboundWebhookEventsTable {
  id: string;
  account_id: string;
  channel_id: string;
  provider: ProviderName;
  body: Json<unknown>;
  received_at: Timestamp;
  processed_at: Date | null;
}

export type ProviderMessageStatus = 'sent' | 'delivered' | 'read' | 'failed';
export interface MessageStatusEventsTable {
  channel_id: string;
  provider_message_id: string;
  status: ProviderMessageStatus;
  error: Json<ProviderErrorInfo> | null;
  /** What the provider reported with this status besides it (migration 025). */
  details: Json<DeliveryDetails> | null;
  occurred_at: Date;
  received_at: Timestamp;
}

/** A read receipt queued for an inbound message (migration 013): at most one per message. */
export interface ReadReceiptsTable {
  message_id: string;
  account_id: string;
  channel_id: string;
  queued_at: Timestamp;
  sent_at: Date | null;
  error: Json<ProviderErrorInfo> | null;
}

export interface EventsTable {
  account_id: string;
  /** From `atende_event_seq()` (the column's default): one sequence for every account. */
  seq: Generated<number>;
  id: string;
  event: string;
  schema_version: number;
  occurred_at: Timestamp;
  rooms: string[];
  audience: string[];
  data: Json<Record<string, unknown>>;
}

/** Where the gateway that sends events for every node stopped (one row). */
export interface EventTailTable {
  id: Generated<boolean>;
  published_seq: number;
}

export interface NotificationsTable {
  id: string;
  account_id: string;
  user_id: string;
  kind: string;
  data: Json<Record<string, unknown>>;
  read_at: Date | null;
  created_at: Timestamp;
}

/** A private note in a conversation (migration 043): never sent, never a message. */
export interface ChatNotesTable {
  id: string;
  account_id: string;
  chat_id: string;
  /** The author; null once their user is gone. */
  user_id: string | null;
  text: string;
  mentions: string[];
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A user a note mentions, and the notification that told them (its read state is the mention's). */
export interface NoteMentionsTable {
  note_id: string;
  user_id: string;
  account_id: string;
  chat_id: string;
  notification_id: string;
  created_at: Timestamp;
}

export interface DraftsTable {
  user_id: string;
  chat_id: string;
  account_id: string;
  text: string;
  updated_at: Timestamp;
}

/** A user's notification preferences (migration 045); absent: the defaults. */
export interface NotificationPreferencesTable {
  user_id: string;
  account_id: string;
  preferences: Json<Record<string, unknown>>;
  updated_at: Timestamp;
}

/** The last typing indicator claimed per chat (migration 046). */
export interface TypingIndicatorsTable {
  chat_id: string;
  account_id: string;
  message_id: string;
  claimed_at: Timestamp;
  sent_at: Date | null;
  error: Json<ProviderErrorInfo> | null;
}

export interface WebhookSubscriptionsTable {
  id: string;
  account_id: string;
  url: string;
  events: string[];
  secret: string;
  enabled: ColumnType<boolean, boolean | undefined, boolean>;
  failing_since: Date | null;
  last_success_at: Date | null;
  disabled_at: Date | null;
  disabled_reason: 'failing' | 'manual' | null;
  created_by: string | null;
  /** The bot this endpoint is (migration 057): it receives only its conversations' events. */
  bot_id: ColumnType<string | null, string | null | undefined, never>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';
export interface WebhookDeliveriesTable {
  id: string;
  account_id: string;
  webhook_id: string;
  event_seq: number;
  status: ColumnType<WebhookDeliveryStatus, WebhookDeliveryStatus | undefined, WebhookDeliveryStatus>;
  attempts: ColumnType<number, number | undefined, number>;
  generation: ColumnType<number, number | undefined, number>;
  window_started_at: Date | null;
  last_attempt_at: Date | null;
  last_response_status: number | null;
  last_error: string | null;
  next_attempt_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** A worker's lease on an attempt in flight (migration 017); null when none is. */
  claimed_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
  delivered_at: Date | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** When a channel's bot takes new conversations (`channels.bot_hours`): business hours' shape. */
export interface BotHours {
  timeZone: string;
  weekly: { start: string; end: string }[][] | null;
  holidays: string[];
}

/** An account's bot (migration 057); deleted ones stay, named by the messages they wrote. */
export interface BotsTable {
  id: string;
  account_id: string;
  name: string;
  api_key_id: string;
  reply_timeout_seconds: ColumnType<number, number | undefined, number>;
  created_by: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** Reports' rollups (migration 059): one row per account, grain, UTC hour and key of the grain. */
export interface ReportRollupsTable {
  account_id: string;
  /** 0: an hour's row; 1: a local day's, in the reports' day zone. */
  span: number;
  grain: number;
  hour: Date;
  team_id: string;
  user_id: string;
  channel_id: string;
  label_id: string;
  opened: number;
  closed: number;
  reopened: number;
  transfers: number;
  attended: number;
  messages_in: number;
  messages_out: number;
  csat: number[];
  sla_fr_met: number;
  sla_fr_breached: number;
  sla_res_met: number;
  sla_res_breached: number;
  fr_n: number;
  fr_sum: number;
  fr_hist: Json<Record<string, [number, number]>>;
  wait_n: number;
  wait_sum: number;
  wait_hist: Json<Record<string, [number, number]>>;
  handling_n: number;
  handling_sum: number;
  handling_hist: Json<Record<string, [number, number]>>;
  resolution_n: number;
  resolution_sum: number;
  resolution_hist: Json<Record<string, [number, number]>>;
}

/** What the reports' consumer knows of a conversation between its events (migration 059). */
export interface ReportChatsTable {
  chat_id: string;
  account_id: string;
  status: string;
  queue: string;
  team_id: string;
  user_id: string | null;
  channel_id: string;
  label_ids: string[];
  cycle_started_at: Date | null;
  human_since: Date | null;
  waiting_since: Date | null;
  assigned_at: Date | null;
  first_response_at: Date | null;
  first_response_due_at: Date | null;
  first_response_breached: boolean;
  closed_at: Date | null;
}

/** The last event seq applied to the rollups (migration 059). */
export interface ReportCursorTable {
  id: ColumnType<boolean, boolean | undefined, never>;
  seq: number;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export interface Database {
  bots: BotsTable;
  settings: SettingsTable;
  accounts: AccountsTable;
  roles: RolesTable;
  users: UsersTable;
  teams: TeamsTable;
  team_members: TeamMembersTable;
  team_business_hours: TeamBusinessHoursTable;
  team_slas: TeamSlasTable;
  team_assignment: TeamAssignmentTable;
  user_connections: UserConnectionsTable;
  channels: ChannelsTable;
  account_api_keys: AccountApiKeysTable;
  audit_log: AuditLogTable;
  contacts: ContactsTable;
  customers: CustomersTable;
  labels: LabelsTable;
  chat_labels: ChatLabelsTable;
  customer_labels: CustomerLabelsTable;
  canned_responses: CannedResponsesTable;
  customer_attributes: CustomerAttributesTable;
  customer_notes: CustomerNotesTable;
  customer_note_edits: CustomerNoteEditsTable;
  customer_merges: CustomerMergesTable;
  chats: ChatsTable;
  chat_views: ChatViewsTable;
  chat_counts: ChatCountsTable;
  chat_totals: ChatTotalsTable;
  messages: MessagesTable;
  chat_transfers: ChatTransfersTable;
  channel_flows: ChannelFlowsTable;
  chat_flows: ChatFlowsTable;
  chat_csat: ChatCsatTable;
  request_logs: RequestLogsTable;
  media_blobs: MediaBlobsTable;
  media_blob_chunks: MediaBlobChunksTable;
  media_objects: MediaObjectsTable;
  media_chunks: MediaChunksTable;
  inbound_webhook_events: InboundWebhookEventsTable;
  message_status_events: MessageStatusEventsTable;
  read_receipts: ReadReceiptsTable;
  events: EventsTable;
  event_tail: EventTailTable;
  notifications: NotificationsTable;
  chat_notes: ChatNotesTable;
  note_mentions: NoteMentionsTable;
  drafts: DraftsTable;
  notification_preferences: NotificationPreferencesTable;
  typing_indicators: TypingIndicatorsTable;
  webhook_subscriptions: WebhookSubscriptionsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  report_rollups: ReportRollupsTable;
  report_chats: ReportChatsTable;
  report_cursor: ReportCursorTable;
}

/** An error a provider gave with a delivery status or a webhook. */
export interface InboundProviderError {
  code: string;
  /** The provider's title, or its message when it gave no title. */
  title: string | null;
  /** The provider's message, as given (null when it gave none). */
  message: string | null;
  details: string | null;
}

/**
 * What a provider reports with a message's delivery statuses besides the status: how it is charged,
 * the conversation it belongs to, the data the sender attached to it, and every error it gave.
 * Businesses reconcile the provider's invoices with it. Each part is absent when not reported.
 */
export interface DeliveryDetails {
  pricing?: DeliveryPricing;
  conversation?: DeliveryConversation;
  /** Text the sender attached to the message for its own tracking (WhatsApp's `biz_opaque_callback_data`). */
  callbackData?: string;
  /** Every error the provider gave with the status, as it gave them. */
  errors?: InboundProviderError[];
}

/** How the provider charges a message (WhatsApp's `pricing`). */
export interface DeliveryPricing {
  billable: boolean | null;
  /** `CBP` (per conversation), `PMP` (per message), or what the provider says. */
  pricingModel: string | null;
  /** `marketing`, `utility`, `authentication`, `service`, `referral_conversion`, or what the provider says. */
  category: string | null;
  /** `regular`, `free_customer_service`, `free_entry_point`, or what the provider says. */
  type: string | null;
}

/** The provider's conversation a message was charged in (WhatsApp's `conversation`). */
export interface DeliveryConversation {
  id: string | null;
  /** What opened it: `marketing`, `utility`, `authentication`, `service`, `referral_conversion`, … */
  originType: string | null;
  /** When the conversation ends (ISO 8601), when the provider said. */
  expiresAt: string | null;
}

/** The database as the repositories use it (built by `createDb`, src/db/index.ts), and a transaction of it. */
export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;

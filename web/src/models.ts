import type { events, operations } from './types';

// The console's names for the API's shapes: thin aliases over the types generated from the server's
// OpenAPI and AsyncAPI documents (types.ts, `npm run types`), named by the operation that answers them.

type Json<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type Success<R> = R extends { 200: infer A } ? A : R extends { 201: infer A } ? A : never;

/** The JSON an operation answers with on success. */
export type Answer<Op extends keyof operations> = Json<Success<operations[Op]['responses']>>;
/** The JSON body an operation takes. */
export type Body<Op extends keyof operations> = Json<NonNullable<operations[Op]['requestBody']>>;

export type Me = Answer<'getCurrentUser'>;
export type User = Answer<'getUser'>;
export type RoleName = Body<'createUser'>['role'];
export type UserStatus = NonNullable<Body<'createUser'>['status']>;
export type Team = Answer<'getTeam'>;
export type TeamBusinessHours = Answer<'getTeamBusinessHours'>;
export type TeamBusinessHoursBody = Body<'updateTeamBusinessHours'>;
export type TeamSla = Answer<'getTeamSla'>;
export type TeamSlaBody = Body<'updateTeamSla'>;
export type TeamAssignment = Answer<'getTeamAssignment'>;
export type TeamAssignmentBody = Body<'updateTeamAssignment'>;
export type MyAvailability = Answer<'getMyAvailability'>;
export type Availability = MyAvailability['availability'];
/** The supervisors' live board. */
export type LiveBoard = Answer<'getLiveBoard'>;
export type BoardTeam = LiveBoard['teams'][number];
export type BoardChannel = LiveBoard['channels'][number];
export type ChannelFlow = Answer<'getChannelFlow'>;
export type ChannelFlowBody = Body<'updateChannelFlow'>;
export type ChatCsat = Answer<'getChatCsat'>;
export type Channel = Answer<'getChannel'>;
export type ChannelTemplates = Answer<'listChannelTemplates'>;
export type ChannelTemplate = ChannelTemplates['templates'][number];
export type RequestLogPage = Answer<'listChannelRequestLogs'>;
export type RequestLog = RequestLogPage['items'][number];
export type ApiKey = Answer<'listApiKeys'>[number];
export type CreatedApiKey = Answer<'createApiKey'>;
export type ApiKeyScope = Body<'createApiKey'>['scopes'][number];

export type Chat = Answer<'getChat'>;
export type ChatLabel = Chat['labels'][number];
export type Label = Answer<'getLabel'>;
export type ChatView = Answer<'createChatView'>;
export type ChatViewFilters = ChatView['filters'];
export type ChatViewCounts = Answer<'countChatViews'>;
/** A customer's conversations (the history above a conversation). */
export type ConversationSummaryPage = Answer<'listContactChats'>;
export type ConversationSummary = ConversationSummaryPage['chats'][number];
/** The search box's three kinds of results. */
export type MessageSearchPage = Answer<'searchMessages'>;
export type MessageHit = MessageSearchPage['results'][number];
export type ContactSearchPage = Answer<'searchContacts'>;
export type ContactHit = ContactSearchPage['results'][number];
export type ChatSearchPage = Answer<'searchChats'>;
export type ChatHit = ChatSearchPage['results'][number];
export type ChatPage = Answer<'listAgentChats'>;
export type MessageHistory = Answer<'listChatMessages'>;
export type Message = MessageHistory['messages'][number];
/** What an agent's reply takes: text, a file, or a template. */
export type Reply = Body<'replyToChat'>;

/**
 * The stored file of a message, as `content.media` documents it (an open object in the schema):
 * `status` is `ready` once GET /api/messages/:id/media serves it, `failed` when it could not be had,
 * and absent while a customer's file is still being downloaded.
 */
export interface MediaContent {
  kind?: string;
  mimetype?: string;
  filename?: string;
  caption?: string;
  id?: string;
  status?: 'pending' | 'ready' | 'failed';
  size?: number;
  voice?: boolean;
  error?: { code: string; message: string };
}

/** A message's file, when it has one. */
export const mediaOf = (m: Message): MediaContent | undefined => m.content.media as MediaContent | undefined;

export type CannedResponse = Answer<'getCannedResponse'>;
export type CannedPage = Answer<'listCannedResponses'>;
export type CannedScope = CannedResponse['scope'];
export type RenderedCanned = Answer<'renderCannedResponse'>;

export type NotePage = Answer<'listChatNotes'>;
export type Note = Answer<'createChatNote'>;
export type MentionPage = Answer<'listMentions'>;
export type Mention = MentionPage['mentions'][number];
export type MentionableUser = Answer<'listMentionableUsers'>['users'][number];
export type ActivityPage = Answer<'listChatActivity'>;
export type ActivityLine = ActivityPage['activity'][number];

export type AppNotification = Answer<'markNotificationRead'>;
export type NotificationPage = Answer<'listNotifications'>;
export type Draft = Answer<'listDrafts'>[number];
export type NotificationPreferences = Answer<'getNotificationPreferences'>;

/** An outgoing webhook; `secret` only in the answer that set it. */
export type Webhook = Answer<'updateWebhook'>;
export type WebhookDeliveryPage = Answer<'listWebhookDeliveries'>;
export type WebhookDelivery = WebhookDeliveryPage['items'][number];

export type ConsoleConfig = Answer<'getConsoleConfig'>;

/** The gateway's events (every one an envelope), and `session.ready`, a connection's first packet. */
export type EventName = Exclude<keyof events, 'session.ready'>;
export type Envelope<E extends EventName = EventName> = events[E];
export type SessionReady = events['session.ready'];

/** A customer (the person behind a chat's contact), its notes and the admin's attribute definitions. */
export type Customer = Answer<'getContact'>;
export type CustomerPage = Answer<'listContacts'>;
export type CustomerNote = Answer<'createContactNote'>;
export type CustomerNotePage = Answer<'listContactNotes'>;
export type AttributeDefinition = Answer<'createCustomerAttribute'>;
export type ImportReport = Answer<'importContacts'>;

/** A label as the labels API answers it (its own module; the console reads it when present). */
export interface LabelItem {
  id: string;
  name: string;
  color: string;
}

/**
 * A conversation of a customer, as `GET /api/customers/{id}/chats` answers it (its own operation):
 * the fields the contact panel shows.
 */
export interface CustomerChat {
  id: string;
  channelId: string;
  status: string;
  teamId: string;
  userId: string | null;
  createdAt: string;
  closedAt: string | null;
}
export type BulkAction = Body<'bulkUpdateChats'>['action'];
export type BulkResults = Answer<'bulkUpdateChats'>;
export type Bot = Answer<'getBot'>;
export type CreatedBot = Answer<'createBot'>;
export type UpdatedBot = Answer<'updateBot'>;
export type ChannelBotBody = Body<'updateChannelBot'>;
/** A report (conversations or agents: one envelope), its figures, and the caller's own day. */
export type Report = Answer<'getConversationReport'>;
export type ReportMetrics = Report['totals'];
export type MyReport = Answer<'getMyReport'>;

export type AuditPage = Answer<'listAuditLog'>;
export type AuditEntry = AuditPage['entries'][number];

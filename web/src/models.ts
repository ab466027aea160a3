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
export type Channel = Answer<'getChannel'>;
export type ChannelTemplates = Answer<'listChannelTemplates'>;
export type ChannelTemplate = ChannelTemplates['templates'][number];
export type RequestLogPage = Answer<'listChannelRequestLogs'>;
export type RequestLog = RequestLogPage['items'][number];
export type ApiKey = Answer<'listApiKeys'>[number];
export type CreatedApiKey = Answer<'createApiKey'>;
export type ApiKeyScope = Body<'createApiKey'>['scopes'][number];

export type Chat = Answer<'getChat'>;
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

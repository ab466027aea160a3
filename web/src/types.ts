// Shapes of the REST API and the gateway, as the server documents them at /docs/json and
// /docs/events.json. The console reads only these public interfaces.

export interface Role {
  id: string;
  name: string;
}

export type UserStatus = 'active' | 'onboarding' | 'cancelled';
export type RoleName = 'admin' | 'supervisor' | 'agent';

export interface User {
  id: string;
  name: string;
  email: string;
  status: string;
  role: Role;
}

export interface Me {
  user: User;
  permissions: string[];
}

export interface LoginAnswer {
  accessToken: string;
  tokenType: 'Bearer';
  expiresIn: number;
  user: User;
}

export interface Team {
  id: string;
  name: string;
  description?: string | null;
  status: string;
  members: string[];
}

export interface Channel {
  id: string;
  name: string;
  provider: string;
  providerConfig: {
    phoneNumberId?: string;
    accessTokenSet?: boolean;
    appSecretSet?: boolean;
    verifyTokenSet?: boolean;
    businessAccountId?: string;
  };
  apiEnabled: boolean;
  hasApiKey: boolean;
  defaultTeamId: string;
  queue: string;
  /** `unhealthy` once the provider refused the channel's access token; a new token makes it `ok`. */
  health: 'ok' | 'unhealthy';
  healthReason: { code: string; message: string; details?: string } | null;
  unhealthySince: string | null;
  sendReadReceipts: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface LastMessage {
  id?: string;
  origin: string;
  type?: string;
  content: string;
  createdAt?: string;
  /** The agent who wrote it, for `user` messages. */
  userId?: string;
}

export interface Chat {
  id: string;
  status: string;
  queue: string;
  channelId: string;
  teamId: string;
  userId: string | null;
  contact: { id: string; name: string; value: string };
  unreadMessages: number;
  lastMessage: LastMessage | null;
  createdAt: string;
  updatedAt: string;
  /** The customer-service window: free text and media only while open (24 h after the customer wrote). */
  window?: { open: boolean; expiresAt: string | null };
}

/** An approved template of a channel (`GET /api/channels/:id/templates`). */
export interface ChannelTemplate {
  name: string;
  language: string;
  category: string | null;
  header: { format: string; text: string | null } | null;
  body: string | null;
  footer: string | null;
  buttons: { type: string; text: string; url: string | null }[];
  parameters: { header: string[]; body: string[]; buttons: { index: number; names: string[] }[] };
  named: boolean;
}

export interface ChannelTemplates {
  available: boolean;
  templates: ChannelTemplate[];
}

export interface ChatPage {
  total: number;
  page: number;
  limit: number;
  hasNextPage: boolean;
  nextPage: number | null;
  chats: Chat[];
}

export interface MediaContent {
  kind?: string;
  mimetype?: string;
  filename?: string;
  caption?: string;
  id?: string;
  /** The stored file: `ready` (GET /api/messages/:id/media), `failed`; absent while a download waits. */
  status?: 'pending' | 'ready' | 'failed';
  size?: number;
  error?: { code: string; message: string };
}

export interface Message {
  id: string;
  chatId: string;
  origin: string;
  type: string;
  content: { text?: string; media?: MediaContent; [key: string]: unknown };
  status: string;
  providerMessageId: string | null;
  /** Why a failed message failed; `details` is the provider's longer explanation, when given. */
  error: { code: string; message: string; details?: string } | null;
  /** What the provider reported with its delivery statuses (cost, conversation); absent until then. */
  delivery?: MessageDelivery;
  requestId: string | null;
  userId: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface MessageDelivery {
  pricing?: {
    billable: boolean | null;
    pricingModel: string | null;
    category: string | null;
    type: string | null;
  };
  conversation?: { id: string | null; originType: string | null; expiresAt: string | null };
  callbackData?: string;
  errors?: { code: string; title: string | null; message: string | null; details: string | null }[];
}

export interface MessageHistory {
  messages: Message[];
  nextBefore: string | null;
}

export interface RequestLog {
  requestId: string;
  status: string;
  attempts: number;
  flowId: string | null;
  metadata: Record<string, string> | null;
  contact: { type: string; value: string; name: string | null };
  messageType: string;
  templateName: string | null;
  messageId: string | null;
  providerMessageId: string | null;
  error: { code: string; message: string; details?: string } | null;
  createdAt: string;
  updatedAt: string;
}

export interface RequestLogPage {
  total: number;
  page: number;
  limit: number;
  hasNextPage: boolean;
  nextPage: number | null;
  items: RequestLog[];
}

export interface ApiKey {
  id: string;
  name: string;
  scopes: string[];
  channelIds: string[] | null;
  createdBy: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
  createdAt: string;
}

export interface CreatedApiKey {
  id: string;
  name: string;
  scopes: string[];
  channelIds: string[] | null;
  token: string;
}

export interface AppNotification {
  id: string;
  kind: string;
  data: Record<string, unknown>;
  readAt: string | null;
  createdAt: string;
}

export interface Draft {
  chatId: string;
  text: string;
  updatedAt: string;
}

/** An outgoing webhook subscription (GET /api/webhooks); `secret` only in the answer that set it. */
export interface Webhook {
  id: string;
  url: string;
  events: string[];
  enabled: boolean;
  secretHint: string;
  failingSince: string | null;
  lastSuccessAt: string | null;
  disabledAt: string | null;
  /** `failing` (disabled by the platform) or `manual`. */
  disabledReason: string | null;
  createdAt: string;
  updatedAt: string;
  secret?: string;
}

export interface WebhookDelivery {
  id: string;
  webhookId: string;
  eventId: string;
  event: string;
  seq: number;
  /** `pending`, `delivered` or `failed`. */
  status: string;
  attempts: number;
  lastAttemptAt: string | null;
  lastResponseStatus: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface WebhookDeliveryPage {
  total: number;
  page: number;
  limit: number;
  hasNextPage: boolean;
  nextPage: number | null;
  items: WebhookDelivery[];
}

/** The gateway's envelope: every server event except `session.ready`. */
export interface Envelope<D = Record<string, unknown>> {
  id: string;
  event: string;
  schemaVersion: number;
  seq: number;
  occurredAt: string;
  accountId: string;
  data: D;
}

export interface SessionReady {
  userId: string | null;
  accountId: string | null;
  seq: number | null;
  recovered: boolean;
}

/** `GET /console.json`: a configured gateway address, else its port on the console's own host. */
export interface ConsoleConfig {
  gatewayUrl: string | null;
  gatewayPort: number | null;
  gatewayPath: string;
  /** True while the installation has no user: the login page says how to create the first admin. */
  needsFirstAdmin?: boolean;
}

export const QUEUE_WAITING = 'Espera';
export const QUEUE_ATTENDING = 'Em Atendimento';

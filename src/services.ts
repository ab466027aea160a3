/* eslint-disable max-lines -- the one wiring of every service, kept whole so that each dependency is found in one place. */
import type { Logger } from 'pino';
import type { JobQueue } from './jobs/queue.js';
import { SendQueue } from './jobs/send-queue.js';
import type { Config } from './config.js';
import type { Db } from './db/index.js';
import type { Metrics } from './metrics/metrics.js';
import { EventsRepo } from './events/events.repo.js';
import { EventsService } from './events/events.service.js';
import { Doorbell } from './db/doorbell.js';
import { GatewayAccess } from './gateway/access.js';
import { GatewayRepo } from './gateway/gateway.repo.js';
import { CHANNEL_KEY, RequestRateLimiter, USER } from './http/rate-limit.js';
import { TokenService } from './lib/jwt.js';
import type { SharedStore } from './lib/shared-rate-limit.js';
import { Tracing } from './lib/tracing.js';
import { AccountsRepo, AccountsService } from './modules/accounts/index.js';
import { ApiKeysRepo, ApiKeysService } from './modules/api-keys/index.js';
import { AuditRepo, AuditService } from './modules/audit/index.js';
import { AuthService, LoginRateLimiter } from './modules/auth/index.js';
import {
  ChannelHealthService,
  ChannelsRepo,
  ChannelsService,
  TemplatesService,
  ChannelKeys,
} from './modules/channels/index.js';
import {
  ChatListsRepo,
  ChatMovesService,
  createChatTimers,
  ChatsRepo,
  ChatsService,
  ChatTransfersRepo,
} from './modules/chats/index.js';
import { CannedRepo, CannedService } from './modules/canned/index.js';
import {
  ContactsRepo,
  ContactRepairRepo,
  ContactRepairService,
  CustomerAttributeLookup,
  CustomerAttributesRepo,
  CustomerCsvService,
  CustomerImportRepo,
  CustomerAttributesService,
  CustomerNotesRepo,
  CustomerNotesService,
  CustomersRepo,
  CustomersService,
} from './modules/contacts/index.js';
import { DraftsRepo, DraftsService } from './modules/drafts/index.js';
import {
  NotificationPreferencesService,
  NotificationsRepo,
  NotificationsService,
  PreferencesRepo,
} from './modules/notifications/index.js';
import { NotesRepo, NotesService } from './modules/notes/index.js';
import { ActivityRepo, ActivityService } from './modules/activity/index.js';
import { MessagesService, MessageEvents, MessagesRepo } from './modules/messages/index.js';
import {
  ReplySender,
  Deliverer,
  RequestLogsRepo,
  SendService,
  SendWorker,
} from './modules/outbound/index.js';
import {
  InboundActions,
  InboundService,
  ReadReceiptsRepo,
  ReadReceiptsService,
  TypingIndicatorService,
  TypingIndicatorsRepo,
  MessageStatusRepo,
  MessageStatusService,
  InboundEventsRepo,
  ProviderWebhooksService,
} from './modules/inbound/index.js';
import {
  PostgresMediaStore,
  MediaBlobsRepo,
  MediaRepo,
  MediaDownloader,
  MediaDownloads,
  MediaService,
} from './modules/media/index.js';
import {
  DataExportService,
  ErasureRepo,
  ErasureService,
  PrivacyRepo,
  RetentionService,
} from './modules/privacy/index.js';
import { ProviderRegistry } from './providers/registry.js';
import { SettingsRepo } from './modules/settings/index.js';
import { SandboxRepo, SandboxService } from './modules/sandbox/index.js';
import { createTeamsServices, TeamsRepo } from './modules/teams/index.js';
import { createAssignmentServices } from './modules/assignment/index.js';
import { createBoardServices } from './modules/board/index.js';
import { createFlowsServices } from './modules/flows/index.js';
import { createReportsServices } from './modules/reports/index.js';
import { LabelsRepo, LabelsService } from './modules/labels/index.js';
import { BulkService } from './modules/bulk/index.js';
import { ChatViewsRepo, ChatViewsService } from './modules/chat-views/index.js';
import { HistoryRepo, HistoryService } from './modules/history/index.js';
import { SearchRepo, SearchService } from './modules/search/index.js';
import { UsersRepo, UsersService } from './modules/users/index.js';
import { createBotsServices } from './modules/bots/index.js';
import {
  WebhookEgress,
  WebhooksRepo,
  WebhooksService,
  WebhookDeliverer,
  WebhookQueueRepo,
} from './modules/webhooks/index.js';

/** Every service of the platform, wired explicitly from the database, the config and Redis. */
export function createServices(deps: {
  db: Db;
  config: Config;
  jwtSecret: string;
  /** Redis and its health monitor, when configured. */
  redis: SharedStore | null;
  jobs: JobQueue;
  logger: Logger;
  /** This server's metrics (src/metrics): counted by the services, served by the server. */
  metrics: Metrics;
  /** Traces (src/lib/tracing.ts), when configured; off by default. */
  tracing?: Tracing;
}) {
  const { db, config } = deps;
  const tracing = deps.tracing ?? Tracing.off;
  const repos = {
    users: new UsersRepo(db),
    teams: new TeamsRepo(db),
    channels: new ChannelsRepo(db),
    apiKeys: new ApiKeysRepo(db),
    chats: new ChatsRepo(db),
    contacts: new ContactsRepo(db),
    messages: new MessagesRepo(),
    requestLogs: new RequestLogsRepo(db),
    settings: new SettingsRepo(db),
  };
  // The audit log: written by the admin services in the transaction of each change they make.
  const audit = new AuditService(new AuditRepo(db));
  const tokens = new TokenService(deps.jwtSecret, config.jwtTtlSeconds);
  // Outgoing webhooks: deliveries are created with the events in the same statement (they are their
  // own queue), then sent by the worker role (webhookDeliverer).
  const webhooksRepo = new WebhooksRepo(db);
  // Wakes readers of committed work (the gateway's tail, webhook workers) here and on other nodes.
  const doorbell = new Doorbell(db, deps.logger);
  // The event log: written in each change's transaction, sent by the gateway's tail (src/events).
  const eventsRepo = new EventsRepo(db);
  const events = new EventsService(
    db,
    eventsRepo,
    repos.teams,
    { days: config.eventRetentionDays, activityDays: config.activityRetentionDays },
    doorbell,
  );
  // Where webhooks may connect: checked at registration and on the resolved address of every attempt.
  const webhookEgress = new WebhookEgress({ allowPrivateNetworks: config.webhooks.allowPrivateNetworks });
  const notifications = new NotificationsService(new NotificationsRepo(db));
  const gatewayRepo = new GatewayRepo(db);
  // Agents' replies: stored and queued by the service, sent by the sender in SendWorker's jobs.
  const messageEvents = new MessageEvents(repos.chats, repos.messages);
  // A channel whose credentials the provider refuses, on any call, is marked unhealthy (admins told).
  const channelHealth = new ChannelHealthService(repos.channels, events, notifications, deps.logger);
  const providers = new ProviderRegistry(config.whatsapp, channelHealth, tracing);
  // Provider calls of every outbound message (Channel API requests, agents' replies).
  const deliverer = new Deliverer(providers, deps.metrics);
  // Replies, edits, revokes and reactions resolved to the message they name; number changes.
  const inboundActions = new InboundActions(repos.messages, repos.contacts, messageEvents, deps.logger);
  // Messages' files (customers' downloads, agents' attachments), in PostgreSQL: every node reads them.
  const mediaStore = new PostgresMediaStore(db);
  const mediaRepo = new MediaRepo();
  // Outbound files waiting for their upload to the provider.
  const mediaBlobs = new MediaBlobsRepo(db);
  // Data subjects' rights (LGPD): export and erasure of everything about a person.
  const privacyRepo = new PrivacyRepo(db);
  const chats = new ChatsService(repos.chats, new ChatListsRepo(db), repos.teams);
  // Snoozes and SLA clocks: started by agents and customers' messages (inbound), ended or raised at
  // their time by the worker role's loops (SnoozeWaker, SlaBreachLoop; src/workers.ts).
  const timers = createChatTimers(db, repos.chats, chats, events, notifications, config, deps.logger);
  // Bots: their hold on conversations starts in inbound, ends by the chat moves or the worker role's
  // deadline loop (docs/adr/0087-bots.md); their admin.
  const hooks = { repo: webhooksRepo, egress: webhookEgress };
  const bots = createBotsServices(db, repos, events, hooks, config.botPollMs, deps.logger, audit);
  // Outbound messages (Channel API requests, agents' replies, flows'): FIFO per contact, run by SendWorker.
  const sendQueue = new SendQueue(db);
  const teamsServices = createTeamsServices(db, repos.teams, repos.users, events, audit);
  // Channels' built-in flows: run in inbound messages' and closes' transactions, and by the worker role.
  const flowsServices = createFlowsServices(
    deps,
    { repos, chats, messageEvents, sendQueue, events, audit },
    teamsServices,
  );
  const inbound = new InboundService(
    db,
    repos.chats,
    repos.contacts,
    repos.messages,
    repos.channels,
    events,
    inboundActions,
    timers.chatSnooze,
    timers.chatSla,
    config.phoneDefaultCountry,
    bots.botHold,
    flowsServices.flows,
    new MediaDownloads(deps.jobs),
  );
  // Delivery statuses: applied from provider webhooks, and caught up by the send pipeline.
  const messageStatuses = new MessageStatusService(
    new MessageStatusRepo(),
    repos.messages,
    deps.logger,
    events,
    messageEvents,
    repos.requestLogs,
    tracing,
  );
  const providerWebhooks = new ProviderWebhooksService(
    db,
    repos.channels,
    new InboundEventsRepo(db),
    deps.jobs,
    inbound,
    messageStatuses,
    providers,
    deps.logger,
  );
  const readReceipts = new ReadReceiptsService(new ReadReceiptsRepo(db), deps.jobs, providers, deps.logger);
  // Transfers, queue moves, capture, close, reading: each change of a chat with its events.
  const chatMoves = new ChatMovesService(
    repos.chats,
    new ChatTransfersRepo(db),
    chats,
    events,
    notifications,
    readReceipts,
    flowsServices.flows,
  );
  const labels = new LabelsService(new LabelsRepo(db), chats, repos.chats, events, audit);
  // A customer's conversations, and who may open which (also the search's rule).
  const history = new HistoryService(new HistoryRepo(db), repos.teams);
  const replySender = new ReplySender(
    db,
    repos.messages,
    repos.contacts,
    deliverer,
    deps.logger,
    events,
    messageEvents,
    mediaStore,
    mediaBlobs,
  );
  // Customers (the person behind contacts): the contact panel, the contacts page, attributes, notes.
  const customersRepo = new CustomersRepo(db);
  const attributeDefinitions = new CustomerAttributesRepo(db);
  const customerAttributes = new CustomerAttributesService(db, attributeDefinitions, customersRepo, audit);
  const customers = new CustomersService(db, customersRepo, customerAttributes, repos.teams, events, audit);
  return {
    db,
    metrics: deps.metrics,
    tracing,
    jobs: deps.jobs,
    sendQueue,
    repos,
    tokens,
    /** Whether Redis answers (null without Redis): for readiness and whatever falls back without it. */
    redisHealth: deps.redis?.health ?? null,
    /** Request budgets: per account API key, per channel key (send-message), per user (agent API). */
    rateLimiter: new RequestRateLimiter(
      config.rateLimit.points,
      config.rateLimit.durationSeconds,
      deps.redis,
    ),
    channelKeyRateLimiter: new RequestRateLimiter(
      config.channelKeyRateLimit.points,
      config.channelKeyRateLimit.durationSeconds,
      deps.redis,
      CHANNEL_KEY,
    ),
    userRateLimiter: new RequestRateLimiter(
      config.userRateLimit.points,
      config.userRateLimit.durationSeconds,
      deps.redis,
      USER,
    ),
    accounts: new AccountsService(db, new AccountsRepo()),
    auth: new AuthService(
      repos.users,
      tokens,
      events,
      new LoginRateLimiter(config.loginRateLimit, deps.redis),
    ),
    users: new UsersService(db, repos.users, events, audit),
    audit,
    // Availability and automatic assignment; its loops start with the worker role and the gateway.
    ...createAssignmentServices(db, repos, { events, notifications, doorbell, audit }, config, deps.logger),
    ...teamsServices,
    // The supervisors' live board: one read of the account's open conversations, shared.
    ...createBoardServices(db, repos),
    ...flowsServices,
    // Reports: read from rollups that the worker role's consumer of the event log keeps up to date.
    ...createReportsServices(
      db,
      repos,
      { horizon: events.horizon, doorbell, audit },
      { pollMs: 1_000, batch: 1_000 },
      deps.logger,
    ),
    channels: new ChannelsService(db, repos.channels, repos.teams, audit),
    templates: new TemplatesService(repos.channels, providers),
    apiKeys: new ApiKeysService(repos.apiKeys, db, audit),
    ...bots,
    chats,
    chatMoves,
    labels,
    // Actions on a selection of chats: each through the single action's service above.
    bulk: new BulkService(repos.chats, chats, repos.teams, chatMoves, labels, timers.chatSnooze),
    ...timers,
    chatViews: new ChatViewsService(db, new ChatViewsRepo(db), chats),
    customers,
    customerAttributes,
    customerNotes: new CustomerNotesService(new CustomerNotesRepo(db), customers, customersRepo, events),
    customerCsv: new CustomerCsvService(
      customers,
      customersRepo,
      new CustomerImportRepo(db),
      customerAttributes,
      events,
      config.phoneDefaultCountry,
      audit,
    ),
    history,
    search: new SearchService(new SearchRepo(db), history),
    events,
    eventsRepo,
    notifications,
    notificationPreferences: new NotificationPreferencesService(new PreferencesRepo(db)),
    webhooks: new WebhooksService(db, webhooksRepo, webhookEgress, audit),
    doorbell,
    webhookDeliverer: new WebhookDeliverer(
      webhooksRepo,
      new WebhookQueueRepo(db),
      webhookEgress,
      doorbell,
      events,
      notifications,
      config.webhooks,
      deps.logger,
      deps.metrics,
      tracing.enabled
        ? { tracing, sendTraceparent: (requestId) => repos.requestLogs.traceparentOf(db, requestId) }
        : null,
    ),
    // Canned responses; custom-attribute variables follow the account's attribute definitions.
    canned: new CannedService(
      db,
      new CannedRepo(db),
      repos.teams,
      chats,
      mediaBlobs,
      new CustomerAttributeLookup(attributeDefinitions, customersRepo),
      providers.get('whatsapp-cloud').limits,
      audit,
    ),
    // Private notes and their mentions (a note is never a message: nothing that sends reads it).
    notes: new NotesService(new NotesRepo(db), chats, events, notifications),
    // A conversation's activity lines, read from the event log.
    activity: new ActivityService(new ActivityRepo(db), chats),
    drafts: new DraftsService(new DraftsRepo(db), repos.chats, chats, events),
    gatewayRepo,
    gatewayAccess: new GatewayAccess(gatewayRepo, repos.users, repos.teams),
    inbound,
    providerWebhooks,
    messageStatuses,
    mediaStore,
    media: new MediaService(db, mediaRepo, mediaStore, chats),
    dataExport: new DataExportService(db, privacyRepo, mediaStore, audit),
    erasures: new ErasureService(db, new ErasureRepo(db), privacyRepo, mediaStore, deps.jobs, audit),
    retention: new RetentionService(db, mediaStore, audit),
    mediaDownloader: new MediaDownloader(
      db,
      mediaRepo,
      mediaStore,
      providers,
      events,
      messageEvents,
      deps.logger,
    ),
    sandbox: new SandboxService(repos.channels, repos.chats, chats, new SandboxRepo(db), messageStatuses),
    deliverer,
    providers,
    channelHealth,
    readReceipts,
    typingIndicator: new TypingIndicatorService(
      db,
      new TypingIndicatorsRepo(db),
      deps.jobs,
      providers,
      deps.logger,
    ),
    channelKeys: new ChannelKeys(repos.channels),
    /** `atende doctor`: contacts whose messages came from more than one customer, found and split. */
    contactRepair: new ContactRepairService(
      new ContactRepairRepo(db),
      repos.channels,
      repos.chats,
      providers,
      events,
      messageEvents,
      notifications,
      deps.logger,
    ),
    send: new SendService(
      db,
      repos.requestLogs,
      mediaBlobs,
      repos.channels,
      sendQueue,
      providers,
      config.phoneDefaultCountry,
      repos.chats,
      bots.botHold,
    ),
    messages: new MessagesService(
      db,
      repos.messages,
      repos.chats,
      chats,
      sendQueue,
      events,
      messageEvents,
      mediaStore,
      repos.channels,
      providers,
    ),
    sendWorker: new SendWorker({
      db,
      requests: repos.requestLogs,
      mediaBlobs,
      contacts: repos.contacts,
      chats: repos.chats,
      messages: repos.messages,
      deliverer,
      statuses: messageStatuses,
      replies: replySender,
      logger: deps.logger,
      events,
      messageEvents,
      tracing,
    }),
  };
}

export type Services = ReturnType<typeof createServices>;

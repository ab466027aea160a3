import type { Logger } from 'pino';
import type { Db } from '../../db/index.js';
import type { AuditService } from '../audit/index.js';
import type { EventsService } from '../../events/events.service.js';
import type { ApiKeysRepo } from '../api-keys/index.js';
import type { ChannelsRepo } from '../channels/index.js';
import type { ChatsRepo } from '../chats/index.js';
import { type WebhookEgress, type WebhooksRepo, WebhooksService } from '../webhooks/index.js';
import { BotHoldService } from './bot-hold.service.js';
import { BotTimeoutWorker } from './bot-timeout.worker.js';
import { BotsRepo } from './bots.repo.js';
import { BotsService } from './bots.service.js';

/**
 * The bots module's services: the hold on conversations (started by inbound, ended by the chat moves
 * and by the worker role's deadline loop, `botTimeouts`, src/workers.ts) and the bots' admin.
 */
export function createBotsServices(
  db: Db,
  repos: { chats: ChatsRepo; apiKeys: ApiKeysRepo; channels: ChannelsRepo },
  events: EventsService,
  webhooks: { repo: WebhooksRepo; egress: WebhookEgress },
  pollMs: number,
  logger: Logger,
  audit: AuditService,
) {
  const repo = new BotsRepo(db);
  const botHold = new BotHoldService(repo, repos.chats, events);
  return {
    botHold,
    bots: new BotsService(
      db,
      repo,
      repos.apiKeys,
      webhooks.repo,
      // Its URL check only: the bot's endpoint is refused where a webhook's would be.
      new WebhooksService(db, webhooks.repo, webhooks.egress, audit),
      repos.channels,
      botHold,
      events,
      audit,
    ),
    botTimeouts: new BotTimeoutWorker(botHold, pollMs, logger),
  };
}

import type { Config } from '../../config.js';
import type { Db } from '../../db/index.js';
import type { AuditService } from '../audit/index.js';
import type { EventsService } from '../../events/events.service.js';
import type { SendQueue } from '../../jobs/send-queue.js';
import type { Logger } from 'pino';
import type { ChatsRepo, ChatsService } from '../chats/index.js';
import type { ChannelsRepo } from '../channels/index.js';
import type { MessageEvents, MessagesRepo } from '../messages/index.js';
import type { BusinessHoursService, TeamsRepo } from '../teams/index.js';
import { FlowSettingsService } from './flow-settings.service.js';
import { FlowTimer } from './flow-timer.worker.js';
import { FlowsRepo } from './flows.repo.js';
import { FlowsService } from './flows.service.js';

/**
 * The flows module's services as the platform wires them: the runtime (called in the transactions of
 * inbound messages and closes), the admin side, and the worker role's timer.
 */
export function createFlowsServices(
  platform: { db: Db; config: Pick<Config, 'flowPollMs'>; logger: Logger },
  deps: {
    repos: { chats: ChatsRepo; channels: ChannelsRepo; teams: TeamsRepo; messages: MessagesRepo };
    chats: Pick<ChatsService, 'canSee'>;
    messageEvents: MessageEvents;
    sendQueue: SendQueue;
    events: EventsService;
    audit: AuditService;
  },
  teams: { businessHours: Pick<BusinessHoursService, 'isOpen'> },
) {
  const { repos } = deps;
  const repo = new FlowsRepo(platform.db);
  const flows = new FlowsService(
    repo,
    repos.chats,
    repos.messages,
    deps.messageEvents,
    deps.sendQueue,
    deps.events,
    teams.businessHours,
  );
  return {
    flows,
    flowSettings: new FlowSettingsService(
      repo,
      repos.chats,
      deps.chats,
      repos.channels,
      repos.teams,
      deps.events,
      deps.audit,
    ),
    // Started by the worker role (src/workers.ts).
    flowTimer: new FlowTimer(flows, platform.config.flowPollMs, platform.logger),
  };
}

import type { Logger } from 'pino';
import type { Db } from '../../db/index.js';
import type { EventsService } from '../../events/events.service.js';
import type { NotificationsService } from '../notifications/index.js';
import { ChatSlaRepo } from './chat-sla.repo.js';
import { ChatSlaService } from './chat-sla.service.js';
import { SlaBreachLoop } from './chat-sla.worker.js';
import { ChatSnoozeRepo } from './chat-snooze.repo.js';
import { ChatSnoozeService } from './chat-snooze.service.js';
import { SnoozeWaker } from './chat-snooze.worker.js';
import type { ChatsRepo } from './chats.repo.js';
import type { ChatsService } from './chats.service.js';

/**
 * The chats' timed behaviours as the platform wires them: snoozes (ADR 78) and SLA clocks (ADR 88),
 * each a service that inbound and the routes call and a loop the worker role starts (src/workers.ts).
 */
export function createChatTimers(
  db: Db,
  repo: ChatsRepo,
  chats: ChatsService,
  events: EventsService,
  notifications: NotificationsService,
  config: { snoozePollMs: number; slaPollMs: number },
  logger: Logger,
) {
  const chatSnooze = new ChatSnoozeService(repo, new ChatSnoozeRepo(db), chats, events, notifications);
  const chatSla = new ChatSlaService(repo, new ChatSlaRepo(db), events, notifications);
  return {
    chatSnooze,
    snoozeWaker: new SnoozeWaker(chatSnooze, config.snoozePollMs, logger),
    chatSla,
    slaBreaches: new SlaBreachLoop(chatSla, config.slaPollMs, logger),
  };
}

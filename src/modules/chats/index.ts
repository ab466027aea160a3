// The chats module's public entry: what other modules, the gateway and the wiring may use of it.
export { chatWindow, toChat } from './chats.presenter.js';
export { ChatsRepo, QUEUE_API } from './chats.repo.js';
export { chatsRoutes } from './chats.routes.js';
export {
  ActorRefSchema,
  type ActorRefT,
  BOT_RELEASE_REASONS,
  type BotReleaseReason,
  CHAT_BOT_RELEASED,
  CHAT_CAPTURE,
  CHAT_CLOSE,
  CHAT_NEW,
  CHAT_QUEUE,
  CHAT_REOPEN,
  CHAT_SPLIT,
  CHAT_SNOOZED,
  CHAT_TRANSFER,
  CHAT_UNSNOOZED,
  CHAT_UPDATE,
  ChatSlaSchema,
  type ChatSlaT,
  SLA_BREACHED,
  SLA_KINDS,
  type SlaKind,
  AgentChatSchema,
  AgentListFilters,
  type AgentListQueryT,
  ChatPageSchema,
  ChatSchema,
  type ChatT,
  LabelRefSchema,
  type LabelRefT,
  LastMessageSchema,
  ListChatsQuery,
} from './chats.schemas.js';
export { ChatMovesService } from './chat-moves.service.js';
export { CHAT_BUSY, isLockUnavailable } from './held-change.js';
export {
  CHAT_CLOSED,
  CHAT_NOT_CLOSED,
  OPEN_ELSEWHERE,
  TEAM_TRANSFER_WAIT_MS,
} from './chat-moves.messages.js';
export { ALREADY_YOURS, TAKEOVER_FORBIDDEN, TAKEOVER_REASON } from './chat-takeover.js';
export { chatSearch, ChatsService } from './chats.service.js';
export { ChatSnoozeRepo } from './chat-snooze.repo.js';
export {
  ChatSnoozeService,
  snoozeEnd,
  SNOOZE_IN_PAST,
  SNOOZE_NEEDS_END,
  SNOOZE_TOO_FAR,
  type SnoozeInput,
} from './chat-snooze.service.js';
export { SnoozeWaker } from './chat-snooze.worker.js';
export { ChatSlaRepo } from './chat-sla.repo.js';
export { ChatSlaService } from './chat-sla.service.js';
export type { SlaStart } from './chat-sla.js';
export { SlaBreachLoop } from './chat-sla.worker.js';
export { createChatTimers } from './chat-timers.wiring.js';
export { ChatListsRepo, type ChatSearch } from './chat-lists.repo.js';
export { SLA_AT_RISK_MINUTES, slaAtRiskSql, slaBreachedSql, type SlaFilter } from './chat-sla-state.js';
export { ChatTransfersRepo } from './chat-transfers.repo.js';
export { botReleased, NO_BOT, QUEUE_ATTENDING, QUEUE_AUTOMATION, QUEUE_WAITING } from './chat-queues.js';

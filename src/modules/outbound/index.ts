// The outbound module's public entry: what other modules, the gateway and the wiring may use of it.
export { Deliverer } from './deliver.js';
export { ReplySender } from './reply-sender.js';
export { RequestLogsRepo } from './request-logs.repo.js';
export {
  PHONE_PATTERN,
  RequestIdParams,
  RequestLogPage,
  RequestLogQuery,
  RequestLogSchema,
  SendAccepted,
  SendHeaders,
  SendChatMessageBody,
  SendMessageBody,
} from './send.schemas.js';
export { SendService } from './send.service.js';
export { SendWorker } from './send.worker.js';

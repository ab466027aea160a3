// The message-content module's public entry: what other modules, the gateway and the wiring may use of it.
export {
  Message,
  messageRulesJudgedOnSend,
  REPLY_JSON_BODY,
  ReplyMediaSchema,
  SEND_BODY_LIMIT_BYTES,
  SEND_JSON_BODY,
  Str,
  TemplateMessageSchema,
  TEXT_MAX_LENGTH,
} from './content.schemas.js';
export { type SendMessage } from './content.types.js';
export { prepareMessage, type RequestMedia, type RequestMessage } from './prepare.js';

/**
 * Job payloads. Jobs carry ids only: the rows they point to (request log, message, webhook event)
 * hold the data, so a job never carries secrets or media bytes.
 */

/** A job of the send queue (src/jobs/send-queue.ts), in the lane sendOrderingKey(channelId, contactValue). */
export type SendMessageJob =
  /** A Channel API send request (row in request_logs). */
  | { kind: 'api_request'; requestId: string }
  /** An agent's reply already stored as a queued message (row in messages). */
  | { kind: 'agent_message'; messageId: string };

/** Messages to one contact on one channel reach the provider in the order they were accepted. */
export function sendOrderingKey(channelId: string, contactValue: string): string {
  return `${channelId}:${contactValue}`;
}

/** `inbound-webhook` queue: one stored provider webhook delivery. */
export interface InboundWebhookJob {
  eventId: string;
}

/** `read-receipt` queue: tell the provider an agent read the customer's messages up to this one. */
export interface ReadReceiptJob {
  messageId: string;
}

/** `typing-indicator` queue: tell the provider an agent is typing in this chat (row in typing_indicators). */
export interface TypingIndicatorJob {
  chatId: string;
}

/** `media-download` queue: the file of a customer's media message (row in messages). */
export interface MediaDownloadJob {
  messageId: string;
}

/** `contact-erasure` queue: an erasure (row in erasures) whose steps remain. */
export interface ContactErasureJob {
  erasureId: string;
}

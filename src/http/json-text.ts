import type { FastifyReply } from 'fastify';
import { pageInfo } from './schemas.js';

declare const jsonText: unique symbol;

/**
 * A response body already serialized (by PostgreSQL, see ChatsRepo.listApiPageJson): JSON text in the
 * shape of the route's documented 200 schema. The brand keeps arbitrary strings from being sent as JSON.
 */
export type JsonText = string & { readonly [jsonText]: true };

/** Marks text built to match a response schema; only the builders of such text call it. */
export const asJsonText = (text: string): JsonText => text as JsonText;

/** A page envelope (`pageOf`) around items already serialized as a JSON array. */
export function pageJson(
  total: number,
  page: number,
  limit: number,
  key: string,
  itemsJson: string,
): JsonText {
  const info = JSON.stringify(pageInfo(total, page, limit));
  return asJsonText(`${info.slice(0, -1)},${JSON.stringify(key)}:${itemsJson}}`);
}

/**
 * Sends pre-serialized JSON as it is. With a JSON content type set, Fastify sends a string payload
 * without running the route's response serializer, so the text must already be what that schema would
 * write (test/channel-api/channel-api-list-bodies.test.ts compares it with the serializer's); the schema stays on
 * the route for the OpenAPI document.
 */
export function sendJsonText(reply: FastifyReply, body: JsonText): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(body);
}

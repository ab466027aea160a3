import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Base64Decoder, type DecodedBase64 } from '../lib/base64-stream.js';
import { badRequest } from './errors.js';
import { JsonScanner, tooLarge } from './json-scanner.js';

/**
 * Reading JSON bodies as they arrive, under bounds checked byte by byte: nesting depth, members of
 * one object or array, and the size of everything but one streamed value. A body past a bound is
 * refused the moment the reader reaches it — before the rest arrives, let alone is parsed — so no
 * body, however large or odd, costs more than its first bytes up to the bound. One route value may be
 * streamed instead of parsed (the base64 of a media message): its text goes, a slice at a time, to a
 * decoder, and the rest of the body (the "envelope", small) is parsed with the ordinary JSON parser.
 * See docs/adr/0060-request-bodies-read-as-they-arrive.md for why and what it costs.
 */

/**
 * Most members (keys or items) of one object or array in a body, unless the route says fewer. Above
 * any list the API takes, so that a list a little too long gets its schema's sentence.
 */
export const MAX_JSON_MEMBERS = 10_000;

/** How a route's JSON body is read, beyond the defaults. */
export interface JsonBodyOptions {
  /**
   * Keys from the body's root to a string value streamed to a base64 decoder instead of parsed, e.g.
   * `['message', 'media', 'base64']`; the route reads it with `streamedBase64Of`.
   */
  streamBase64At?: readonly string[];
  /** Most bytes of the body outside the streamed value (default: the route's body limit). */
  envelopeLimit?: number;
  /** Most members of one object or array (default MAX_JSON_MEMBERS). */
  maxMembers?: number;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    jsonBody?: JsonBodyOptions;
  }
  interface FastifyRequest {
    /** The decoded streamed value of the route's `streamedBase64`, when the body had it as a string. */
    streamedBase64: DecodedBase64 | null;
  }
}

/** The streamed value of a request, for a route declaring `config.streamedBase64`. */
export function streamedBase64Of(request: FastifyRequest): DecodedBase64 | null {
  return request.streamedBase64;
}

/**
 * The JSON parser of every route. Bodies are scanned as they arrive (`JsonScanner`); the envelope is
 * then parsed by Fastify's own parser (which refuses `__proto__` and `constructor` keys). An empty
 * body is no body: routes that take none accept the `Content-Type` many clients send anyway, and
 * routes that need one say so through their schema.
 */
export function installJsonParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.decorateRequest('streamedBase64', null);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', (request, payload, done) => {
    const limit = request.routeOptions.bodyLimit;
    const declared = Number(request.headers['content-length']);
    if (declared > limit) {
      done(tooLarge(), undefined);
      return;
    }
    const options = request.routeOptions.config.jsonBody ?? {};
    const decoder = options.streamBase64At ? new Base64Decoder() : null;
    const scanner = new JsonScanner({
      envelopeLimit: Math.min(options.envelopeLimit ?? limit, limit),
      maxMembers: options.maxMembers ?? MAX_JSON_MEMBERS,
      path: options.streamBase64At ?? null,
      sink: decoder,
    });
    let received = 0;
    let finished = false;
    const finish = (err: Error | null, body?: unknown) => {
      if (finished) return;
      finished = true;
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', onError);
      // What is left of a refused body is not read: the answer closes the connection.
      if (err) payload.pause();
      done(err, body);
    };
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      received += bytes.length;
      if (received > limit) return finish(tooLarge());
      try {
        scanner.write(bytes);
      } catch (err) {
        finish(err as Error);
      }
    };
    const onEnd = () => {
      if (!Number.isNaN(declared) && received !== declared) {
        return finish(badRequest('Request body size did not match Content-Length'));
      }
      let envelope: Buffer;
      try {
        envelope = scanner.end();
      } catch (err) {
        return finish(err as Error);
      }
      if (envelope.length === 0) {
        // No body where the route takes one: the sentence clients know; elsewhere, nothing to read.
        return request.routeOptions.schema?.body ? finish(emptyBody()) : finish(null, undefined);
      }
      parse(request, envelope.toString('utf8'), (err: Error | null, value?: unknown) => {
        if (err) return finish(err);
        if (decoder && scanner.streamedFound) request.streamedBase64 = decoder.end();
        finish(null, value);
      });
    };
    const onError = (err: Error) => finish(Object.assign(err, { statusCode: 400 }));
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onError);
    payload.resume();
  });
}

const emptyBody = () => badRequest('Body cannot be empty when content-type is set to application/json');

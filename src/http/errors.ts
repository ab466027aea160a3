import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import { en, pt, render, requestLanguage, type Language, type Message } from './language.js';
import { validationMessages, type AjvError } from './validation-messages.js';

/** The contract's error body. `error` is left out only of 429 answers. */
export interface ErrorBody {
  statusCode: number;
  message: string | string[];
  error?: string;
}

export function errorBody(statusCode: number, message: string | string[]): ErrorBody {
  return { statusCode, message, error: STATUS_CODES[statusCode] ?? 'Error' };
}

/**
 * A failure with a defined HTTP answer; services throw these, the error handler renders them in the
 * request's language (see `requestLanguage`). `body` is the base wording.
 */
export class AppError extends Error {
  readonly body: string | string[];
  constructor(
    public readonly statusCode: number,
    private readonly messages: Message | Message[],
    public readonly headers: Record<string, string> = {},
    public readonly omitErrorField = false,
  ) {
    const body = bodyIn(messages, undefined);
    super(Array.isArray(body) ? body.join('; ') : body);
    this.body = body;
    this.name = 'AppError';
  }

  bodyIn(language: Language | undefined): string | string[] {
    return bodyIn(this.messages, language);
  }
}

const bodyIn = (m: Message | Message[], language: Language | undefined) =>
  Array.isArray(m) ? m.map((x) => render(x, language)) : render(m, language);

const NOT_FOUND = en('Not Found', 'Não encontrado');
const FORBIDDEN = en('Forbidden', 'Acesso negado');
const MISSING_CREDENTIAL = pt('Credencial ausente ou inválida', 'Missing or invalid credentials');

export const badRequest = (message: Message | Message[]) => new AppError(400, message);
export const unauthorized = (message: Message = MISSING_CREDENTIAL) => new AppError(401, message);
export const forbidden = (message: Message = FORBIDDEN) => new AppError(403, message);
export const notFound = (message: Message = NOT_FOUND) => new AppError(404, message);
export const conflict = (message: Message) => new AppError(409, message);

/** Seconds a client is asked to wait when the database is unreachable: about a restart's length. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;
export const DATABASE_UNAVAILABLE_MESSAGE = en(
  'The service is temporarily unavailable because its database cannot be reached; try again shortly',
  'O serviço está temporariamente indisponível porque o banco de dados não pode ser acessado; tente novamente em instantes',
);
export const databaseUnavailable = () =>
  new AppError(503, DATABASE_UNAVAILABLE_MESSAGE, { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) });

export function sendError(reply: FastifyReply, err: AppError): FastifyReply {
  return reply.send(renderError(reply, err));
}

/**
 * `err`'s status and headers set on `reply`, and its body in the request's language: what `sendError`
 * sends, for a hook that replaces an answer already made (onSend) with it as JSON text.
 */
export function renderError(reply: FastifyReply, err: AppError): ErrorBody {
  reply.headers(err.headers);
  reply.status(err.statusCode);
  const message = err.bodyIn(requestLanguage(reply.request));
  return err.omitErrorField ? { statusCode: err.statusCode, message } : errorBody(err.statusCode, message);
}

/** Every error, from any route or from Fastify itself, leaves in the contract's body. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError & { validationContext?: string }, request, reply) => {
    if (err instanceof AppError) return sendError(reply, err);
    if (err.validation) {
      return reply
        .status(400)
        .send(
          errorBody(
            400,
            validationMessages(err.validation as AjvError[], err.validationContext, requestLanguage(request)),
          ),
        );
    }
    // A database restart, failover or outage: the client may retry; the node carries on.
    if (isDatabaseUnavailable(err)) {
      request.log.warn({ err: err.message }, 'database unavailable');
      return sendError(reply, databaseUnavailable());
    }
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return reply.status(status).send(errorBody(status, clientMessage(err, status)));
    }
    request.log.error({ err }, 'unhandled error');
    return reply.status(500).send(errorBody(500, 'Internal Server Error'));
  });
  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) =>
    reply.status(404).send(errorBody(404, `Cannot ${request.method} ${request.url.split('?')[0]}`)),
  );
}

function clientMessage(err: FastifyError, status: number): string {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'Content-Type must be application/json';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'Request body is too large';
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'Body cannot be empty when content-type is set to application/json';
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return 'Malformed JSON body';
    default:
      if (err instanceof SyntaxError) return 'Malformed JSON body';
      return status === 404 ? 'Not Found' : err.message || (STATUS_CODES[status] ?? 'Error');
  }
}

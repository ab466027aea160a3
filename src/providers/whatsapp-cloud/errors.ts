import { ProviderError } from '../types.js';

/**
 * Graph API failures → ProviderError. The decision rests on the Graph `error.code` (docs/whatsapp.md
 * "Errors and their classes": not on the HTTP status); only an answer without a Graph error body falls back to the status.
 */

/** Codes worth retrying with backoff (throttling, transient service trouble); all others are final. */
export const TEMPORARY_GRAPH_CODES: ReadonlySet<number> = new Set([
  1, 2, 4, 80007, 130429, 131000, 131016, 131048, 131056, 133004, 133016,
]);

/**
 * Of those, the rate limits (application, account, throughput, spam and per-recipient pair limits):
 * told apart in the metrics, since they call for sending slower rather than for a fix.
 */
const RATE_LIMIT_GRAPH_CODES: ReadonlySet<number> = new Set([4, 80007, 130429, 131048, 131056]);

/**
 * Graph error 190: the access token expired, was revoked, or is not a token at all. Every call of the
 * channel fails the same way until an admin stores a new one.
 */
export const TOKEN_REFUSED_CODE = '190';

export function isTokenRefused(err: ProviderError): boolean {
  return err.code === TOKEN_REFUSED_CODE;
}

/** Graph's codes of a rate limit (the caller's, the number's, or the pair's). */
export function isGraphRateLimit(err: ProviderError): boolean {
  return RATE_LIMIT_GRAPH_CODES.has(Number(err.code));
}

interface GraphErrorBody {
  code: number;
  message: string;
  details?: string;
}

/** The `error` object of a Graph answer, or null when the body is not one. */
export function readGraphError(body: unknown): GraphErrorBody | null {
  if (typeof body !== 'object' || body === null) return null;
  const error = (body as { error?: unknown }).error;
  if (typeof error !== 'object' || error === null) return null;
  const e = error as { code?: unknown; message?: unknown; error_data?: unknown };
  const code = typeof e.code === 'number' ? e.code : typeof e.code === 'string' ? Number(e.code) : NaN;
  if (!Number.isInteger(code)) return null;
  const data = e.error_data;
  const details =
    typeof data === 'object' && data !== null && typeof (data as { details?: unknown }).details === 'string'
      ? (data as { details: string }).details
      : undefined;
  return {
    code,
    message: typeof e.message === 'string' && e.message !== '' ? e.message : `Graph API error ${code}`,
    ...(details !== undefined ? { details } : {}),
  };
}

/** A non-2xx answer (its parsed JSON body, or undefined when it had none or was not JSON). */
export function classifyGraphError(status: number, body: unknown): ProviderError {
  const graph = readGraphError(body);
  if (graph) {
    return new ProviderError(
      String(graph.code),
      graph.message,
      TEMPORARY_GRAPH_CODES.has(graph.code),
      graph.details,
    );
  }
  // No Graph body: a proxy or load balancer answered. Overload and server trouble pass; the rest won't.
  const temporary = status >= 500 || status === 429 || status === 408;
  return new ProviderError(`http_${status}`, `WhatsApp Cloud API answered HTTP ${status}`, temporary);
}

/** The HTTP call threw: no answer at all (refused, reset, DNS) or our own timeout fired. */
export function classifyTransportError(err: unknown): ProviderError {
  const e = err instanceof Error ? err : new Error(String(err));
  if (e.name === 'TimeoutError') {
    return new ProviderError('timeout', 'WhatsApp Cloud API did not answer in time', true);
  }
  const cause = e.cause instanceof Error ? e.cause : undefined;
  const detail = cause?.message ?? e.message;
  return new ProviderError('network_error', `Could not reach the WhatsApp Cloud API: ${detail}`, true);
}

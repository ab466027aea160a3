// The REST client: same origin, the HttpOnly `access_token` cookie set by POST /auth/login.

export class ApiError extends Error {
  constructor(
    public readonly status: number,
    public readonly messages: string[],
  ) {
    super(messages.join('; ') || `HTTP ${status}`);
    this.name = 'ApiError';
  }
}

type Listener = () => void;
const unauthorizedListeners = new Set<Listener>();

/** Called when any request answers 401: the session has ended (expired token, logged out elsewhere). */
export function onUnauthorized(fn: Listener): () => void {
  unauthorizedListeners.add(fn);
  return () => unauthorizedListeners.delete(fn);
}

function messagesOf(body: unknown, status: number): string[] {
  if (body && typeof body === 'object' && 'message' in body) {
    const m = (body as { message: unknown }).message;
    if (Array.isArray(m)) return m.map(String);
    if (typeof m === 'string') return [m];
  }
  return [`HTTP ${status}`];
}

/** The console's chosen language: the server writes its error messages in it. */
let language = 'pt-BR';

/** Called by the language picker (and at start) so every request asks for the chosen language. */
export function setApiLanguage(lang: string): void {
  language = lang;
}

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const init: RequestInit = {
    method,
    credentials: 'same-origin',
    headers: { accept: 'application/json', 'accept-language': language },
  };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { ...init.headers, 'content-type': 'application/json' };
  }
  let res: Response;
  try {
    res = await fetch(path, init);
  } catch {
    throw new ApiError(0, ['network']);
  }
  const text = await res.text();
  let parsed: unknown = null;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  if (!res.ok) {
    if (res.status === 401 && !path.startsWith('/auth/')) for (const fn of unauthorizedListeners) fn();
    throw new ApiError(res.status, messagesOf(parsed, res.status));
  }
  return parsed as T;
}

export const get = <T>(path: string) => api<T>('GET', path);
export const post = <T>(path: string, body?: unknown) => api<T>('POST', path, body ?? {});
export const patch = <T>(path: string, body: unknown) => api<T>('PATCH', path, body);
export const put = <T>(path: string, body: unknown) => api<T>('PUT', path, body);
export const del = <T>(path: string) => api<T>('DELETE', path);

/** A file the API answers (not JSON), e.g. a canned response's attachment. */
export async function getBlob(path: string): Promise<Blob> {
  let res: Response;
  try {
    res = await fetch(path, { credentials: 'same-origin', headers: { 'accept-language': language } });
  } catch {
    throw new ApiError(0, ['network']);
  }
  if (!res.ok) {
    if (res.status === 401) for (const fn of unauthorizedListeners) fn();
    throw new ApiError(res.status, [`HTTP ${res.status}`]);
  }
  return res.blob();
}

/** A query string from the defined, non-empty values. */
export function qs(params: Record<string, string | number | boolean | null | undefined>): string {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params))
    if (v !== undefined && v !== null && v !== '') u.set(k, String(v));
  const s = u.toString();
  return s ? `?${s}` : '';
}

/** Reads a File as base64 without the `data:` prefix, as the API takes media. */
export function fileToBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onerror = () => reject(reader.error ?? new Error('read failed'));
    reader.onload = () => {
      const url = String(reader.result);
      resolve(url.slice(url.indexOf(',') + 1));
    };
    reader.readAsDataURL(file);
  });
}

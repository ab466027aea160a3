import type { FastifyRequest } from 'fastify';

/** The languages the admin/agent API answers in when asked (`Accept-Language`). */
export type Language = 'pt-BR' | 'en';

/**
 * A sentence an error carries, in every language. `base` is the wording given when no language is
 * asked for, and always on the Channel API: the sentences its integrators already parse, some in
 * English (the validation wording), some in Portuguese (`Equipe não encontrada`).
 */
export class Text {
  constructor(
    readonly base: string,
    private readonly translations: Readonly<Record<Language, string>>,
  ) {}

  in(language: Language | undefined): string {
    return language === undefined ? this.base : this.translations[language];
  }

  toString(): string {
    return this.base;
  }
}

/** A sentence whose base wording is English. */
export const en = (english: string, portuguese: string) =>
  new Text(english, { en: english, 'pt-BR': portuguese });
/** A sentence whose base wording is Portuguese (`english` is what an `en` client reads instead). */
export const pt = (portuguese: string, english: string) =>
  new Text(portuguese, { en: english, 'pt-BR': portuguese });

/** A message as services throw it: a Text translates, a plain string reads the same in every language. */
export type Message = string | Text;

export const render = (m: Message, language: Language | undefined): string =>
  typeof m === 'string' ? m : m.in(language);

/** Routes whose answers follow `Accept-Language`: the console's API. The Channel API never does. */
const LOCALIZED_PREFIXES = ['/api/', '/auth/'];

/** At most this many language ranges are read: the header is the client's, its length is not. */
const MAX_RANGES = 20;

/**
 * The supported language the `Accept-Language` header prefers (RFC 9110, section 12.5.4: quality values,
 * first listed wins a tie), or undefined when it names none of them — then the base wording.
 * Any Portuguese range means pt-BR, any English one en.
 */
export function preferredLanguage(header: string | undefined): Language | undefined {
  if (!header) return undefined;
  let best: Language | undefined;
  let bestQ = 0;
  for (const range of header.split(',').slice(0, MAX_RANGES)) {
    const [tag = '', ...params] = range.trim().split(';');
    const primary = tag.trim().toLowerCase().split('-')[0];
    const language: Language | undefined = primary === 'pt' ? 'pt-BR' : primary === 'en' ? 'en' : undefined;
    if (!language) continue;
    let q = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/i.exec(p);
      if (m) q = Number(m[1]);
    }
    if (q > bestQ) {
      best = language;
      bestQ = q;
    }
  }
  return best;
}

/** The language to answer `request` in; undefined (base wording) outside the console's API. */
export function requestLanguage(request: FastifyRequest): Language | undefined {
  const path = request.url;
  if (!LOCALIZED_PREFIXES.some((p) => path.startsWith(p))) return undefined;
  const header = request.headers['accept-language'];
  return preferredLanguage(Array.isArray(header) ? header[0] : header);
}

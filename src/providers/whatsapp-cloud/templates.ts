import type { ProviderTemplate } from '../types.js';

/**
 * Meta's message templates (`GET /<WABA id>/message_templates`) in the platform's terms. Components
 * come in upper case (`HEADER`, `BODY`, `FOOTER`, `BUTTONS`); placeholders are `{{1}}`, `{{2}}`… in a
 * positional template and `{{first_name}}` in a named one (`parameter_format: NAMED`).
 */

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** The distinct placeholders of a text, in the order their values are sent. */
function placeholders(text: string | null, named: boolean): string[] {
  if (!text) return [];
  const seen: string[] = [];
  for (const m of text.matchAll(PLACEHOLDER)) if (m[1] && !seen.includes(m[1])) seen.push(m[1]);
  // Named values keep the text's order; positional ones go by number, whatever the text's order.
  return named ? seen : seen.sort((a, b) => Number(a) - Number(b));
}

/** One entry of the `data` list, or null when it is not an approved template the adapter can read. */
export function readGraphTemplate(t: unknown): ProviderTemplate | null {
  if (!isObject(t)) return null;
  const name = str(t.name);
  const language = str(t.language);
  if (!name || !language || (t.status !== undefined && t.status !== 'APPROVED')) return null;
  const components = Array.isArray(t.components) ? t.components.filter(isObject) : [];
  const of = (type: string) => components.find((c) => String(c.type).toUpperCase() === type);
  const headerC = of('HEADER');
  const bodyC = of('BODY');
  const footerC = of('FOOTER');
  const buttonsC = of('BUTTONS');
  const header = headerC
    ? { format: (str(headerC.format) ?? 'TEXT').toLowerCase(), text: str(headerC.text) }
    : null;
  const body = bodyC ? str(bodyC.text) : null;
  const buttons = (Array.isArray(buttonsC?.buttons) ? buttonsC.buttons : []).filter(isObject).map((b) => ({
    type: (str(b.type) ?? '').toLowerCase(),
    text: str(b.text) ?? '',
    url: str(b.url),
  }));
  const texts = [header?.format === 'text' ? header.text : null, body, ...buttons.map((b) => b.url)];
  const named =
    t.parameter_format === 'NAMED' ||
    (t.parameter_format === undefined &&
      texts.some((x) => placeholders(x, true).some((p) => !/^\d+$/.test(p))));
  return {
    name,
    language,
    category: str(t.category),
    header,
    body,
    footer: footerC ? str(footerC.text) : null,
    buttons,
    parameters: {
      header: header?.format === 'text' ? placeholders(header.text, named) : [],
      body: placeholders(body, named),
      buttons: buttons
        .map((b, index) => ({ index, names: b.type === 'url' ? placeholders(b.url, named) : [] }))
        .filter((b) => b.names.length > 0),
    },
    named,
  };
}

import { en, type Text } from '../../http/language.js';

/**
 * The variables a canned response may hold, written `{{name}}` (spaces inside the braces allowed):
 * checked when it is saved (an unknown one is refused) and filled when it is inserted.
 *
 * - `contact.name`, `contact.first_name`: the customer's name (the customer's own, else the
 *   conversation's contact's) and its first word.
 * - `agent.name`, `agent.first_name`: the user inserting it.
 * - `contact.attributes.<key>`: a custom attribute of the customer, `<key>` one the account defines.
 */
export const BUILT_IN_VARIABLES = ['contact.name', 'contact.first_name', 'agent.name', 'agent.first_name'];
export const ATTRIBUTE_PREFIX = 'contact.attributes.';

/** `{{ name }}`: what a variable looks like; anything between the braces is read as its name. */
const VARIABLE = /\{\{\s*([^{}]*?)\s*\}\}/g;

/** The distinct variable names a text uses, in the order they first appear. */
export function variablesOf(text: string): string[] {
  const seen = new Set<string>();
  for (const m of text.matchAll(VARIABLE)) seen.add(m[1]!);
  return [...seen];
}

/** The names `text` uses that are neither built in nor an attribute in `attributeKeys`. */
export function unknownVariables(text: string, attributeKeys: ReadonlySet<string>): string[] {
  return variablesOf(text).filter((name) => {
    if (BUILT_IN_VARIABLES.includes(name)) return false;
    if (name.startsWith(ATTRIBUTE_PREFIX)) return !attributeKeys.has(name.slice(ATTRIBUTE_PREFIX.length));
    return true;
  });
}

/** The 400 sentence for unknown variables, naming them and what may be used instead. */
export function unknownVariablesMessage(unknown: string[], attributeKeys: ReadonlySet<string>): Text {
  const names = unknown.map((n) => `{{${n}}}`).join(', ');
  const known = [...BUILT_IN_VARIABLES, ...[...attributeKeys].sort().map((k) => `${ATTRIBUTE_PREFIX}${k}`)]
    .map((n) => `{{${n}}}`)
    .join(', ');
  return en(
    `content has unknown variables: ${names}; known variables: ${known}`,
    `content tem variáveis desconhecidas: ${names}; variáveis conhecidas: ${known}`,
  );
}

/** What the variables stand for where a response is inserted. */
export interface RenderContext {
  contactName: string | null;
  agentName: string;
  /** The customer's custom attributes by key. */
  attributes: Readonly<Record<string, string>>;
}

const firstWord = (name: string | null) => name?.trim().split(/\s+/)[0] ?? '';

/**
 * `text` with every variable filled. A variable with no value (a customer without a name, an attribute
 * not set, or one no longer defined) becomes empty text: the agent sees the result before sending.
 */
export function renderVariables(text: string, ctx: RenderContext): string {
  return text.replace(VARIABLE, (_whole, name: string) => {
    switch (name) {
      case 'contact.name':
        return ctx.contactName?.trim() ?? '';
      case 'contact.first_name':
        return firstWord(ctx.contactName);
      case 'agent.name':
        return ctx.agentName;
      case 'agent.first_name':
        return firstWord(ctx.agentName);
      default:
        return name.startsWith(ATTRIBUTE_PREFIX)
          ? (ctx.attributes[name.slice(ATTRIBUTE_PREFIX.length)] ?? '')
          : '';
    }
  });
}

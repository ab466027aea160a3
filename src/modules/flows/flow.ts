import type { PreparedInteractive } from '../../providers/types.js';
import type { FlowSettings } from './flows.schemas.js';

/**
 * The built-in flow's pure parts (docs/adr/0086-built-in-flows.md): the messages it sends and how it
 * reads the customer's answers. No database here.
 */

/** A message the flow sends: plain text, or an interactive one whose body is the same text. */
export type FlowMessage =
  { type: 'text'; text: string } | { type: 'interactive'; text: string; interactive: PreparedInteractive };

/** Reply buttons hold at most three options of at most 20 characters; a list, ten of 24. */
const MAX_BUTTONS = 3;
const MAX_BUTTON_TITLE = 20;

/** The flow a channel has before an admin sets one: disabled, its one option the default team. */
export function defaultSettings(defaultTeam: { id: string; name: string }): FlowSettings {
  return {
    enabled: false,
    greeting: 'Olá! Bem-vindo(a) ao nosso atendimento.',
    menu: {
      prompt: 'Escolha uma opção respondendo com o número:',
      options: [{ label: defaultTeam.name.slice(0, 24), teamId: defaultTeam.id }],
      interactive: true,
      invalidReply: 'Não entendi sua resposta.',
      maxAttempts: 3,
      timeoutMinutes: 10,
    },
    outOfHoursMessage:
      'Estamos fora do horário de atendimento. Sua mensagem ficou registrada e responderemos assim que possível.',
    awayMessage: 'No momento nenhum atendente está disponível. Você será atendido assim que possível.',
    autoClose: null,
    csat: null,
  };
}

/** The menu's text: the prompt, then one numbered line per option. */
export function menuText(prompt: string, labels: readonly string[]): string {
  return `${prompt}\n\n${labels.map((l, i) => `${i + 1}. ${l}`).join('\n')}`;
}

/** What one interactive message's body holds (WhatsApp's limit, kept for text menus alike). */
export const MAX_BODY = 1024;

/**
 * A new conversation's opening: the greeting above the menu, in the menu's message, when both fit one
 * body — one message to send rather than two, the way customers read it anyway; otherwise the greeting
 * alone first.
 */
export function openingBodies(
  greeting: string | null,
  menuBody: string,
): { greeting: string | null; menu: string } {
  if (!greeting) return { greeting: null, menu: menuBody };
  const together = `${greeting}\n\n${menuBody}`;
  return together.length <= MAX_BODY ? { greeting: null, menu: together } : { greeting, menu: menuBody };
}

/**
 * A menu as the channel takes it: interactive (buttons when the options fit them, else a list) on a
 * channel that shows them when asked, else text. Option `i` has the id `prefix` + `i+1`.
 */
export function menuMessage(
  body: string,
  labels: readonly string[],
  opts: { interactive: boolean; prefix: string; listButton: string },
): FlowMessage {
  if (!opts.interactive) return { type: 'text', text: body };
  const options = labels.map((title, i) => ({ id: `${opts.prefix}${i + 1}`, title }));
  const buttons = labels.length <= MAX_BUTTONS && labels.every((l) => l.length <= MAX_BUTTON_TITLE);
  const interactive: PreparedInteractive = buttons
    ? { kind: 'button', body, options }
    : { kind: 'list', body, button: opts.listButton, options };
  return { type: 'interactive', text: body, interactive };
}

/** Ids of the menu's options in interactive replies. */
export const OPTION_PREFIX = 'flow.option.';
/** Ids of the rating's answers in interactive replies. */
export const CSAT_PREFIX = 'flow.csat.';

export const RATING_LABELS = [
  '1 – Muito insatisfeito',
  '2 – Insatisfeito',
  '3 – Neutro',
  '4 – Satisfeito',
  '5 – Muito satisfeito',
];

/** The rating question: five list rows (the channel's labels, or these) where it takes interactive messages. */
export function csatMessage(
  csat: { question: string; labels?: readonly string[]; listButton?: string },
  interactive: boolean,
): FlowMessage {
  return menuMessage(csat.question, csat.labels ?? RATING_LABELS, {
    interactive,
    prefix: CSAT_PREFIX,
    listButton: csat.listButton ?? 'Avaliar',
  });
}

/** What the customer's message says, as the flow reads it: its text and an interactive reply's id. */
export interface Answer {
  text: string | null;
  replyId: string | null;
}

export function answerOf(content: Record<string, unknown>): Answer {
  const interactive = content.interactive as { id?: unknown; title?: unknown } | undefined;
  const button = content.button as { payload?: unknown; text?: unknown } | undefined;
  const text =
    typeof content.text === 'string'
      ? content.text
      : typeof interactive?.title === 'string'
        ? interactive.title
        : typeof button?.text === 'string'
          ? button.text
          : null;
  const replyId =
    typeof interactive?.id === 'string'
      ? interactive.id
      : typeof button?.payload === 'string'
        ? button.payload
        : null;
  return { text, replyId };
}

/** Lower case, no accents, no surrounding spaces or trailing dot: how labels and answers compare. */
const fold = (s: string) =>
  s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().trim().replace(/[.)]$/, '').trim();

/**
 * The option the answer picks (its index), or null: an interactive reply's id, the option's number
 * ("2", "2.", "2)"), or its label, ignoring case and accents.
 */
export function chosenOption(answer: Answer, labels: readonly string[]): number | null {
  if (answer.replyId?.startsWith(OPTION_PREFIX)) {
    const n = Number(answer.replyId.slice(OPTION_PREFIX.length));
    if (Number.isInteger(n) && n >= 1 && n <= labels.length) return n - 1;
  }
  if (answer.text === null) return null;
  const said = fold(answer.text);
  if (/^\d{1,2}$/.test(said)) {
    const n = Number(said);
    return n >= 1 && n <= labels.length ? n - 1 : null;
  }
  const i = labels.findIndex((l) => fold(l) === said);
  return i >= 0 ? i : null;
}

/**
 * How the answer reads as a rating: a score 1–5 (the list's reply id, "4", a row's title, or a title
 * starting with its number), `out`
 * for another number (asked again), or null for anything else — the customer is writing about
 * something new.
 */
export function ratingOf(answer: Answer, labels: readonly string[] = RATING_LABELS): number | 'out' | null {
  if (answer.replyId?.startsWith(CSAT_PREFIX)) {
    const n = Number(answer.replyId.slice(CSAT_PREFIX.length));
    if (Number.isInteger(n) && n >= 1 && n <= 5) return n;
  }
  if (answer.text === null) return null;
  const said = fold(answer.text);
  const label = labels.findIndex((l) => fold(l) === said);
  if (label >= 0) return label + 1;
  const m = /^(\d{1,3})(\s*[-–].*)?$/.exec(said);
  if (!m) return null;
  const n = Number(m[1]);
  return n >= 1 && n <= 5 ? n : 'out';
}

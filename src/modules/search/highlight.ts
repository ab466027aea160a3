/** A message's text cut around its first match, in pieces that say which words matched. */

export interface Piece {
  text: string;
  match: boolean;
}

/** Letters and digits of any script make a word; everything else separates words. */
const WORD = /[\p{L}\p{N}]+/gu;

/** How much of a message a result shows: enough to read the match in its sentence. */
const BEFORE = 60;
const LENGTH = 200;

/** The distinct words of some texts, for asking which of them a search matches. */
export function wordsOf(texts: readonly string[], max = 2000): string[] {
  const out = new Set<string>();
  for (const t of texts) {
    for (const m of t.matchAll(WORD)) {
      if (out.size >= max) return [...out];
      out.add(m[0]);
    }
  }
  return [...out];
}

/**
 * `text` in pieces, matched words marked; when longer than LENGTH, the window from a little before
 * the first match, with `…` where it was cut. Pieces are plain text: whoever shows them escapes them.
 */
export function highlight(text: string, matched: ReadonlySet<string>): Piece[] {
  const clean = text.replace(/\s+/g, ' ').trim();
  let first = -1;
  for (const m of clean.matchAll(WORD)) {
    if (matched.has(m[0])) {
      first = m.index;
      break;
    }
  }
  let start = 0;
  let end = clean.length;
  if (clean.length > LENGTH) {
    start = Math.max(0, first - BEFORE);
    // Start and end at word boundaries where one is near.
    if (start > 0) {
      const space = clean.indexOf(' ', start);
      if (space !== -1 && space < Math.max(first, start + 1)) start = space + 1;
    }
    end = Math.min(clean.length, start + LENGTH);
    if (end < clean.length) {
      const space = clean.lastIndexOf(' ', end);
      if (space > start) end = space;
    }
  }
  const window = clean.slice(start, end);
  const pieces: Piece[] = [];
  const push = (t: string, match: boolean) => {
    if (t === '') return;
    const last = pieces.at(-1);
    if (last && last.match === match) last.text += t;
    else pieces.push({ text: t, match });
  };
  if (start > 0) push('…', false);
  let at = 0;
  for (const m of window.matchAll(WORD)) {
    push(window.slice(at, m.index), false);
    push(m[0], matched.has(m[0]));
    at = m.index + m[0].length;
  }
  push(window.slice(at), false);
  if (end < clean.length) push('…', false);
  return pieces;
}

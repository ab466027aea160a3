import { createContext, useContext, useEffect } from 'react';
import type { MessageKey } from '../i18n';

// The console's keyboard: commands that screens register while they are shown (each with its
// shortcut, when it has one), the palette (Ctrl/⌘+K) that finds them and the conversations, and `?`,
// which lists the shortcuts. A feature adds its own by registering commands (useCommands), palette
// sources (usePaletteSource) and entries of the shortcut list (SHORTCUTS).

export type CommandGroup = 'general' | 'go' | 'chat';

export interface Command {
  id: string;
  group: CommandGroup;
  /** What the palette shows, in the console's language. */
  title: string;
  /** A shortcut, as SHORTCUTS writes them (`c`, `Alt+ArrowDown`, `Mod+k`). */
  keys?: string;
  run(): void;
}

/** One entry of the list `?` shows, whatever the screen offers now. */
export interface ShortcutHelp {
  keys: string;
  label: MessageKey;
  group: CommandGroup;
}

/**
 * Every shortcut, in the order `?` lists them. Single letters work outside text fields (Esc leaves
 * the message box); the others anywhere.
 */
export const SHORTCUTS: ShortcutHelp[] = [
  { keys: 'Mod+k', label: 'keys.palette', group: 'general' },
  { keys: '?', label: 'keys.help', group: 'general' },
  { keys: 'Escape', label: 'keys.leaveField', group: 'general' },
  { keys: '/', label: 'keys.search', group: 'general' },
  { keys: 'Alt+ArrowUp', label: 'keys.previous', group: 'go' },
  { keys: 'Alt+ArrowDown', label: 'keys.next', group: 'go' },
  { keys: 'r', label: 'keys.reply', group: 'chat' },
  { keys: 'c', label: 'keys.capture', group: 'chat' },
  { keys: 't', label: 'keys.transfer', group: 'chat' },
  { keys: 'z', label: 'keys.snooze', group: 'chat' },
  { keys: 'e', label: 'keys.close', group: 'chat' },
  { keys: 'l', label: 'keys.label', group: 'chat' },
];

/** Something the palette offers besides commands: a conversation, a search result. */
export interface PaletteItem {
  id: string;
  title: string;
  hint?: string;
  run(): void;
}

export interface PaletteSource {
  id: string;
  /** Items for the text typed, at once (what the screen already holds). */
  items(query: string): PaletteItem[];
  /** More, from the server, for a longer text. */
  search?(query: string): Promise<PaletteItem[]>;
}

export interface Keys {
  register(commands: Command[]): () => void;
  addSource(source: PaletteSource): () => void;
  commands(): Command[];
  sources(): PaletteSource[];
  openPalette(): void;
  openHelp(): void;
}

export const KeysContext = createContext<Keys | null>(null);

export function useKeys(): Keys {
  const v = useContext(KeysContext);
  if (!v) throw new Error('useKeys outside KeysProvider');
  return v;
}

/** Registers commands while the calling component is shown (memoise the list). */
export function useCommands(commands: Command[]) {
  const { register } = useKeys();
  useEffect(() => register(commands), [register, commands]);
}

/** Registers a palette source while the calling component is shown (memoise it). */
export function usePaletteSource(source: PaletteSource | null) {
  const { addSource } = useKeys();
  useEffect(() => (source ? addSource(source) : undefined), [addSource, source]);
}

const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);

/** A shortcut as a person reads it: `Ctrl+K` (`⌘K` on a Mac), `Alt+↓`, `C`. */
export function keyLabel(keys: string): string {
  const names: Record<string, string> = {
    Mod: isMac ? '⌘' : 'Ctrl',
    Alt: isMac ? '⌥' : 'Alt',
    ArrowUp: '↑',
    ArrowDown: '↓',
    Escape: 'Esc',
  };
  return keys
    .split('+')
    .map((k) => names[k] ?? (k.length === 1 ? k.toUpperCase() : k))
    .join(isMac ? '' : '+');
}

/** Whether a key event is the shortcut (letters by their key position, so ⌥ on a Mac works too). */
export function matches(keys: string, e: KeyboardEvent): boolean {
  const parts = keys.split('+');
  const key = parts.at(-1)!;
  const mods = new Set(parts.slice(0, -1));
  const mod = isMac ? e.metaKey : e.ctrlKey;
  if (mods.has('Mod') !== mod || mods.has('Alt') !== e.altKey) return false;
  if (!mods.has('Mod') && (isMac ? e.ctrlKey : e.metaKey)) return false;
  if (key === '?') return e.key === '?';
  if (e.shiftKey !== mods.has('Shift')) return false;
  if (/^[a-z]$/.test(key)) return e.code === `Key${key.toUpperCase()}` || e.key.toLowerCase() === key;
  return e.key === key;
}

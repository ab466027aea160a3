import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { HelpDialog } from './help';
import { Palette } from './palette';
import { KeysContext, matches, type Command, type Keys, type PaletteSource } from './registry';

/** Typing goes to the field: a plain letter there is text, not a shortcut. */
function inField(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName);
}

const isPlain = (keys: string) => !keys.includes('+') || keys === '?';

export function KeysProvider(props: { children: ReactNode }) {
  const registered = useRef(new Map<symbol, Command[]>());
  const sourcesRef = useRef(new Map<symbol, PaletteSource>());
  const [open, setOpen] = useState<'palette' | 'help' | null>(null);

  const register = useCallback((commands: Command[]) => {
    const key = Symbol('commands');
    registered.current.set(key, commands);
    return () => void registered.current.delete(key);
  }, []);
  const addSource = useCallback((source: PaletteSource) => {
    const key = Symbol('source');
    sourcesRef.current.set(key, source);
    return () => void sourcesRef.current.delete(key);
  }, []);
  // The latest registered first: a screen's own command wins over the shell's.
  const commands = useCallback(() => [...registered.current.values()].reverse().flat(), []);
  const sources = useCallback(() => [...sourcesRef.current.values()], []);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.repeat) return;
      // A dialog open (a confirmation, a transfer) has the keyboard to itself; the palette's own
      // shortcut closes it.
      const dialogOpen = document.querySelector('dialog[open]') !== null;
      if (matches('Mod+k', e)) {
        if (dialogOpen && !document.querySelector('dialog[open] .palette')) return;
        e.preventDefault();
        setOpen((o) => (o === 'palette' ? null : 'palette'));
        return;
      }
      if (dialogOpen) return;
      if (e.key === 'Escape' && inField(e.target)) {
        (e.target as HTMLElement).blur();
        return;
      }
      const typing = inField(e.target);
      if (!typing && matches('?', e)) {
        e.preventDefault();
        setOpen('help');
        return;
      }
      const command = commands().find((c) => c.keys && (!typing || !isPlain(c.keys)) && matches(c.keys, e));
      if (command) {
        e.preventDefault();
        command.run();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [commands]);

  const value = useMemo<Keys>(
    () => ({
      register,
      addSource,
      commands,
      sources,
      openPalette: () => setOpen('palette'),
      openHelp: () => setOpen('help'),
    }),
    [register, addSource, commands, sources],
  );
  return (
    <KeysContext.Provider value={value}>
      {props.children}
      {open === 'palette' && <Palette onClose={() => setOpen(null)} />}
      {open === 'help' && <HelpDialog onClose={() => setOpen(null)} />}
    </KeysContext.Provider>
  );
}

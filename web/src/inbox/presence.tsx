import { useCallback, useEffect, useRef, useState } from 'react';
import { useI18n } from '../i18n';
import { useDirectory, useGateway, useMe } from '../session';
import type { Presence } from '../session/gateway-client';

/** How often a typing agent's console says so again (the gateway forgets a signal after 8 s). */
const RENEW_MS = 3_000;
/** Typing stops being shown this long after the last key. */
const IDLE_MS = 4_000;

/** The others viewing the conversation (and whether each types), live from the gateway. */
export function usePresence(chatId: string): Presence['viewers'] {
  const { gateway } = useGateway();
  const { me } = useMe();
  const [viewers, setViewers] = useState<Presence['viewers']>([]);
  useEffect(() => {
    if (!gateway) return;
    setViewers([]);
    const off = gateway.onPresence((p) => {
      if (p.chatId === chatId) setViewers(p.viewers.filter((v) => v.userId !== me.user.id));
    });
    void gateway.watchPresence(chatId);
    return () => {
      off();
      void gateway.watchPresence(null);
    };
  }, [gateway, chatId, me.user.id]);
  return viewers;
}

/** Who else is here, in the conversation's header: "Ana is viewing", "Bruno is typing…". */
export function PresenceBar(props: { chatId: string }) {
  const { t } = useI18n();
  const { users } = useDirectory();
  const viewers = usePresence(props.chatId);
  if (viewers.length === 0) return null;
  const name = (id: string) => users.find((u) => u.id === id)?.name ?? t('presence.someone');
  const typing = viewers.filter((v) => v.typing).map((v) => name(v.userId));
  const viewing = viewers.filter((v) => !v.typing).map((v) => name(v.userId));
  return (
    <div className="presence" data-testid="presence" role="status" aria-live="polite">
      {typing.length > 0 && (
        <span className="presence-typing">
          {typing.length === 1
            ? t('presence.typing', { name: typing[0]! })
            : t('presence.typingMany', { names: typing.join(', ') })}
        </span>
      )}
      {viewing.length > 0 && (
        <span className="presence-viewing">
          {viewing.length === 1
            ? t('presence.viewing', { name: viewing[0]! })
            : t('presence.viewingMany', { names: viewing.join(', ') })}
        </span>
      )}
    </div>
  );
}

/**
 * Tells the gateway while this agent types in a conversation: at the first key, again every few
 * seconds while the keys go on, and that it stopped once they stop, on sending, or on leaving.
 * `note`: the text is a private note (the customer is not shown "typing…").
 */
export function useTypingSignal(chatId: string, note = false): { typed(): void; stopped(): void } {
  const { gateway } = useGateway();
  const last = useRef(0);
  const idle = useRef<ReturnType<typeof setTimeout> | null>(null);

  const stopped = useCallback(() => {
    if (idle.current) clearTimeout(idle.current);
    idle.current = null;
    if (last.current === 0) return;
    last.current = 0;
    gateway?.typing(chatId, false, note);
  }, [gateway, chatId, note]);

  const typed = useCallback(() => {
    const now = Date.now();
    if (now - last.current >= RENEW_MS) {
      last.current = now;
      gateway?.typing(chatId, true, note);
    }
    if (idle.current) clearTimeout(idle.current);
    idle.current = setTimeout(stopped, IDLE_MS);
  }, [gateway, chatId, note, stopped]);

  useEffect(() => stopped, [stopped]);
  return { typed, stopped };
}

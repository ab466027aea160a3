import { useEffect, useRef, useState, type FormEvent } from 'react';
import { ApiError, get, post } from './api';
import { Avatar } from './components';
import { useI18n } from './i18n';
import { isOutgoing } from './inbox/chat-state';
import { ConversationView, sendOnEnter, useConversation } from './inbox/conversation-view';
import type { MessageListHandle } from './inbox/messages';
import type { Channel, Message, Team } from './models';
import { Link } from './router';
import { useDirectory, useGateway, useMe } from './session';

// The customer simulator (`/simulator`): the tester plays a customer writing on a sandbox channel.
// Their messages go through the sandbox's inbound route, exactly as a customer's would arrive; the
// conversation is read back through the agent API (the tester is a user of the account) and kept
// live through the gateway's attendance room, so the agent's replies and their ticks show at once.

const STORE = 'atende.simulator';

interface Saved {
  channelId: string;
  phone: string;
  name: string;
  /** Whether the customer reads what arrives (a read receipt, the blue ticks on the agent's side). */
  autoRead: boolean;
  /** The conversation of each channel and phone, to find it again after a reload. */
  chats: Record<string, string>;
}

/** A Brazilian mobile number nobody is likely to have used yet in this installation. */
function randomPhone(): string {
  let n = '551199';
  for (let i = 0; i < 7; i++) n += String(Math.floor(Math.random() * 10));
  return n;
}

function loadSaved(): Saved {
  try {
    const raw = JSON.parse(localStorage.getItem(STORE) ?? 'null') as Partial<Saved> | null;
    if (raw && typeof raw === 'object') {
      return {
        channelId: typeof raw.channelId === 'string' ? raw.channelId : '',
        phone: typeof raw.phone === 'string' && raw.phone ? raw.phone : randomPhone(),
        name: typeof raw.name === 'string' ? raw.name : '',
        autoRead: raw.autoRead !== false,
        chats: raw.chats && typeof raw.chats === 'object' ? raw.chats : {},
      };
    }
  } catch {
    // a damaged entry: start over
  }
  return { channelId: '', phone: randomPhone(), name: '', autoRead: true, chats: {} };
}

export function Simulator(props: { path: string }) {
  const { t } = useI18n();
  const { me, can } = useMe();
  const { channels, directoryLoaded, users, reloadDirectory } = useDirectory();
  const { gateway } = useGateway();
  const sandboxes = channels.filter((c) => c.provider === 'sandbox');
  const [saved, setSaved] = useState<Saved>(loadSaved);
  const channelId = sandboxes.some((c) => c.id === saved.channelId)
    ? saved.channelId
    : (sandboxes[0]?.id ?? '');
  const channel = sandboxes.find((c) => c.id === channelId);
  const key = `${channelId}:${saved.phone}`;
  const chatId = saved.chats[key] ?? null;

  const convo = useConversation(chatId);
  const { chat, messages } = convo;
  // Transferred to a team this tester does not see (the chat answers 404): the customer's side still works.
  const hidden = convo.load === 'gone';
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const list = useRef<MessageListHandle>(null);

  useEffect(() => localStorage.setItem(STORE, JSON.stringify(saved)), [saved]);

  const update = (patch: Partial<Saved>) => setSaved((s) => ({ ...s, ...patch }));

  // Follow the conversation's list item too (the agents' lists are not on this page to ask for it).
  useEffect(() => {
    if (chatId) gateway?.watchChats([chatId]);
  }, [chatId, gateway]);

  // The customer reads what the agent sent, shortly after it arrives while this page is in view: the
  // sandbox's read receipt, which turns the agent's ticks blue.
  const unread = messages.some((m) => isOutgoing(m) && (m.status === 'sent' || m.status === 'delivered'));
  const reading = useRef(false);
  useEffect(() => {
    if (!saved.autoRead || !unread || !chatId || !channelId) return;
    const readNow = () => {
      if (document.visibilityState !== 'visible' || reading.current) return;
      reading.current = true;
      post(`/api/sandbox/channels/${channelId}/read`, { chatId })
        .catch(() => undefined)
        .finally(() => (reading.current = false));
    };
    const timer = setTimeout(readNow, 800);
    document.addEventListener('visibilitychange', readNow);
    return () => {
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', readNow);
    };
  }, [saved.autoRead, unread, messages, chatId, channelId]);

  // A first run has no channel yet: one click makes a sandbox channel (and a team, if there is none
  // to answer it), so the tour needs no admin screens.
  const canSetUp = can('channels:manage') && can('teams:manage');
  const [settingUp, setSettingUp] = useState(false);
  const setUp = async () => {
    setSettingUp(true);
    setError(null);
    try {
      // Read now, not from the session: the team answering the channel must be one that exists.
      const active = (await get<Team[]>('/api/teams')).filter((x) => x.status === 'active');
      const team =
        active.find((x) => x.members.includes(me.user.id)) ??
        active[0] ??
        (await post<Team>('/api/teams', { name: t('sim.setupTeam'), members: [me.user.id] }));
      const created = await post<Channel>('/api/channels', {
        name: t('sim.setupChannel'),
        provider: 'sandbox',
        defaultTeamId: team.id,
      });
      await reloadDirectory();
      update({ channelId: created.id });
    } catch (err) {
      setError(err instanceof ApiError && err.status !== 0 ? err.message : t('common.error'));
    } finally {
      setSettingUp(false);
    }
  };

  const send = async (e?: FormEvent) => {
    e?.preventDefault();
    const body = text.trim();
    if (!body || !channelId || busy) return;
    setBusy(true);
    setError(null);
    try {
      const res = await post<{ chatId: string; messageId: string }>(
        `/api/sandbox/channels/${channelId}/inbound`,
        { from: saved.phone, text: body, ...(saved.name.trim() ? { name: saved.name.trim() } : {}) },
      );
      setText('');
      // A closed conversation is not reopened: the message starts a new one.
      if (res.chatId !== chatId) setSaved((s) => ({ ...s, chats: { ...s.chats, [key]: res.chatId } }));
      else list.current?.scrollToBottom();
    } catch (err) {
      setError(err instanceof ApiError && err.status !== 0 ? err.message : t('common.error'));
    } finally {
      setBusy(false);
    }
  };

  const customer = saved.name.trim() || saved.phone;
  const authorOf = (m: Message) =>
    m.origin === 'user'
      ? (users.find((u) => u.id === m.userId)?.name ?? t('sim.agent'))
      : m.origin === 'api'
        ? t('chat.api')
        : undefined;

  return (
    <div className="sim" data-path={props.path}>
      <section className="sim-setup" aria-labelledby="sim-title">
        <h1 id="sim-title">{t('sim.title')}</h1>
        <p className="muted">{t('sim.intro')}</p>
        <div className="card">
          {!directoryLoaded ? (
            <p className="muted">{t('common.loading')}</p>
          ) : sandboxes.length === 0 ? (
            <div className="sim-setup-empty">
              <p className="notice">{t('sim.noChannels')}</p>
              {canSetUp && (
                <button
                  type="button"
                  className="btn primary wide"
                  disabled={settingUp}
                  onClick={() => void setUp()}
                >
                  {t('sim.setup')}
                </button>
              )}
            </div>
          ) : (
            <label className="field">
              <span>{t('sim.channel')}</span>
              <select value={channelId} onChange={(e) => update({ channelId: e.target.value })}>
                {sandboxes.map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.name}
                  </option>
                ))}
              </select>
            </label>
          )}
          <label className="field">
            <span>{t('sim.phone')}</span>
            <input
              type="tel"
              inputMode="numeric"
              value={saved.phone}
              maxLength={32}
              onChange={(e) => update({ phone: e.target.value.replace(/[^\d+]/g, '') })}
            />
          </label>
          <label className="field">
            <span>{t('sim.name')}</span>
            <input
              type="text"
              value={saved.name}
              maxLength={200}
              placeholder="Maria"
              onChange={(e) => update({ name: e.target.value })}
            />
          </label>
          <label className="check">
            <input
              type="checkbox"
              checked={saved.autoRead}
              onChange={(e) => update({ autoRead: e.target.checked })}
            />
            {t('sim.autoRead')}
          </label>
          <div className="sim-actions">
            {/* The same customer on every visit (kept in this browser) until the tester asks for another. */}
            <button type="button" className="btn" onClick={() => update({ phone: randomPhone(), name: '' })}>
              {t('sim.newCustomer')}
            </button>
            {chatId && !hidden && (
              <Link href={`/inbox/${chatId}`} className="btn">
                {t('sim.openConsole')}
              </Link>
            )}
          </div>
        </div>
      </section>

      <section className="sim-phone" aria-label={t('sim.phoneLabel', { name: customer })}>
        <header className="sim-phone-head">
          <Avatar name={channel?.name ?? 'Atende'} small />
          <div>
            <strong>{channel?.name ?? t('sim.channel')}</strong>
            <small>{t('sim.as', { name: customer })}</small>
          </div>
        </header>
        {hidden && (
          <p className="warning sim-note" role="status">
            {t('sim.hidden')}
          </p>
        )}
        {chatId ? (
          <ConversationView
            ref={list}
            conversation={convo}
            side="customer"
            authorOf={authorOf}
            label={t('sim.messages')}
          />
        ) : (
          <div className="messages sim-empty">
            <p className="messages-edge">{t('sim.empty')}</p>
          </div>
        )}
        {chat?.status === 'closed' && (
          <p className="sim-note muted" role="status">
            {t('sim.closed')}
          </p>
        )}
        <form className="composer" onSubmit={(e) => void send(e)}>
          {error && (
            <p className="error" role="alert">
              {error}
            </p>
          )}
          <div className="composer-row">
            <textarea
              rows={1}
              value={text}
              aria-label={t('sim.message')}
              placeholder={t('sim.placeholder')}
              maxLength={4096}
              disabled={!channelId}
              onChange={(e) => setText(e.target.value)}
              onKeyDown={sendOnEnter(() => void send())}
            />
            <button type="submit" className="btn primary" disabled={busy || !channelId || !text.trim()}>
              {t('chat.send')}
            </button>
          </div>
        </form>
      </section>
    </div>
  );
}

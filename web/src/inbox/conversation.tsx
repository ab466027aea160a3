import { useEffect, useMemo, useRef, useState } from 'react';
import { ApiError, del, post } from '../api';
import { Avatar, Dialog } from '../components';
import { queueLabel, useI18n } from '../i18n';
import type { Chat, Message } from '../models';
import { Link, navigate } from '../router';
import { useDirectory, useMe } from '../session';
import { QUEUE_WAITING } from './chat-state';
import { ContactPanel } from '../contacts/contact-panel';
import { Composer } from './composer';
import { CustomerHistory } from './history';
import { ChatLabelsEditor } from './labels';
import { ConversationView, useConversation } from './conversation-view';
import { useCommands, type Command } from '../keys/registry';
import type { MessageListHandle } from './messages';
import { NoteComposer } from './notes';
import { PresenceBar } from './presence';
import { TemplateDialog, useNow, WindowBadge, windowOf } from './template-form';
import { ReplyModes, useAgentTimeline } from './timeline-view';
import { TransferDialog } from './transfer';
import { SlaBadge } from './sla';
import { SnoozeBadge, SnoozeDialog } from './snooze';
import { CsatBadge } from './csat';
import type { InboxLists } from './use-inbox';
import { useBotName } from './bot-names';

/**
 * One conversation in the agent's inbox: the shared conversation view (history, live messages and
 * their ticks) under the chat's header, and the agent's actions — capture, reply, transfer, close.
 * Messages the agent reads while attending are marked read.
 */
export function Conversation(props: { chatId: string; lists: InboxLists; atMessage?: string | null }) {
  const { t, time } = useI18n();
  const { me, can } = useMe();
  const { teams, users, channels } = useDirectory();
  const { known, apply: applyToLists } = props.lists;
  const convo = useConversation(props.chatId, {
    initial: known,
    onChat: applyToLists,
    around: props.atMessage ?? null,
  });
  const { chat, applyChat } = convo;
  const [busy, setBusy] = useState(false);
  const [actionError, setActionError] = useState<string | null>(null);
  const [dialog, setDialog] = useState<'transfer' | 'close' | 'template' | 'snooze' | null>(null);
  const now = useNow();
  const list = useRef<MessageListHandle>(null);
  const [panel, setPanel] = useContactPanelOpen();
  // Its notes and activity lines in the timeline, and the box's mode: a reply or a private note.
  const agentTimeline = useAgentTimeline(props.chatId, convo);
  const { mode, setMode } = agentTimeline;

  const attending = chat?.status === 'open' && chat.userId === me.user.id;

  // What arrives while the agent attends and looks at it counts as read.
  const reading = useRef(false);
  useEffect(() => {
    if (!attending || !chat || chat.unreadMessages === 0 || reading.current) return;
    const markRead = () => {
      if (document.visibilityState !== 'visible' || reading.current) return;
      reading.current = true;
      post<Chat>(`/api/chats/${chat.id}/read`)
        .then(applyChat)
        .catch(() => undefined)
        .finally(() => (reading.current = false));
    };
    markRead();
    document.addEventListener('visibilitychange', markRead);
    return () => document.removeEventListener('visibilitychange', markRead);
  }, [attending, chat, applyChat]);

  const act = async (path: 'capture' | 'close' | 'reopen' | 'takeover' | 'unsnooze') => {
    if (!chat) return;
    setBusy(true);
    setActionError(null);
    try {
      applyChat(
        await (path === 'unsnooze'
          ? del<Chat>(`/api/chats/${chat.id}/snooze`)
          : post<Chat>(`/api/chats/${chat.id}/${path}`)),
      );
      setDialog(null);
    } catch (err) {
      setActionError(err instanceof ApiError && err.status !== 0 ? err.message : t('common.error'));
      setDialog(null);
    } finally {
      setBusy(false);
    }
  };

  const isOpen = chat?.status === 'open';
  // A supervisor of the chat's team (an admin: of any) may step into a conversation another agent
  // attends: reply in it (marked as theirs) or take it over.
  const supervises =
    !!chat &&
    (can('chats:supervise') ||
      (can('chats:supervise_team') &&
        !!teams.find((x) => x.id === chat.teamId)?.members.includes(me.user.id)));
  const stepIn = isOpen && supervises && chat.userId !== null && chat.userId !== me.user.id;
  const may = {
    // A bot's conversation too: capturing it is the agent's take-over (the bot is told).
    capture:
      isOpen && (chat.queue === QUEUE_WAITING || !!chat.botId) && chat.userId === null && can('chats:attend'),
    transfer: isOpen && can('chats:transfer'),
    close: isOpen && (attending || can('chats:read_all')) && can('chats:attend'),
    // As the server: its attendant, anyone who sees it while it has none, or a supervisor.
    snooze: isOpen && (chat.userId === null || attending || can('chats:read_all')) && can('chats:attend'),
    reply: (attending || stepIn) && can('chats:attend'),
    takeOver: stepIn && can('chats:transfer'),
    note: can('chats:attend'),
  };
  const actRef = useRef(act);
  actRef.current = act;
  const keyCommands = useMemo<Command[]>(() => {
    const list: Command[] = [];
    if (may.reply)
      list.push({
        id: 'chat.reply',
        group: 'chat',
        title: t('keys.reply'),
        keys: 'r',
        run: () => {
          setMode('reply');
          requestAnimationFrame(() =>
            document.querySelector<HTMLTextAreaElement>('.composer:not(.note-composer) textarea')?.focus(),
          );
        },
      });
    if (may.note)
      list.push({
        id: 'chat.note',
        group: 'chat',
        title: t('notes.modeNote'),
        keys: 'n',
        run: () => {
          setMode('note');
          requestAnimationFrame(() =>
            document.querySelector<HTMLTextAreaElement>('.note-composer textarea')?.focus(),
          );
        },
      });
    if (may.capture)
      list.push({
        id: 'chat.capture',
        group: 'chat',
        title: t('chat.capture'),
        keys: 'c',
        run: () => void actRef.current('capture'),
      });
    if (may.transfer)
      list.push({
        id: 'chat.transfer',
        group: 'chat',
        title: t('chat.transfer'),
        keys: 't',
        run: () => setDialog('transfer'),
      });
    if (may.snooze)
      list.push({
        id: 'chat.snooze',
        group: 'chat',
        title: t('keys.snooze'),
        keys: 'z',
        run: () => setDialog('snooze'),
      });
    if (may.close)
      list.push({
        id: 'chat.close',
        group: 'chat',
        title: t('chat.close'),
        keys: 'e',
        run: () => setDialog('close'),
      });
    // The label picker of the header, when the account has a label the chat does not carry.
    list.push({
      id: 'chat.label',
      group: 'chat',
      title: t('keys.label'),
      keys: 'l',
      run: () => document.querySelector<HTMLSelectElement>('.convo-labels select.label-add')?.focus(),
    });
    return list;
  }, [may.reply, may.note, may.capture, may.transfer, may.snooze, may.close, setMode, t]);
  useCommands(keyCommands);

  if (convo.load === 'gone') {
    return (
      <div className="inbox-placeholder" role="status">
        <div>
          <p>{t('chat.gone')}</p>
          <Link href="/inbox" className="btn">
            {t('chat.back')}
          </Link>
        </div>
      </div>
    );
  }
  if (convo.load === 'error' && !chat) {
    return (
      <div className="inbox-placeholder" role="alert">
        <div>
          <p>{t('common.error')}</p>
          <button type="button" className="btn" onClick={() => void convo.reload()}>
            {t('common.retry')}
          </button>
        </div>
      </div>
    );
  }
  if (!chat) {
    return (
      <div className="inbox-placeholder" role="status">
        {t('common.loading')}
      </div>
    );
  }

  const open = chat.status === 'open';
  const team = teams.find((x) => x.id === chat.teamId);
  const attendant = chat.userId ? users.find((u) => u.id === chat.userId) : null;
  const channel = channels.find((c) => c.id === chat.channelId);
  const { capture: canCapture, transfer: canTransfer, close: canClose, reply: canReply } = may;
  // A closed conversation is read only; an agent may open it again (and then attends it).
  const canReopen = !open && can('chats:attend');
  const onSent = (m: Message) => {
    convo.addMessage(m);
    list.current?.scrollToBottom();
  };
  const authorOf = (m: Message) => {
    if (m.automation === 'bot') return t('chat.bot');
    if (m.automation === 'flow') return t('chat.flow');
    if (m.origin === 'api') return t('chat.api');
    if (m.origin === 'system') return t('chat.system');
    // A supervisor's reply says so to everyone, the supervisor included.
    if (m.bySupervisor)
      return t('supervisor.badge', { name: users.find((u) => u.id === m.userId)?.name ?? '' });
    if (m.origin === 'user' && m.userId && m.userId !== me.user.id)
      return users.find((u) => u.id === m.userId)?.name;
    return undefined;
  };

  return (
    <div className={panel ? 'convo-wrap with-contact' : 'convo-wrap'}>
      <section className="convo" aria-labelledby="convo-title" data-chat-id={chat.id} data-queue={chat.queue}>
        <header className="convo-head">
          <Link href="/inbox" className="btn ghost icon convo-back" aria-label={t('chat.back')}>
            ←
          </Link>
          <Avatar name={chat.contact.name} />
          <div className="convo-title">
            <h1 id="convo-title">{chat.contact.name || chat.contact.value}</h1>
            <div className="convo-meta">
              <span>{chat.contact.value}</span>
              {/* A closed chat keeps its last queue and attendant: say it is closed, and who had it. */}
              <span data-testid="chat-state">
                {open ? t('chat.queue') : t('chat.status')}:{' '}
                <strong>{open ? queueLabel(t, chat.queue) : t('chat.statusClosed')}</strong>
              </span>
              {team && (
                <span className="meta-extra">
                  {t('chat.team')}: {team.name}
                </span>
              )}
              <span className="meta-extra">
                {open ? t('chat.attendant') : t('chat.lastAttendant')}:{' '}
                {open && chat.userId === me.user.id ? t('chat.you') : (attendant?.name ?? t('chat.nobody'))}
              </span>
              {channel && <span className="meta-extra">{channel.name}</span>}
              {open && chat.botId && <BotBadge botId={chat.botId} />}
              <WindowBadge chat={chat} />
              {open && <SnoozeBadge chat={chat} />}
              <SlaBadge chat={chat} />
              <CsatBadge chat={chat} />
            </div>
            <ChatLabelsEditor chat={chat} onChat={applyChat} />
            <PresenceBar chatId={chat.id} />
          </div>
          <div className="convo-actions">
            <button
              type="button"
              className="btn"
              aria-expanded={panel}
              aria-controls="contact-panel"
              data-testid="contact-toggle"
              onClick={() => setPanel(!panel)}
            >
              {panel ? t('contact.hide') : t('contact.show')}
            </button>
            {canReply && (
              <button type="button" className="btn" onClick={() => setDialog('template')}>
                {t('template.use')}
              </button>
            )}
            {canCapture && (
              <button
                type="button"
                className="btn primary"
                disabled={busy}
                onClick={() => void act('capture')}
              >
                {t('chat.capture')}
              </button>
            )}
            {may.takeOver && (
              <button
                type="button"
                className="btn primary"
                disabled={busy}
                title={t('supervisor.takeOverHint')}
                onClick={() => void act('takeover')}
              >
                {t('supervisor.takeOver')}
              </button>
            )}
            {canTransfer && (
              <button type="button" className="btn" disabled={busy} onClick={() => setDialog('transfer')}>
                {t('chat.transfer')}
              </button>
            )}
            {may.snooze && (
              <button
                type="button"
                className="btn"
                disabled={busy}
                aria-haspopup="dialog"
                onClick={() => setDialog('snooze')}
              >
                {t('chat.snooze')}
              </button>
            )}
            {may.snooze && chat.snooze && (
              <button type="button" className="btn" disabled={busy} onClick={() => void act('unsnooze')}>
                {t('chat.unsnooze')}
              </button>
            )}
            {canReopen && (
              <button
                type="button"
                className="btn primary"
                disabled={busy}
                onClick={() => void act('reopen')}
              >
                {t('chat.reopen')}
              </button>
            )}
            {canClose && (
              <button type="button" className="btn danger" disabled={busy} onClick={() => setDialog('close')}>
                {t('chat.close')}
              </button>
            )}
          </div>
        </header>
        {actionError && (
          <p className="error convo-error" role="alert">
            {actionError}
          </p>
        )}
        <CustomerHistory chat={chat} />
        <ConversationView
          ref={list}
          conversation={convo}
          side="agent"
          authorOf={authorOf}
          label={t('chat.history', { name: chat.contact.name || chat.contact.value })}
          timeline={agentTimeline.timeline}
          renderExtra={agentTimeline.renderExtra}
        />
        {may.note && <ReplyModes mode={mode} setMode={setMode} />}
        {may.note && mode === 'note' ? (
          <NoteComposer
            chatId={chat.id}
            onWritten={(note) => {
              agentTimeline.putNote(note);
              list.current?.scrollToBottom();
            }}
          />
        ) : !open ? (
          <div className="composer-note" role="status">
            {t('chat.closed')}
            {chat.updatedAt && <span className="muted">{time(chat.updatedAt)}</span>}
            {canReopen && <span className="muted">{t('chat.reopenHint')}</span>}
          </div>
        ) : canReply && !windowOf(chat, now).open ? (
          // Past 24 hours only a template reaches the customer: the box would only be refused.
          <div className="composer-note window-closed" role="status">
            <span>{t('window.closedHint')}</span>
            <button type="button" className="btn primary" onClick={() => setDialog('template')}>
              {t('template.open')}
            </button>
          </div>
        ) : canReply ? (
          <>
            {stepIn && (
              <div className="composer-note supervisor-hint" role="note">
                {t('supervisor.hint', { agent: attendant?.name ?? '' })}
              </div>
            )}
            <Composer chatId={chat.id} onSent={onSent} />
          </>
        ) : (
          <div className="composer-note">{canCapture ? t('chat.captureToReply') : t('chat.notYours')}</div>
        )}
        {dialog === 'transfer' && (
          <TransferDialog
            chat={chat}
            onClose={() => setDialog(null)}
            onDone={(c) => {
              applyChat(c);
              setDialog(null);
              // The conversation left the agent's hands: back to the lists, unless it came to them.
              if (c.userId !== me.user.id) navigate('/inbox');
            }}
          />
        )}
        {dialog === 'snooze' && (
          <SnoozeDialog
            chat={chat}
            onClose={() => setDialog(null)}
            onDone={(c) => {
              applyChat(c);
              setDialog(null);
              // It left the lists: back to them, as after a transfer.
              navigate('/inbox');
            }}
          />
        )}
        {dialog === 'template' && (
          <TemplateDialog
            chat={chat}
            onClose={() => setDialog(null)}
            onSent={(m) => {
              onSent(m);
              setDialog(null);
            }}
          />
        )}
        {dialog === 'close' && (
          <Dialog title={t('chat.closeConfirm')} onClose={() => setDialog(null)} labelId="close-title">
            <p className="muted">{chat.contact.name || chat.contact.value}</p>
            <div className="dialog-actions">
              <button type="button" className="btn" onClick={() => setDialog(null)}>
                {t('common.cancel')}
              </button>
              <button type="button" className="btn danger" disabled={busy} onClick={() => void act('close')}>
                {t('chat.close')}
              </button>
            </div>
          </Dialog>
        )}
      </section>
      {panel && <ContactPanel customerId={chat.customerId} onClose={() => setPanel(false)} />}
    </div>
  );
}

const PANEL_KEY = 'atende.contactPanel';

/** Whether the contact panel is shown beside conversations: the agent's choice, kept in this browser. */
function useContactPanelOpen(): [boolean, (open: boolean) => void] {
  // Closed until the agent opens it; a wide screen keeps the choice. On a phone it covers the
  // conversation, so it opens only when asked each time.
  const [open, setOpen] = useState(
    () => window.matchMedia('(min-width: 1100px)').matches && localStorage.getItem(PANEL_KEY) === '1',
  );
  const set = (value: boolean) => {
    if (window.matchMedia('(min-width: 1100px)').matches) localStorage.setItem(PANEL_KEY, value ? '1' : '0');
    setOpen(value);
  };
  return [open, set];
}

/** The bot holding the conversation (queue Automação): it answers until a person takes over. */
function BotBadge(props: { botId: string }) {
  const { t } = useI18n();
  const name = useBotName(props.botId);
  return (
    <span className="meta-extra chat-bot" data-testid="chat-bot">
      {t('chat.heldByBot', { name: name ?? t('chat.bot') })}
    </span>
  );
}

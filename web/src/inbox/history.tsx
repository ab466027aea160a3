import { useEffect, useState } from 'react';
import { get, qs } from '../api';
import { useI18n } from '../i18n';
import type { Chat, ConversationSummary, ConversationSummaryPage, Message, MessageHistory } from '../models';
import { Link } from '../router';
import { useDirectory, useMe } from '../session';
import { mergeMessages } from './chat-state';
import { Bubble } from './messages';

// The customer's earlier conversations, on this channel and the others, above the current one:
// collapsed, each a line with its dates, who attended and how it ended; opened, its messages (read
// only, older pages on demand) and a link to the conversation itself.

const PAGE = 20;
const MESSAGES = 20;

export function CustomerHistory(props: { chat: Chat }) {
  const { t } = useI18n();
  const { chat } = props;
  const [items, setItems] = useState<ConversationSummary[]>([]);
  const [nextPage, setNextPage] = useState<number | null>(null);
  const [open, setOpen] = useState(false);
  const [failed, setFailed] = useState(false);

  const load = async (page: number) => {
    try {
      const res = await get<ConversationSummaryPage>(
        `/api/customers/${chat.customerId}/chats${qs({ page, limit: PAGE })}`,
      );
      setItems((prev) => [...(page === 1 ? [] : prev), ...res.chats.filter((c) => c.id !== chat.id)]);
      setNextPage(res.nextPage);
      setFailed(false);
    } catch {
      setFailed(true);
    }
  };
  useEffect(() => {
    setItems([]);
    void load(1);
    // Read again when another conversation opens; not live (earlier conversations rarely change).
  }, [chat.id, chat.customerId]);

  if (items.length === 0 && !failed) return null;
  return (
    <section className="convo-history" aria-label={t('history.title')}>
      <button
        type="button"
        className="history-toggle"
        aria-expanded={open}
        aria-controls="history-list"
        onClick={() => setOpen((o) => !o)}
      >
        {open ? '▾' : '▸'} {t('history.earlier', { n: items.length + (nextPage !== null ? '+' : '') })}
      </button>
      {failed && (
        <p className="error" role="alert">
          {t('common.error')}
        </p>
      )}
      {open && (
        <ol id="history-list" className="history-list">
          {items.map((c) => (
            <HistoryItem key={c.id} item={c} />
          ))}
          {nextPage !== null && (
            <li>
              <button type="button" className="btn small ghost" onClick={() => void load(nextPage)}>
                {t('history.more')}
              </button>
            </li>
          )}
        </ol>
      )}
    </section>
  );
}

/** "3/2/26 10:00 – 3/2/26 11:30 · Canal · Ana, Bruno · Closed by Ana". */
function HistoryItem(props: { item: ConversationSummary }) {
  const { t, time } = useI18n();
  const { me } = useMe();
  const { users, channels } = useDirectory();
  const { item } = props;
  const [expanded, setExpanded] = useState(false);
  const [messages, setMessages] = useState<Message[] | null>(null);
  const [nextBefore, setNextBefore] = useState<string | null>(null);
  const nameOf = (id: string | null) =>
    id === null ? null : id === me.user.id ? t('chat.you') : (users.find((u) => u.id === id)?.name ?? id);
  const channel = channels.find((c) => c.id === item.channelId)?.name;
  const attendants = item.attendants.map(nameOf).join(', ');
  const ended =
    item.status === 'open'
      ? t('history.stillOpen')
      : item.closedBy
        ? t('history.closedBy', { name: nameOf(item.closedBy) ?? '' })
        : t('history.closed');
  const loadMessages = async (before: string | null) => {
    try {
      const page = await get<MessageHistory>(
        `/api/chats/${item.id}/messages${qs({ before, limit: MESSAGES })}`,
      );
      setMessages((prev) => mergeMessages(prev ?? [], page.messages));
      setNextBefore(page.nextBefore);
    } catch {
      setMessages((prev) => prev ?? []);
    }
  };
  const toggle = () => {
    setExpanded((e) => !e);
    if (messages === null) void loadMessages(null);
  };
  const authorOf = (m: Message) =>
    m.origin === 'user' && m.userId ? (nameOf(m.userId) ?? undefined) : undefined;
  return (
    <li className="history-item" data-chat-id={item.id} data-status={item.status}>
      <button type="button" className="history-summary" aria-expanded={expanded} onClick={toggle}>
        <span className="history-dates">
          {time(item.createdAt)}
          {item.closedAt && ` – ${time(item.closedAt)}`}
        </span>
        <span className="history-meta">
          {[
            channel,
            attendants && t('history.attendedBy', { names: attendants }),
            item.transfers > 0 && t('history.transfers', { n: item.transfers }),
            ended,
          ]
            .filter(Boolean)
            .join(' · ')}
        </span>
      </button>
      {expanded && (
        <div className="history-body">
          {nextBefore && (
            <button type="button" className="btn small ghost" onClick={() => void loadMessages(nextBefore)}>
              {t('chat.loadOlder')}
            </button>
          )}
          {messages === null ? (
            <p role="status">{t('common.loading')}</p>
          ) : (
            <ol className="messages history-messages" aria-label={t('history.messages')}>
              {messages.map((m) => (
                <Bubble key={m.id} m={m} side="agent" author={authorOf(m)} />
              ))}
            </ol>
          )}
          <Link href={`/inbox/${item.id}`} className="btn small">
            {t('history.open')}
          </Link>
        </div>
      )}
    </li>
  );
}

import {
  Fragment,
  forwardRef,
  useCallback,
  useEffect,
  useImperativeHandle,
  useLayoutEffect,
  useMemo,
  useRef,
  type ReactNode,
} from 'react';
import { summaryLabel, useI18n, type MessageKey } from '../i18n';
import type { Message } from '../models';
import { isOutgoing, messageText } from './chat-state';
import { hasOwnBody, MessageBody, MessageContext, MessageMarks, type MessageLookup } from './message-content';
import { useShortTime } from './format';
import { MessageCategory } from './message-delivery';
import { MessageMedia } from './media';
import { TemplateContent } from './template-form';
import type { TimelineItem } from './timeline';

// A conversation's messages, for the agent's conversation view and the customer simulator: bubbles
// with delivery ticks, older pages loaded when scrolled to the top (keeping the reading position),
// and the view kept at the bottom while new messages arrive.

const STATUS_KEY: Record<string, MessageKey> = {
  queued: 'status.queued',
  sent: 'status.sent',
  delivered: 'status.delivered',
  read: 'status.read',
  failed: 'status.failed',
  received: 'status.received',
};

/** ✓ sent, ✓✓ delivered, blue ✓✓ read, a clock while queued, ! when it failed. */
export function Tick(props: { status: string }) {
  const { t, tr } = useI18n();
  const { status } = props;
  const label = STATUS_KEY[status] ? t(STATUS_KEY[status]) : tr(status);
  let icon: ReactNode;
  if (status === 'queued') {
    icon = (
      <svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true">
        <circle cx="8" cy="8" r="6" fill="none" stroke="currentColor" strokeWidth="1.5" />
        <path
          d="M8 4.5V8l2.5 1.5"
          fill="none"
          stroke="currentColor"
          strokeWidth="1.5"
          strokeLinecap="round"
        />
      </svg>
    );
  } else if (status === 'sent') {
    icon = (
      <svg viewBox="0 0 16 16" width="16" height="14" aria-hidden="true">
        <path d="M3 8.5l3 3 7-7" fill="none" stroke="currentColor" strokeWidth="1.7" strokeLinecap="round" />
      </svg>
    );
  } else if (status === 'delivered' || status === 'read') {
    icon = (
      <svg viewBox="0 0 20 16" width="20" height="14" aria-hidden="true">
        <path
          d="M1.5 8.5l3 3 7-7"
          fill="none"
          stroke="currentColor"
          strokeWidth="1.7"
          strokeLinecap="round"
        />
        <path d="M8 11.5l7-7" fill="none" stroke="currentColor" strokeWidth="1.7" strokeLinecap="round" />
        <path
          d="M6.5 9.6l1.5 1.9"
          fill="none"
          stroke="currentColor"
          strokeWidth="1.7"
          strokeLinecap="round"
        />
      </svg>
    );
  } else if (status === 'failed') {
    icon = (
      <svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true">
        <circle cx="8" cy="8" r="6.5" fill="currentColor" />
        <path d="M8 4.5v4.5M8 11v.5" stroke="#fff" strokeWidth="1.8" strokeLinecap="round" />
      </svg>
    );
  } else return null;
  return (
    <span className="tick" data-status={status} title={label} role="img" aria-label={label}>
      {icon}
    </span>
  );
}

/** One message. `side` says whose view it is: the agent's (customer on the left) or the customer's. */
export function Bubble(props: {
  m: Message;
  side: 'agent' | 'customer';
  author?: string;
  lookup?: MessageLookup;
  /** The message a search result opened the conversation at. */
  found?: boolean;
}) {
  const { t, time } = useI18n();
  const short = useShortTime();
  const { m } = props;
  const outgoing = isOutgoing(m);
  const mine = props.side === 'agent' ? outgoing : !outgoing;
  const text = messageText(m);
  const cls =
    // A flow's or a bot's message is the business speaking to the customer: a bubble on its side.
    `${m.origin === 'system' && !m.automation ? 'msg system' : mine ? 'msg out' : 'msg in'}${props.found ? ' found' : ''}` +
    (m.bySupervisor ? ' by-supervisor' : '') +
    (m.automation ? ' automated' : '');
  return (
    <li
      className={cls}
      data-message-id={m.id}
      data-origin={m.origin}
      data-status={m.status}
      data-automation={m.automation ?? undefined}
    >
      {props.author && <span className="msg-author">{props.author}</span>}
      <MessageContext m={m} lookup={props.lookup} />
      <MessageMedia m={m} />
      {hasOwnBody(m) ? (
        <MessageBody m={m} lookup={props.lookup} />
      ) : (
        text && <span className="msg-text">{summaryLabel(t, text, m.type)}</span>
      )}
      <MessageMarks m={m} />
      {m.type === 'template' && <TemplateContent m={m} />}
      <span className="msg-foot">
        {outgoing && <MessageCategory m={m} />}
        <time dateTime={m.createdAt} title={time(m.createdAt)}>
          {short(m.createdAt)}
        </time>
        {outgoing && <Tick status={m.status} />}
      </span>
      {m.status === 'failed' && (
        <span className="msg-error" role="note">
          {t('status.failed')}:{' '}
          {m.error
            ? `${m.error.message} (${m.error.code})${m.error.details ? ` — ${m.error.details}` : ''}`
            : t('common.error')}
        </span>
      )}
    </li>
  );
}

export interface MessageListHandle {
  scrollToBottom(): void;
}

/**
 * The scrolling list. Reaching the top asks for older messages (`onLoadOlder`), and the list keeps
 * what the reader was looking at in place when they arrive; while the reader is at the bottom, new
 * messages keep it there.
 */
export const MessageList = forwardRef<
  MessageListHandle,
  {
    messages: Message[];
    side: 'agent' | 'customer';
    hasOlder: boolean;
    loadingOlder: boolean;
    onLoadOlder: () => void;
    authorOf?: (m: Message) => string | undefined;
    label: string;
    /**
     * The agent's timeline: the messages merged with notes and activity lines (inbox/timeline.ts),
     * each of those drawn by `renderExtra`. Without it, the messages alone.
     */
    timeline?: TimelineItem[];
    renderExtra?: (item: Exclude<TimelineItem, { type: 'message' }>) => ReactNode;
    /** Opened at a message: newer pages on demand, and that message in view and marked. */
    hasNewer?: boolean;
    onLoadNewer?: () => void;
    focusId?: string | null;
  }
>(function MessageList(props, ref) {
  const { t } = useI18n();
  const box = useRef<HTMLOListElement>(null);
  const atBottom = useRef(true);
  const firstId = useRef<string | null>(null);
  const lastId = useRef<string | null>(null);
  const heightBefore = useRef(0);
  const { messages, hasOlder, loadingOlder, onLoadOlder, timeline } = props;
  const items = useMemo<TimelineItem[]>(
    () =>
      timeline ?? messages.map((m) => ({ type: 'message', at: m.createdAt, key: `m-${m.id}`, message: m })),
    [timeline, messages],
  );
  const byId = useMemo(() => new Map(messages.map((m) => [m.id, m])), [messages]);
  const lookup = useCallback((id: string) => byId.get(id), [byId]);

  const scrollToBottom = useCallback(() => {
    const el = box.current;
    if (el) el.scrollTop = el.scrollHeight;
    atBottom.current = true;
  }, []);
  useImperativeHandle(ref, () => ({ scrollToBottom }), [scrollToBottom]);

  // Runs after each change of the list, before the browser paints it.
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    const first = items[0]?.key ?? null;
    const last = items.at(-1)?.key ?? null;
    const found = props.focusId
      ? el.querySelector<HTMLElement>(`[data-message-id="${props.focusId}"]`)
      : null;
    if (firstId.current === null && found) {
      // Opened at a message: it, in the middle of the view.
      el.scrollTop = found.offsetTop - el.offsetTop - el.clientHeight / 2 + found.offsetHeight / 2;
      atBottom.current = false;
    } else if (firstId.current === null) {
      // First fill: start at the newest message.
      el.scrollTop = el.scrollHeight;
    } else if (first !== firstId.current && last === lastId.current) {
      // Older messages were put above: keep the same message under the reader's eyes.
      el.scrollTop += el.scrollHeight - heightBefore.current;
    } else if (last !== lastId.current && atBottom.current) {
      // A new message while the reader was at the bottom: follow it. Otherwise leave them reading.
      el.scrollTop = el.scrollHeight;
    }
    firstId.current = first;
    lastId.current = last;
    heightBefore.current = el.scrollHeight;
  }, [items, props.focusId]);

  const onScroll = () => {
    const el = box.current;
    if (!el) return;
    atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
    heightBefore.current = el.scrollHeight;
    if (el.scrollTop < 80 && hasOlder && !loadingOlder) onLoadOlder();
  };

  // A short first page may not fill the view, so no scroll would ever ask for more.
  useEffect(() => {
    const el = box.current;
    if (el && hasOlder && !loadingOlder && el.scrollHeight <= el.clientHeight) onLoadOlder();
  }, [messages, hasOlder, loadingOlder, onLoadOlder]);

  return (
    <ol className="messages" ref={box} onScroll={onScroll} aria-label={props.label} tabIndex={0}>
      {hasOlder ? (
        <li className="messages-edge">
          {loadingOlder ? (
            t('chat.loadingOlder')
          ) : (
            <button type="button" className="btn small ghost" onClick={onLoadOlder}>
              {t('chat.loadOlder')}
            </button>
          )}
        </li>
      ) : (
        items.length > 0 && <li className="messages-edge">{t('chat.start')}</li>
      )}
      {items.map((item) =>
        item.type === 'message' ? (
          <Bubble
            key={item.key}
            m={item.message}
            side={props.side}
            author={props.authorOf?.(item.message)}
            lookup={lookup}
            found={item.message.id === props.focusId}
          />
        ) : (
          <Fragment key={item.key}>{props.renderExtra?.(item)}</Fragment>
        ),
      )}
      {props.hasNewer && (
        <li className="messages-edge">
          <button type="button" className="btn small ghost" onClick={props.onLoadNewer}>
            {t('chat.loadNewer')}
          </button>
        </li>
      )}
    </ol>
  );
});

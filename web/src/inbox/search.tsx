import { useCallback, useEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { get, qs } from '../api';
import { Avatar } from '../components';
import { useI18n, type MessageKey } from '../i18n';
import type {
  ChatHit,
  ChatSearchPage,
  ContactHit,
  ContactSearchPage,
  MessageHit,
  MessageSearchPage,
} from '../models';
import { Link } from '../router';
import { useDirectory, useLabels } from '../session';
import { useShortTime } from './format';

// The inbox's search box: messages by their words, contacts and conversations by the customer, with
// the filters the API takes (channel, team, attendant, dates). A result opens its conversation — a
// message result at that message. Keyboard: ↓ from the box into the results, ↑/↓ between them, Enter
// opens, Esc back to the box (and from the box, out of the search).

export type SearchKind = 'messages' | 'contacts' | 'chats';

export interface SearchState {
  q: string;
  kind: SearchKind;
  channelId: string;
  teamId: string;
  userId: string;
  labelId: string;
  since: string;
  until: string;
}

export const NO_SEARCH: SearchState = {
  q: '',
  kind: 'messages',
  channelId: '',
  teamId: '',
  userId: '',
  labelId: '',
  since: '',
  until: '',
};

const KINDS: { id: SearchKind; label: MessageKey; path: string }[] = [
  { id: 'messages', label: 'search.messages', path: '/api/search' },
  { id: 'contacts', label: 'search.contacts', path: '/api/search/contacts' },
  { id: 'chats', label: 'search.chats', path: '/api/search/chats' },
];

const PAGE = 20;

/** The box itself, in the inbox's header; the query is sent after a pause in the typing. */
export function SearchBox(props: { search: SearchState; onChange: (s: SearchState) => void }) {
  const { t } = useI18n();
  const { search, onChange } = props;
  const [q, setQ] = useState(search.q);
  useEffect(() => setQ(search.q), [search.q]);
  useEffect(() => {
    if (q === search.q) return;
    const timer = setTimeout(() => onChange({ ...search, q }), 300);
    return () => clearTimeout(timer);
  }, [q, search, onChange]);
  const onKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      setQ('');
      onChange({ ...search, q: '' });
    } else if (e.key === 'ArrowDown') {
      e.preventDefault();
      focusResult(0);
    } else if (e.key === 'Enter') {
      e.preventDefault();
      onChange({ ...search, q });
    }
  };
  return (
    <form role="search" className="inbox-search" onSubmit={(e) => e.preventDefault()}>
      <input
        id="inbox-search"
        type="search"
        aria-label={t('search.label')}
        placeholder={t('search.placeholder')}
        maxLength={200}
        value={q}
        onChange={(e) => setQ(e.target.value)}
        onKeyDown={onKey}
      />
    </form>
  );
}

/** Focuses the i-th result link (negative: from the end); none there, nothing happens. */
function focusResult(i: number) {
  const links = [...document.querySelectorAll<HTMLAnchorElement>('.search-results a.search-hit')];
  (i < 0 ? links.at(i) : links[i])?.focus();
}

type Hit = MessageHit | ContactHit | ChatHit;
type AnyPage = MessageSearchPage | ContactSearchPage | ChatSearchPage;

/** The results panel that takes the lists' place while a search is on. */
export function SearchResults(props: {
  search: SearchState;
  onChange: (s: SearchState) => void;
  openId: string | null;
}) {
  const { t } = useI18n();
  const { search, onChange } = props;
  const [hits, setHits] = useState<Hit[]>([]);
  const [nextPage, setNextPage] = useState<number | null>(null);
  const [state, setState] = useState<'loading' | 'ready' | 'error'>('loading');
  const generation = useRef(0);
  // The search as a value: a new object with the same fields loads nothing again.
  const key = JSON.stringify(search);

  const load = useCallback(
    async (page: number) => {
      const search = JSON.parse(key) as SearchState;
      const kind = KINDS.find((k) => k.id === search.kind) ?? KINDS[0]!;
      const run = ++generation.current;
      if (page === 1) setState('loading');
      try {
        const res = await get<AnyPage>(
          `${kind.path}${qs({
            q: search.q.trim(),
            channelId: search.channelId,
            teamId: search.teamId,
            userId: search.userId,
            labelId: search.labelId,
            since: search.since ? new Date(`${search.since}T00:00:00`).toISOString() : '',
            until: search.until ? new Date(`${search.until}T23:59:59.999`).toISOString() : '',
            page,
            limit: PAGE,
          })}`,
        );
        if (run !== generation.current) return;
        setHits((prev) => (page === 1 ? res.results : [...prev, ...res.results]));
        setNextPage(res.nextPage);
        setState('ready');
      } catch {
        if (run === generation.current) setState('error');
      }
    },
    [key],
  );
  // Every change of the search starts again from its first page.
  useEffect(() => {
    void load(1);
  }, [load]);

  const onTabKey = (e: KeyboardEvent<HTMLButtonElement>) => {
    if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
    e.preventDefault();
    const i = KINDS.findIndex((x) => x.id === search.kind);
    const next = KINDS[(i + (e.key === 'ArrowRight' ? 1 : KINDS.length - 1)) % KINDS.length]!.id;
    onChange({ ...search, kind: next });
    document.getElementById(`search-tab-${next}`)?.focus();
  };
  const onListKey = (e: KeyboardEvent<HTMLUListElement>) => {
    const links = [...e.currentTarget.querySelectorAll<HTMLAnchorElement>('a.search-hit')];
    const at = links.indexOf(document.activeElement as HTMLAnchorElement);
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      if (e.key === 'ArrowUp' && at <= 0) document.getElementById('inbox-search')?.focus();
      else links[Math.min(links.length - 1, at + (e.key === 'ArrowDown' ? 1 : -1))]?.focus();
    } else if (e.key === 'Escape') {
      e.preventDefault();
      document.getElementById('inbox-search')?.focus();
    }
  };

  return (
    <div className="search-results" aria-label={t('search.results')}>
      <div className="tabs" role="tablist" aria-label={t('search.kinds')}>
        {KINDS.map((k) => (
          <button
            key={k.id}
            id={`search-tab-${k.id}`}
            type="button"
            role="tab"
            className="tab"
            aria-selected={search.kind === k.id}
            aria-controls="search-panel"
            tabIndex={search.kind === k.id ? 0 : -1}
            onClick={() => onChange({ ...search, kind: k.id })}
            onKeyDown={onTabKey}
          >
            {t(k.label)}
          </button>
        ))}
      </div>
      <div
        id="search-panel"
        role="tabpanel"
        aria-labelledby={`search-tab-${search.kind}`}
        className="chat-list-panel"
      >
        <SearchFilters search={search} onChange={onChange} />
        {state === 'error' && (
          <p className="error" role="alert">
            {t('common.error')}{' '}
            <button type="button" className="btn small" onClick={() => void load(1)}>
              {t('common.retry')}
            </button>
          </p>
        )}
        {state === 'loading' ? (
          <p className="list-empty" role="status">
            {t('common.loading')}
          </p>
        ) : hits.length === 0 && state === 'ready' ? (
          <p className="list-empty" role="status">
            {t('search.none')}
          </p>
        ) : (
          <ul className="chat-list search-list" data-kind={search.kind} onKeyDown={onListKey}>
            {hits.map((h) => (
              <SearchHit key={`${search.kind}:${h.id}`} hit={h} kind={search.kind} openId={props.openId} />
            ))}
            {nextPage !== null && (
              <li className="messages-edge">
                <button type="button" className="btn small ghost" onClick={() => void load(nextPage)}>
                  {t('search.more')}
                </button>
              </li>
            )}
          </ul>
        )}
      </div>
    </div>
  );
}

/** Channel, team, attendant, label and a date range. */
function SearchFilters(props: { search: SearchState; onChange: (s: SearchState) => void }) {
  const { t } = useI18n();
  const { teams, channels, users } = useDirectory();
  const { labels } = useLabels();
  const { search, onChange } = props;
  const select = (
    field: 'channelId' | 'teamId' | 'userId' | 'labelId',
    label: MessageKey,
    any: MessageKey,
    options: { id: string; name: string }[],
  ) => (
    <select
      aria-label={t(label)}
      value={search[field]}
      onChange={(e) => onChange({ ...search, [field]: e.target.value })}
    >
      <option value="">{t(any)}</option>
      {options.map((x) => (
        <option key={x.id} value={x.id}>
          {x.name}
        </option>
      ))}
    </select>
  );
  return (
    <form
      className="all-open-filters search-filters"
      aria-label={t('search.filters')}
      onSubmit={(e) => e.preventDefault()}
    >
      <div className="all-open-selects">
        {select('channelId', 'allOpen.channel', 'allOpen.anyChannel', channels)}
        {select('teamId', 'allOpen.team', 'allOpen.anyTeam', teams)}
        {select('userId', 'search.agent', 'search.anyAgent', users)}
        {select('labelId', 'views.label', 'views.anyLabel', labels)}
      </div>
      <div className="all-open-selects">
        <label>
          {t('search.since')}
          <input
            type="date"
            value={search.since}
            onChange={(e) => onChange({ ...search, since: e.target.value })}
          />
        </label>
        <label>
          {t('search.until')}
          <input
            type="date"
            value={search.until}
            onChange={(e) => onChange({ ...search, until: e.target.value })}
          />
        </label>
      </div>
    </form>
  );
}

/** One result: who, when, the match (plain text, matched words marked) and whether it is closed. */
function SearchHit(props: { hit: Hit; kind: SearchKind; openId: string | null }) {
  const { t, time } = useI18n();
  const short = useShortTime();
  const { channels } = useDirectory();
  const { hit, kind } = props;
  const chat = 'chat' in hit ? hit.chat : (hit as ChatHit);
  const href = kind === 'messages' ? `/inbox/${chat.id}/m/${hit.id}` : `/inbox/${chat.id}`;
  const name = chat.contact.name || chat.contact.value;
  const at = kind === 'messages' ? (hit as MessageHit).createdAt : chat.createdAt;
  const channel = channels.find((c) => c.id === chat.channelId);
  let body: ReactNode;
  if (kind === 'messages') {
    body = (hit as MessageHit).highlight.map((p, i) =>
      p.match ? <mark key={i}>{p.text}</mark> : <span key={i}>{p.text}</span>,
    );
  } else if (kind === 'contacts') {
    body = (hit as ContactHit).value;
  } else {
    body = chat.lastMessage?.content ?? '';
  }
  return (
    <li className="chat-item search-item" data-chat-id={chat.id} data-hit-id={hit.id}>
      <Link href={href} className="search-hit" aria-current={props.openId === chat.id ? 'page' : undefined}>
        <Avatar name={chat.contact.name} />
        <div className="chat-item-body">
          <div className="chat-item-top">
            <span className="chat-item-name">{name}</span>
            <time className="chat-item-time" dateTime={at} title={time(at)}>
              {short(at)}
            </time>
          </div>
          <div className="chat-item-bottom">
            <span className="chat-item-last search-snippet">{body}</span>
          </div>
          <div className="chat-item-meta">
            {[channel?.name, chat.status === 'closed' ? t('search.closed') : t('search.open')]
              .filter(Boolean)
              .join(' · ')}
          </div>
        </div>
      </Link>
    </li>
  );
}

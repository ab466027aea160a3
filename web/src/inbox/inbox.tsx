import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useAlerts } from '../alerts/alerts';
import { Avatar } from '../components';
import { summaryLabel, useI18n } from '../i18n';
import { Link } from '../router';
import { useDirectory, useDrafts, useMe } from '../session';
import type { Chat, ChatViewFilters } from '../models';
import { AllOpenFilters, NO_FILTER } from './all-open';
import { activityOf, type AllOpenFilter, type ListName } from './chat-state';
import { BulkBar, SelectBox, useSelection, type Selection } from './bulk';
import { Conversation } from './conversation';
import { useShortTime } from './format';
import { ChatItemLabels } from './labels';
import { NO_SEARCH, SearchBox, SearchResults, type SearchState } from './search';
import { useInboxKeys } from './inbox-keys';
import { useInboxLists } from './use-inbox';
import { SlaBadge } from './sla';
import { SnoozeBadge } from './snooze';
import { FilterBar, filtersFromSearch, useFilteredChats, useViews } from './views';

/**
 * The agent's two lists, for supervisors and admins every open conversation, the filter bar's list
 * and each saved view (`view:<id>`).
 */
type Tab = ListName | 'all' | 'filter' | `view:${string}`;

/** `/inbox` and `/inbox/<chat id>`: the agent's lists beside the open conversation. */
export function Inbox(props: { path: string }) {
  const { t } = useI18n();
  const { can } = useMe();
  const seesAll = can('chats:read_all');
  // `/inbox/<chat>`, or `/inbox/<chat>/m/<message>`: opened at a message (a search result).
  const opened = /^\/inbox\/([0-9a-f]{24})(?:\/m\/([0-9a-f]{24}))?\/?$/i.exec(props.path);
  const openId = opened?.[1] ?? null;
  const atMessage = opened?.[2] ?? null;
  const [search, setSearch] = useState<SearchState>(NO_SEARCH);
  const searching = search.q.trim() !== '';
  // A link with filters (a live board's figure) opens the filter bar's list with them.
  const [fromLink] = useState(() => filtersFromSearch(location.search));
  const [tab, setTab] = useState<Tab>(fromLink ? 'filter' : 'waiting');
  const [allFilter, setAllFilter] = useState<AllOpenFilter>(NO_FILTER);
  const [filters, setFilters] = useState<ChatViewFilters>(fromLink ?? {});
  const views = useViews();
  const viewShown = tab.startsWith('view:') ? views.views.find((v) => `view:${v.id}` === tab) : undefined;
  const filtered = useFilteredChats(tab === 'filter' ? filters : (viewShown?.filters ?? null));
  // The all-open list is loaded from the start, not when its tab is opened: its tab counts it.
  const lists = useInboxLists(
    openId,
    seesAll ? allFilter : null,
    filtered.chats.map((c) => c.id),
    tab === 'all',
  );

  // A captured (or transferred-to-me) conversation moves to "my chats": the list follows it.
  const openListBefore = useRef<ListName | null>(null);
  const openList: ListName | null = openId
    ? lists.mine.some((c) => c.id === openId)
      ? 'mine'
      : lists.waiting.some((c) => c.id === openId)
        ? 'waiting'
        : null
    : null;
  useEffect(() => {
    if (openList === 'mine' && openListBefore.current === 'waiting') setTab('mine');
    openListBefore.current = openList;
  }, [openList, openId]);

  // The tab's title counts the waiting conversations and the agent's own with unread messages, for
  // an agent working in another tab (with the unread notifications: alerts.tsx).
  const { setInboxCounts, showing } = useAlerts();
  const waitingCount = lists.waiting.length;
  const unreadCount = lists.mine.filter((c) => c.unreadMessages > 0).length;
  useEffect(() => {
    setInboxCounts({ waiting: waitingCount, unread: unreadCount });
  }, [waitingCount, unreadCount, setInboxCounts]);
  useEffect(() => () => setInboxCounts(null), [setInboxCounts]);
  useEffect(() => {
    showing(openId);
    return () => showing(null);
  }, [openId, showing]);

  const tabs: { id: Tab; label: string; chats: Chat[]; empty: string; count?: number | null }[] = [
    { id: 'waiting', label: t('inbox.waiting'), chats: lists.waiting, empty: t('inbox.empty.waiting') },
    { id: 'mine', label: t('inbox.mine'), chats: lists.mine, empty: t('inbox.empty.mine') },
  ];
  if (seesAll)
    tabs.push({
      id: 'all',
      label: t('allOpen.tab'),
      chats: lists.all,
      empty: t('allOpen.empty'),
      count: lists.allCount,
    });
  // The filter bar's list and the saved views: the server's first page, and its exact total.
  const shownTotal = filtered.total;
  tabs.push({
    id: 'filter',
    label: t('views.tab'),
    chats: tab === 'filter' ? filtered.chats : [],
    empty: t('views.empty'),
    count: tab === 'filter' ? shownTotal : null,
  });
  for (const v of views.views)
    tabs.push({
      id: `view:${v.id}`,
      label: v.name,
      chats: tab === `view:${v.id}` ? filtered.chats : [],
      empty: t('views.empty'),
      count: tab === `view:${v.id}` && shownTotal !== null ? shownTotal : (views.counts.get(v.id) ?? null),
    });
  const onTabKey = (e: KeyboardEvent<HTMLButtonElement>) => {
    if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
    e.preventDefault();
    const i = tabs.findIndex((x) => x.id === tab);
    const next = tabs[(i + (e.key === 'ArrowRight' ? 1 : tabs.length - 1)) % tabs.length]!.id;
    setTab(next);
    document.getElementById(`tab-${next}`)?.focus();
  };
  const active = tabs.find((x) => x.id === tab) ?? tabs[0]!;
  useInboxKeys(active.chats, openId, lists);
  const activeIds = active.chats.map((c) => c.id);
  const selection = useSelection(activeIds, active.id);
  const isAll = active.id === 'all';
  const isFiltered = active.id === 'filter' || active.id.startsWith('view:');
  const loading = isFiltered
    ? filtered.loading && active.chats.length === 0
    : isAll
      ? lists.allLoading && active.chats.length === 0
      : lists.loading;
  const failed = isFiltered ? filtered.error : isAll ? lists.allError : lists.error;
  const retry = () => void (isFiltered ? filtered.reload() : isAll ? lists.reloadAll() : lists.reload());

  return (
    <div className={openId ? 'inbox has-chat' : 'inbox'}>
      <aside className="inbox-side" aria-label={t('inbox.lists')}>
        <SearchBox search={search} onChange={setSearch} />
        {searching ? (
          <SearchResults search={search} onChange={setSearch} openId={openId} />
        ) : (
          <>
            <div className="tabs" role="tablist" aria-label={t('inbox.lists')}>
              {tabs.map((x) => (
                <button
                  key={x.id}
                  id={`tab-${x.id}`}
                  type="button"
                  role="tab"
                  className="tab"
                  aria-selected={tab === x.id}
                  aria-controls={`list-${x.id}`}
                  tabIndex={tab === x.id ? 0 : -1}
                  onClick={() => setTab(x.id)}
                  onKeyDown={onTabKey}
                >
                  {x.label}
                  {(x.count !== undefined ? x.count !== null : true) && (
                    <span className="count" data-testid={`count-${x.id}`}>
                      {x.count ?? x.chats.length}
                    </span>
                  )}
                </button>
              ))}
            </div>
            <div
              id={`list-${active.id}`}
              role="tabpanel"
              aria-labelledby={`tab-${active.id}`}
              className="chat-list-panel"
            >
              {isAll && <AllOpenFilters filter={allFilter} onChange={setAllFilter} />}
              {active.id === 'filter' && (
                <FilterBar
                  filters={filters}
                  onChange={setFilters}
                  onSave={async (name) => {
                    const view = await views.create(name, filters);
                    setTab(`view:${view.id}`);
                  }}
                />
              )}
              {viewShown && (
                <div className="view-actions">
                  <button
                    type="button"
                    className="btn small"
                    onClick={() => {
                      setFilters(viewShown.filters);
                      setTab('filter');
                    }}
                  >
                    {t('views.edit')}
                  </button>
                  <button
                    type="button"
                    className="btn small danger"
                    aria-label={t('views.delete', { name: viewShown.name })}
                    onClick={() => void views.remove(viewShown.id).then(() => setTab('waiting'))}
                  >
                    {t('common.delete')}
                  </button>
                </div>
              )}
              {failed && (
                <p className="error" role="alert">
                  {t('common.error')}{' '}
                  <button type="button" className="btn small" onClick={retry}>
                    {t('common.retry')}
                  </button>
                </p>
              )}
              <BulkBar chats={active.chats} selection={selection} />
              {loading ? (
                <p className="list-empty" role="status">
                  {t('common.loading')}
                </p>
              ) : active.chats.length === 0 ? (
                <p className="list-empty">{active.empty}</p>
              ) : (
                <ul className="chat-list" data-list={isFiltered ? 'filtered' : active.id}>
                  {active.chats.map((c) => (
                    <ChatItem
                      key={c.id}
                      chat={c}
                      current={c.id === openId}
                      list={active.id}
                      selection={selection}
                    />
                  ))}
                </ul>
              )}
            </div>
          </>
        )}
      </aside>
      <div className="inbox-pane">
        {openId ? (
          <Conversation
            key={`${openId}/${atMessage ?? ''}`}
            chatId={openId}
            lists={lists}
            atMessage={atMessage}
          />
        ) : (
          <div className="inbox-placeholder">
            <p>{t('inbox.pick')}</p>
          </div>
        )}
      </div>
    </div>
  );
}

function ChatItem(props: { chat: Chat; current: boolean; list: Tab; selection: Selection }) {
  const { t, time } = useI18n();
  const short = useShortTime();
  const { me } = useMe();
  const { teams, users } = useDirectory();
  const { drafts } = useDrafts();
  const { chat } = props;
  const name = chat.contact.name || chat.contact.value;
  const last = chat.lastMessage;
  const draft = drafts.get(chat.id);
  // An agent's message says whose it is: "You" only for the signed-in user's own.
  const author =
    last?.origin === 'user' && last.userId
      ? last.userId === me.user.id
        ? t('chat.you')
        : users.find((u) => u.id === last.userId)?.name
      : undefined;
  const team = props.list !== 'mine' ? teams.find((x) => x.id === chat.teamId) : undefined;
  // Every open conversation: where it is and who has it.
  const attendant = chat.userId ? users.find((u) => u.id === chat.userId) : undefined;
  const meta =
    props.list !== 'waiting' && props.list !== 'mine'
      ? [chat.queue, team?.name, attendant ? t('allOpen.attendant', { name: attendant.name }) : undefined]
          .filter(Boolean)
          .join(' · ')
      : team?.name;
  const unread = chat.unreadMessages;
  return (
    <li
      className={unread > 0 ? 'chat-item selectable unread' : 'chat-item selectable'}
      data-chat-id={chat.id}
    >
      <SelectBox chat={chat} selection={props.selection} />
      <Link href={`/inbox/${chat.id}`} aria-current={props.current ? 'page' : undefined}>
        <Avatar name={chat.contact.name} />
        <div className="chat-item-body">
          <div className="chat-item-top">
            <span className="chat-item-name">{name}</span>
            <time className="chat-item-time" dateTime={activityOf(chat)} title={time(activityOf(chat))}>
              {short(activityOf(chat))}
            </time>
          </div>
          <div className="chat-item-bottom">
            <span className="chat-item-last">
              {draft && !props.current ? (
                <>
                  <em className="chat-item-draft">{t('chat.draft')}:</em> {draft}
                </>
              ) : (
                <>
                  {author && `${author}: `}
                  {last ? summaryLabel(t, last.content, last.type) : ''}
                </>
              )}
            </span>
            {unread > 0 && (
              <>
                <span className="badge" aria-hidden="true" data-testid="unread">
                  {unread}
                </span>
                <span className="sr-only">{t('inbox.unread', { n: unread })}</span>
              </>
            )}
          </div>
          {meta && <div className="chat-item-meta">{meta}</div>}
          <SnoozeBadge chat={chat} />
          <SlaBadge chat={chat} />
          <ChatItemLabels chat={chat} />
        </div>
      </Link>
    </li>
  );
}

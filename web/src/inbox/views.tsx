import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError, del, get, post, qs } from '../api';
import { useI18n } from '../i18n';
import type { Chat, ChatPage, ChatView, ChatViewCounts, ChatViewFilters } from '../models';
import { useDirectory, useGateway, useLabels, useMe } from '../session';
import { QUEUE_ATTENDING, QUEUE_HIDDEN, QUEUE_WAITING } from './chat-state';

// Lists that organise the day: a filter bar (status, assignee, channel, team, label, queue, order)
// over `GET /api/chats`, and the user's saved views (`/api/chat-views`), shown as tabs beside the
// agent's own with their exact counts. Both stay live: any chat or label event reloads the list shown
// and the counts, a moment later, as the server alone knows what its filters match.

const PAGE = 50;
/** Events after which what a filter matches may have changed. */
const LIST_EVENTS = [
  'chat.new',
  'chat.update',
  'chat.queue',
  'chat.capture',
  'chat.transfer',
  'chat.close',
  'chat.labels',
  'chat.snoozed',
  'chat.unsnoozed',
  'sla.breached',
  'label.delete',
] as const;
/** Events come in bursts (a transfer is several): one reload after them. */
const SETTLE_MS = 400;

/** Calls `run` a moment after chat events (and after a resync), once per burst. */
export function useOnChatEvents(run: () => void) {
  const { gateway } = useGateway();
  const runRef = useRef(run);
  runRef.current = run;
  useEffect(() => {
    if (!gateway) return;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const soon = () => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => runRef.current(), SETTLE_MS);
    };
    const offs = [...LIST_EVENTS.map((n) => gateway.on(n, soon)), gateway.onResync(soon)];
    return () => {
      if (timer) clearTimeout(timer);
      offs.forEach((off) => off());
    };
  }, [gateway]);
}

export interface FilteredChats {
  chats: Chat[];
  total: number | null;
  loading: boolean;
  error: boolean;
  reload(): Promise<void>;
}

/** The first page of the agent list for `filters` (null: nothing shown), kept live. */
export function useFilteredChats(filters: ChatViewFilters | null): FilteredChats {
  const key = filters ? JSON.stringify(filters) : null;
  const [page, setPage] = useState<ChatPage | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState(false);
  const generation = useRef(0);
  const reload = useCallback(async () => {
    const run = ++generation.current;
    if (key === null) {
      setPage(null);
      return;
    }
    setLoading(true);
    try {
      const f = JSON.parse(key) as ChatViewFilters;
      const answer = await get<ChatPage>(`/api/chats${qs({ ...f, limit: PAGE })}`);
      if (run !== generation.current) return;
      setPage(answer);
      setError(false);
    } catch {
      if (run === generation.current) setError(true);
    } finally {
      if (run === generation.current) setLoading(false);
    }
  }, [key]);
  useEffect(() => {
    setPage(null);
    void reload();
  }, [reload]);
  useOnChatEvents(() => void reload());
  return { chats: page?.chats ?? [], total: page?.total ?? null, loading, error, reload };
}

export interface Views {
  views: ChatView[];
  counts: Map<string, number | null>;
  create(name: string, filters: ChatViewFilters): Promise<ChatView>;
  remove(id: string): Promise<void>;
}

/** The user's saved views and their exact counts, kept live. */
export function useViews(): Views {
  const [views, setViews] = useState<ChatView[]>([]);
  const [counts, setCounts] = useState<Map<string, number | null>>(new Map());
  const loadCounts = useCallback(async () => {
    try {
      const answer = await get<ChatViewCounts>('/api/chat-views/counts');
      setCounts(new Map(answer.counts.map((c) => [c.id, c.total])));
    } catch {
      // The tabs keep the counts they had.
    }
  }, []);
  useEffect(() => {
    void get<ChatView[]>('/api/chat-views')
      .then(setViews)
      .catch(() => undefined);
    void loadCounts();
  }, [loadCounts]);
  useOnChatEvents(() => void loadCounts());
  const create = useCallback(
    async (name: string, filters: ChatViewFilters) => {
      const view = await post<ChatView>('/api/chat-views', { name, filters });
      setViews((prev) => [...prev, view]);
      void loadCounts();
      return view;
    },
    [loadCounts],
  );
  const remove = useCallback(async (id: string) => {
    await del(`/api/chat-views/${id}`);
    setViews((prev) => prev.filter((v) => v.id !== id));
  }, []);
  return { views, counts, create, remove };
}

type Key = keyof ChatViewFilters;

/** What a link may set of the filter bar (`/inbox?queue=…&teamId=…`, the live board's figures). */
const URL_FILTERS: readonly Key[] = [
  'status',
  'assignee',
  'channelId',
  'teamId',
  'userId',
  'label',
  'queue',
  'sla',
  'sort',
  'q',
];

/** The filters a link to the inbox carries, or null without any: the list is the server's to check. */
export function filtersFromSearch(search: string): ChatViewFilters | null {
  const params = new URLSearchParams(search);
  const out: Record<string, string> = {};
  for (const k of URL_FILTERS) {
    const v = params.get(k);
    if (v) out[k] = v;
  }
  return Object.keys(out).length > 0 ? (out as ChatViewFilters) : null;
}

/** The filter bar: every filter of the agent list, the order, and saving the filters as a view. */
export function FilterBar(props: {
  filters: ChatViewFilters;
  onChange: (f: ChatViewFilters) => void;
  onSave?: (name: string) => Promise<void>;
}) {
  const { t } = useI18n();
  const { can } = useMe();
  const { teams, channels, users } = useDirectory();
  const { labels } = useLabels();
  const { filters, onChange } = props;
  const [name, setName] = useState('');
  const [saveError, setSaveError] = useState<string | null>(null);
  const set = (k: Key, v: string) => {
    const next: Record<string, string> = { ...(filters as Record<string, string>) };
    if (v === '') delete next[k];
    else next[k] = v;
    onChange(next as ChatViewFilters);
  };
  const value = (k: Key) => String(filters[k] ?? '');
  const queues = [
    ...new Set([
      QUEUE_WAITING,
      QUEUE_ATTENDING,
      'API',
      'Automação',
      QUEUE_HIDDEN,
      ...channels.map((c) => c.queue),
    ]),
  ];
  const select = (k: Key, label: string, any: string, options: [string, string][]) => (
    <select aria-label={label} value={value(k)} onChange={(e) => set(k, e.target.value)} data-filter={k}>
      <option value="">{any}</option>
      {options.map(([v, text]) => (
        <option key={v} value={v}>
          {text}
        </option>
      ))}
    </select>
  );
  const save = async () => {
    if (!props.onSave || name.trim() === '') return;
    setSaveError(null);
    try {
      await props.onSave(name.trim());
      setName('');
    } catch (err) {
      setSaveError(err instanceof ApiError && err.status !== 0 ? err.message : t('common.error'));
    }
  };
  return (
    <form
      className="all-open-filters list-filters"
      aria-label={t('views.filters')}
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <div className="all-open-selects">
        {select('status', t('views.status'), t('views.statusOpen'), [
          ['pending', t('views.statusPending')],
          ['closed', t('views.statusClosed')],
          ['snoozed', t('views.statusSnoozed')],
        ])}
        {select('assignee', t('views.assignee'), t('views.anyAssignee'), [
          ['mine', t('views.mine')],
          ['unassigned', t('views.unassigned')],
          ...(can('chats:read_all') ? users.map((u): [string, string] => [u.id, u.name]) : []),
        ])}
        {select(
          'label',
          t('views.label'),
          t('views.anyLabel'),
          labels.map((l) => [l.id, l.name]),
        )}
        {select(
          'channelId',
          t('allOpen.channel'),
          t('allOpen.anyChannel'),
          channels.map((c) => [c.id, c.name]),
        )}
        {select(
          'teamId',
          t('allOpen.team'),
          t('allOpen.anyTeam'),
          teams.map((x) => [x.id, x.name]),
        )}
        {select(
          'queue',
          t('allOpen.queue'),
          t('allOpen.anyQueue'),
          queues.map((q) => [q, q]),
        )}
        {select('sla', t('views.sla'), t('views.anySla'), [
          ['at_risk', t('views.slaAtRisk')],
          ['breached', t('views.slaBreached')],
        ])}
        {select('sort', t('views.sort'), t('views.sortNewest'), [
          ['longest_waiting', t('views.sortWaiting')],
          ['last_customer_message', t('views.sortCustomer')],
        ])}
      </div>
      {props.onSave && (
        <div className="view-save">
          <input
            type="text"
            aria-label={t('views.name')}
            placeholder={t('views.nameHint')}
            maxLength={50}
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
          <button type="submit" className="btn small" disabled={name.trim() === ''}>
            {t('views.save')}
          </button>
        </div>
      )}
      {saveError && (
        <p className="error" role="alert">
          {saveError}
        </p>
      )}
    </form>
  );
}

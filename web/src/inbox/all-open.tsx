import { useEffect, useState } from 'react';
import { useMessages } from '../i18n';
import { useSession } from '../session';
import { QUEUE_ATTENDING, QUEUE_HIDDEN, QUEUE_WAITING, type AllOpenFilter } from './chat-state';

// The supervisors' view of every open conversation (users with chats:read_all): whatever its queue,
// so a conversation no agent list shows (`API`, `Automação`, a channel's own queue) can be found and
// handled. Its strings live here, in both languages.

const TEXT = {
  'pt-BR': {
    tab: 'Todos abertos',
    empty: 'Nenhuma conversa aberta com esses filtros',
    filters: 'Filtros das conversas abertas',
    search: 'Buscar',
    searchHint: 'Nome ou número do cliente',
    queue: 'Fila',
    team: 'Equipe',
    channel: 'Canal',
    // The empty choice of each filter shows its name: a narrow column has room for no more.
    anyQueue: 'Fila',
    anyTeam: 'Equipe',
    anyChannel: 'Canal',
    attendant: 'com {name}',
  },
  en: {
    tab: 'All open',
    empty: 'No open conversations match these filters',
    filters: 'Filters of the open conversations',
    search: 'Search',
    searchHint: 'Customer name or number',
    queue: 'Queue',
    team: 'Team',
    channel: 'Channel',
    anyQueue: 'Queue',
    anyTeam: 'Team',
    anyChannel: 'Channel',
    attendant: 'with {name}',
  },
};

export const useAllOpenText = () => useMessages(TEXT);

export const NO_FILTER: AllOpenFilter = { queue: '', teamId: '', channelId: '', q: '' };

/** The queues a supervisor can pick: the platform's own and those the channels name. */
const BUILT_IN_QUEUES = [QUEUE_WAITING, QUEUE_ATTENDING, 'API', 'Automação', QUEUE_HIDDEN];

/** Queue, team and channel filters and the search (sent after a pause in the typing). */
export function AllOpenFilters(props: { filter: AllOpenFilter; onChange: (f: AllOpenFilter) => void }) {
  const m = useAllOpenText();
  const { teams, channels } = useSession();
  const { filter, onChange } = props;
  const [q, setQ] = useState(filter.q);
  useEffect(() => {
    if (q === filter.q) return;
    const timer = setTimeout(() => onChange({ ...filter, q }), 300);
    return () => clearTimeout(timer);
  }, [q, filter, onChange]);
  const queues = [...new Set([...BUILT_IN_QUEUES, ...channels.map((c) => c.queue)])];
  return (
    <form className="all-open-filters" aria-label={m('filters')} onSubmit={(e) => e.preventDefault()}>
      <input
        type="search"
        aria-label={m('search')}
        placeholder={m('searchHint')}
        maxLength={100}
        value={q}
        onChange={(e) => setQ(e.target.value)}
      />
      <div className="all-open-selects">
        <select
          aria-label={m('queue')}
          value={filter.queue}
          onChange={(e) => onChange({ ...filter, queue: e.target.value })}
        >
          <option value="">{m('anyQueue')}</option>
          {queues.map((x) => (
            <option key={x} value={x}>
              {x}
            </option>
          ))}
        </select>
        <select
          aria-label={m('team')}
          value={filter.teamId}
          onChange={(e) => onChange({ ...filter, teamId: e.target.value })}
        >
          <option value="">{m('anyTeam')}</option>
          {teams.map((x) => (
            <option key={x.id} value={x.id}>
              {x.name}
            </option>
          ))}
        </select>
        <select
          aria-label={m('channel')}
          value={filter.channelId}
          onChange={(e) => onChange({ ...filter, channelId: e.target.value })}
        >
          <option value="">{m('anyChannel')}</option>
          {channels.map((x) => (
            <option key={x.id} value={x.id}>
              {x.name}
            </option>
          ))}
        </select>
      </div>
    </form>
  );
}

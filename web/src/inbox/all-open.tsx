import { useEffect, useState } from 'react';
import { useI18n } from '../i18n';
import { useDirectory } from '../session';
import { QUEUE_ATTENDING, QUEUE_HIDDEN, QUEUE_WAITING, type AllOpenFilter } from './chat-state';

// The supervisors' view of every open conversation (users with chats:read_all): whatever its queue,
// so a conversation no agent list shows (`API`, `Automação`, a channel's own queue) can be found and
// handled.

export const NO_FILTER: AllOpenFilter = { queue: '', teamId: '', channelId: '', q: '' };

/** The queues a supervisor can pick: the platform's own and those the channels name. */
const BUILT_IN_QUEUES = [QUEUE_WAITING, QUEUE_ATTENDING, 'API', 'Automação', QUEUE_HIDDEN];

/** Queue, team and channel filters and the search (sent after a pause in the typing). */
export function AllOpenFilters(props: { filter: AllOpenFilter; onChange: (f: AllOpenFilter) => void }) {
  const { t } = useI18n();
  const { teams, channels } = useDirectory();
  const { filter, onChange } = props;
  const [q, setQ] = useState(filter.q);
  useEffect(() => {
    if (q === filter.q) return;
    const timer = setTimeout(() => onChange({ ...filter, q }), 300);
    return () => clearTimeout(timer);
  }, [q, filter, onChange]);
  const queues = [...new Set([...BUILT_IN_QUEUES, ...channels.map((c) => c.queue)])];
  return (
    <form className="all-open-filters" aria-label={t('allOpen.filters')} onSubmit={(e) => e.preventDefault()}>
      <input
        type="search"
        aria-label={t('allOpen.search')}
        placeholder={t('allOpen.searchHint')}
        maxLength={100}
        value={q}
        onChange={(e) => setQ(e.target.value)}
      />
      <div className="all-open-selects">
        <select
          aria-label={t('allOpen.queue')}
          value={filter.queue}
          onChange={(e) => onChange({ ...filter, queue: e.target.value })}
        >
          <option value="">{t('allOpen.anyQueue')}</option>
          {queues.map((x) => (
            <option key={x} value={x}>
              {x}
            </option>
          ))}
        </select>
        <select
          aria-label={t('allOpen.team')}
          value={filter.teamId}
          onChange={(e) => onChange({ ...filter, teamId: e.target.value })}
        >
          <option value="">{t('allOpen.anyTeam')}</option>
          {teams.map((x) => (
            <option key={x.id} value={x.id}>
              {x.name}
            </option>
          ))}
        </select>
        <select
          aria-label={t('allOpen.channel')}
          value={filter.channelId}
          onChange={(e) => onChange({ ...filter, channelId: e.target.value })}
        >
          <option value="">{t('allOpen.anyChannel')}</option>
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

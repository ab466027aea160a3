import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { ApiError, post } from '../api';
import { useI18n } from '../i18n';
import { useDirectory, useLabels } from '../session';
import type { BulkAction, BulkResults, Chat } from '../models';
import { snoozeTimes } from './snooze';

// Bulk actions on a list's selection (bulkUpdateChats): checkboxes on the list's items (space toggles
// the focused one, shift+click or shift+space selects the range from the last one toggled), a bar
// with the action, and a summary of what was done and what was not, chat by chat.

export interface Selection {
  selected: ReadonlySet<string>;
  toggle(id: string, range: boolean): void;
  clear(): void;
}

/** The selection of a list whose chats are `ids` (in list order); chats that leave the list leave it. */
export function useSelection(ids: readonly string[], resetKey: string): Selection {
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const last = useRef<string | null>(null);
  const key = ids.join(',');
  useEffect(() => {
    setSelected(new Set());
    last.current = null;
  }, [resetKey]);
  useEffect(() => {
    const present = new Set(key ? key.split(',') : []);
    setSelected((s) =>
      [...s].every((id) => present.has(id)) ? s : new Set([...s].filter((id) => present.has(id))),
    );
  }, [key]);
  const toggle = useCallback(
    (id: string, range: boolean) => {
      // Read now: the updater below may run after `last` has moved on.
      const from = last.current === null ? -1 : ids.indexOf(last.current);
      const to = ids.indexOf(id);
      setSelected((s) => {
        const next = new Set(s);
        const on = !s.has(id);
        if (range && from !== -1 && to !== -1) {
          for (let i = Math.min(from, to); i <= Math.max(from, to); i++) {
            if (on) next.add(ids[i]!);
            else next.delete(ids[i]!);
          }
        } else if (on) next.add(id);
        else next.delete(id);
        return next;
      });
      last.current = id;
    },
    [ids],
  );
  const clear = useCallback(() => setSelected(new Set()), []);
  return { selected, toggle, clear };
}

/** An item's checkbox: a native one, so space toggles it; shift makes it a range. */
export function SelectBox(props: { chat: Chat; selection: Selection }) {
  const { t } = useI18n();
  const { chat, selection } = props;
  const shift = useRef(false);
  return (
    <input
      type="checkbox"
      className="chat-select"
      aria-label={t('bulk.select', { name: chat.contact.name || chat.contact.value })}
      checked={selection.selected.has(chat.id)}
      // Space with shift: the click it makes may not carry shiftKey, so it is noted on the way down.
      onKeyDown={(e) => (shift.current = e.key === ' ' && e.shiftKey)}
      onClick={(e) => {
        selection.toggle(chat.id, e.shiftKey || shift.current);
        shift.current = false;
      }}
      // Toggled by the click above (which knows about shift); React wants a handler on a checked box.
      onChange={() => undefined}
    />
  );
}

type Kind = 'assign' | 'transfer' | 'label.add' | 'label.remove' | 'close' | 'snooze';
type Outcome = { done: number; failures: { chatId: string; name: string; error: string }[] };

/** The bar over a list with a selection: what to do with it, and what came of the last action. */
export function BulkBar(props: { chats: Chat[]; selection: Selection }) {
  const { t, time } = useI18n();
  const { teams, users } = useDirectory();
  const { labels } = useLabels();
  const { selection, chats } = props;
  const [kind, setKind] = useState<Kind>('close');
  const [target, setTarget] = useState('');
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [error, setError] = useState<string | null>(null);
  const count = selection.selected.size;
  if (count === 0 && !outcome) return null;

  const options =
    kind === 'assign'
      ? users.filter((u) => u.status !== 'cancelled').map((u) => ({ id: u.id, name: u.name }))
      : kind === 'transfer'
        ? teams.filter((x) => x.status === 'active')
        : kind === 'close'
          ? []
          : kind === 'snooze'
            ? snoozeOptions(snoozeTimes(new Date()))
            : labels;
  /** The snooze choices, each quick one with its time (computed once per render). */
  function snoozeOptions(times: ReturnType<typeof snoozeTimes>): { id: string; name: string }[] {
    return [
      ...(['hour', 'tomorrow', 'nextWeek'] as const).map((id) => ({
        id,
        name: t(`snooze.${id}`, { time: time(times[id].toISOString()) }),
      })),
      { id: 'reply', name: t('snooze.reply') },
    ];
  }
  const action = (): BulkAction => {
    switch (kind) {
      case 'assign':
        return { type: 'assign', userId: target };
      case 'transfer':
        return { type: 'transfer', teamId: target };
      case 'label.add':
        return { type: 'label', add: [target] };
      case 'label.remove':
        return { type: 'label', remove: [target] };
      case 'close':
        return { type: 'close' };
      case 'snooze': {
        if (target === 'reply') return { type: 'snooze', untilCustomerMessage: true };
        const times = snoozeTimes(new Date());
        const at =
          target === 'tomorrow' ? times.tomorrow : target === 'nextWeek' ? times.nextWeek : times.hour;
        return { type: 'snooze', until: at.toISOString() };
      }
    }
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const names = new Map(chats.map((c) => [c.id, c.contact.name || c.contact.value]));
    try {
      const res = await post<BulkResults>('/api/chats/bulk', {
        chatIds: [...selection.selected],
        action: action(),
      });
      const failures = res.results.flatMap((r) =>
        r.ok ? [] : [{ chatId: r.chatId, name: names.get(r.chatId) ?? r.chatId, error: r.error ?? '' }],
      );
      setOutcome({ done: res.results.length - failures.length, failures });
      selection.clear();
    } catch (err) {
      setError(err instanceof ApiError && err.status !== 0 ? err.message : t('common.error'));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="bulk" data-testid="bulk-bar">
      {count > 0 && (
        <form className="bulk-bar" aria-label={t('bulk.title')} onSubmit={(e) => void submit(e)}>
          <span className="bulk-count">{t('bulk.selected', { n: count })}</span>
          <select
            aria-label={t('bulk.action')}
            value={kind}
            onChange={(e) => {
              setKind(e.target.value as Kind);
              setTarget('');
            }}
          >
            <option value="close">{t('bulk.close')}</option>
            <option value="assign">{t('bulk.assign')}</option>
            <option value="transfer">{t('bulk.transfer')}</option>
            <option value="label.add">{t('bulk.labelAdd')}</option>
            <option value="label.remove">{t('bulk.labelRemove')}</option>
            <option value="snooze">{t('bulk.snooze')}</option>
          </select>
          {kind !== 'close' && (
            <select
              aria-label={t('bulk.target')}
              value={target}
              onChange={(e) => setTarget(e.target.value)}
              required
            >
              <option value="" disabled>
                {t('bulk.pick')}
              </option>
              {options.map((o) => (
                <option key={o.id} value={o.id}>
                  {o.name}
                </option>
              ))}
            </select>
          )}
          <button type="submit" className="btn small primary" disabled={busy}>
            {t('bulk.apply')}
          </button>
          <button type="button" className="btn small" onClick={selection.clear}>
            {t('bulk.clear')}
          </button>
          {error && (
            <p className="error" role="alert">
              {error}
            </p>
          )}
        </form>
      )}
      {outcome && (
        <div className="bulk-outcome" role="status">
          <span>
            {t('bulk.done', { n: outcome.done })}
            {outcome.failures.length > 0 && ` · ${t('bulk.failed', { n: outcome.failures.length })}`}
          </span>
          <button
            type="button"
            className="btn small"
            onClick={() => setOutcome(null)}
            aria-label={t('bulk.dismiss')}
          >
            ×
          </button>
          {outcome.failures.length > 0 && (
            <ul className="bulk-failures">
              {outcome.failures.map((f) => (
                <li key={f.chatId}>
                  <strong>{f.name}</strong>: {f.error}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  );
}

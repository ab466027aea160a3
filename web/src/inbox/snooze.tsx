import { useMemo, useState, type FormEvent } from 'react';
import { ApiError, post } from '../api';
import { Dialog } from '../components';
import { useI18n } from '../i18n';
import type { Chat } from '../models';

// Snoozing a conversation (`POST /api/chats/{id}/snooze`): it leaves the lists until a time or the
// customer's next message. The choices are radio buttons in a dialog, so the keyboard reaches them
// like any form (arrows between choices, Enter to snooze, Escape to leave).

type Choice = 'hour' | 'tomorrow' | 'nextWeek' | 'custom' | 'reply';

/** The times of the quick choices, in the browser's time zone, from `now`. */
export function snoozeTimes(now: Date): Record<'hour' | 'tomorrow' | 'nextWeek', Date> {
  const tomorrow = new Date(now);
  tomorrow.setDate(now.getDate() + 1);
  tomorrow.setHours(9, 0, 0, 0);
  // Next week: its Monday at 9:00 (a week from today's Monday).
  const nextWeek = new Date(now);
  nextWeek.setDate(now.getDate() + ((8 - now.getDay()) % 7 || 7));
  nextWeek.setHours(9, 0, 0, 0);
  return { hour: new Date(now.getTime() + 3600_000), tomorrow, nextWeek };
}

/** A `datetime-local` input's value (local time, to the minute). */
const localInput = (d: Date) => {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
};

export function SnoozeDialog(props: { chat: Chat; onClose: () => void; onDone: (chat: Chat) => void }) {
  const { t, time } = useI18n();
  const times = useMemo(() => snoozeTimes(new Date()), []);
  const [choice, setChoice] = useState<Choice>('hour');
  const [custom, setCustom] = useState(() => localInput(times.tomorrow));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body =
        choice === 'reply'
          ? { untilCustomerMessage: true }
          : {
              until: (choice === 'custom'
                ? new Date(custom)
                : choice === 'hour'
                  ? new Date(Date.now() + 3600_000)
                  : times[choice]
              ).toISOString(),
            };
      props.onDone(await post<Chat>(`/api/chats/${props.chat.id}/snooze`, body));
    } catch (err) {
      setError(
        err instanceof ApiError && err.status !== 0
          ? err.message
          : err instanceof RangeError
            ? t('snooze.customLabel')
            : t('common.error'),
      );
      setBusy(false);
    }
  };

  const option = (value: Choice, label: string) => (
    <label key={value}>
      <input
        type="radio"
        name="snooze"
        value={value}
        checked={choice === value}
        onChange={() => setChoice(value)}
      />
      {label}
    </label>
  );

  return (
    <Dialog title={t('snooze.title')} onClose={props.onClose} labelId="snooze-title">
      <form onSubmit={(e) => void submit(e)} data-testid="snooze-form">
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <p className="muted">{t('snooze.hint')}</p>
        <fieldset className="radio-col">
          <legend className="sr-only">{t('snooze.title')}</legend>
          {option('hour', t('snooze.hour', { time: time(times.hour.toISOString()) }))}
          {option('tomorrow', t('snooze.tomorrow', { time: time(times.tomorrow.toISOString()) }))}
          {option('nextWeek', t('snooze.nextWeek', { time: time(times.nextWeek.toISOString()) }))}
          {option('custom', t('snooze.custom'))}
          {option('reply', t('snooze.reply'))}
        </fieldset>
        {choice === 'custom' && (
          <label className="field">
            <span>{t('snooze.customLabel')}</span>
            <input
              type="datetime-local"
              value={custom}
              min={localInput(new Date())}
              required
              onChange={(e) => setCustom(e.target.value)}
            />
          </label>
        )}
        <div className="dialog-actions">
          <button type="button" className="btn" onClick={props.onClose}>
            {t('common.cancel')}
          </button>
          <button type="submit" className="btn primary" disabled={busy}>
            {t('snooze.submit')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** What a snoozed chat shows: until when, or until the customer replies. */
export function SnoozeBadge(props: { chat: Chat }) {
  const { t, time } = useI18n();
  const { snooze } = props.chat;
  if (!snooze) return null;
  return (
    <span className="snooze-badge" data-testid="snooze-badge">
      {snooze.until ? t('chat.snoozedUntil', { time: time(snooze.until) }) : t('chat.snoozedUntilReply')}
    </span>
  );
}

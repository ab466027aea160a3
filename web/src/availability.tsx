import { useCallback, useEffect, useRef, useState } from 'react';
import { get, put } from './api';
import { useI18n } from './i18n';
import type { Availability, MyAvailability } from './models';
import { useGateway, useMe } from './session';

const STATES: Availability[] = ['online', 'away', 'offline'];

/**
 * The user's availability in the top bar (getMyAvailability, setMyAvailability): a native select, so
 * the keyboard works as everywhere. Kept live by `user.availability` — the platform's own changes (offline
 * a minute after the last console closed, back at the next one) and other tabs' show at once.
 */
export function AvailabilitySwitch() {
  const { t } = useI18n();
  const { me } = useMe();
  const { gateway } = useGateway();
  const [value, setValue] = useState<Availability | null>(null);
  // Changes go one at a time, in the order chosen (arrow keys step through the states quickly).
  const chain = useRef<Promise<void>>(Promise.resolve());
  const latest = useRef(0);

  const load = useCallback(() => {
    get<MyAvailability>('/api/me/availability')
      .then((a) => setValue(a.availability))
      .catch(() => undefined);
  }, []);
  useEffect(load, [load]);
  useEffect(() => {
    if (!gateway) return;
    const offs = [
      gateway.on('user.availability', (e) => {
        if (e.data.userId === me.user.id) setValue(e.data.availability);
      }),
      gateway.onResync(load),
    ];
    return () => offs.forEach((off) => off());
  }, [gateway, me.user.id, load]);

  const change = (next: Availability) => {
    const n = ++latest.current;
    setValue(next);
    chain.current = chain.current.then(async () => {
      try {
        const saved = await put<MyAvailability>('/api/me/availability', { availability: next });
        if (n === latest.current) setValue(saved.availability);
      } catch {
        if (n === latest.current) load();
      }
    });
  };

  return (
    <label className={`availability availability-${value ?? 'unknown'}`}>
      <span className="availability-dot" aria-hidden="true" />
      <span className="sr-only">{t('availability.label')}</span>
      <select
        data-testid="availability"
        value={value ?? ''}
        disabled={value === null}
        title={t('availability.label')}
        onChange={(e) => change(e.target.value as Availability)}
      >
        {value === null && <option value="">…</option>}
        {STATES.map((s) => (
          <option key={s} value={s}>
            {t(`availability.${s}`)}
          </option>
        ))}
      </select>
    </label>
  );
}

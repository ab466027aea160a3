import { useState } from 'react';
import { ApiError } from '../api';
import { Dialog } from '../components';
import { useI18n, type MessageKey } from '../i18n';
import type { NotificationPreferences } from '../models';
import { useAlerts, type Moment } from './alerts';
import { askDesktopPermission, desktopPermission, type DesktopPermission } from './desktop';

const MOMENTS: { id: Moment; label: MessageKey }[] = [
  { id: 'newChat', label: 'alerts.pref.newChat' },
  { id: 'newMessage', label: 'alerts.pref.newMessage' },
  { id: 'transfer', label: 'alerts.pref.transfer' },
  { id: 'mention', label: 'alerts.pref.mention' },
];

type Prefs = Omit<NotificationPreferences, 'updatedAt'>;

/** The agent's notification preferences: a sound and a desktop notification, per moment. */
export function PreferencesDialog(props: { onClose: () => void }) {
  const { t } = useI18n();
  const { preferences, savePreferences, testSound } = useAlerts();
  const [draft, setDraft] = useState<Prefs>(() => ({
    newChat: { ...preferences.newChat },
    newMessage: { ...preferences.newMessage },
    transfer: { ...preferences.transfer },
    mention: { ...preferences.mention },
  }));
  const [permission, setPermission] = useState<DesktopPermission>(desktopPermission);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const toggle = (id: Moment, way: 'sound' | 'desktop', on: boolean) =>
    setDraft((d) => ({ ...d, [id]: { ...d[id], [way]: on } }));
  const wantsDesktop = MOMENTS.some((m) => draft[m.id].desktop);

  const save = async () => {
    setBusy(true);
    setError(null);
    try {
      await savePreferences(draft);
      props.onClose();
    } catch (err) {
      setError(err instanceof ApiError && err.status !== 0 ? err.message : t('common.error'));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog title={t('alerts.pref.title')} onClose={props.onClose} labelId="alert-prefs-title">
      <form
        className="alert-prefs"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <table className="alert-prefs-table">
          <thead>
            <tr>
              <th scope="col">{t('alerts.pref.moment')}</th>
              <th scope="col">{t('alerts.pref.sound')}</th>
              <th scope="col">{t('alerts.pref.desktop')}</th>
            </tr>
          </thead>
          <tbody>
            {MOMENTS.map((m) => (
              <tr key={m.id}>
                <th scope="row">{t(m.label)}</th>
                {(['sound', 'desktop'] as const).map((way) => (
                  <td key={way}>
                    <input
                      type="checkbox"
                      checked={draft[m.id][way]}
                      aria-label={`${t(m.label)}: ${t(way === 'sound' ? 'alerts.pref.sound' : 'alerts.pref.desktop')}`}
                      onChange={(e) => toggle(m.id, way, e.target.checked)}
                    />
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
        <p className="muted">{t('alerts.pref.oneTab')}</p>
        {wantsDesktop && permission === 'default' && (
          <p>
            <button
              type="button"
              className="btn"
              onClick={() => void askDesktopPermission().then(setPermission)}
            >
              {t('alerts.pref.allowDesktop')}
            </button>
          </p>
        )}
        {wantsDesktop && permission === 'denied' && <p className="muted">{t('alerts.pref.desktopDenied')}</p>}
        {wantsDesktop && permission === 'unsupported' && (
          <p className="muted">{t('alerts.pref.desktopUnsupported')}</p>
        )}
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <div className="dialog-actions">
          <button type="button" className="btn" onClick={testSound}>
            {t('alerts.pref.test')}
          </button>
          <button type="button" className="btn" onClick={props.onClose}>
            {t('common.cancel')}
          </button>
          <button type="submit" className="btn primary" disabled={busy}>
            {t('common.save')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

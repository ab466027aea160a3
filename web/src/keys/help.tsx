import { Dialog } from '../components';
import { useI18n, type MessageKey } from '../i18n';
import { keyLabel, SHORTCUTS, type CommandGroup } from './registry';

const GROUPS: { id: CommandGroup; label: MessageKey }[] = [
  { id: 'general', label: 'keys.group.general' },
  { id: 'go', label: 'keys.group.go' },
  { id: 'chat', label: 'keys.group.chat' },
];

/** `?`: every keyboard shortcut of the console. */
export function HelpDialog(props: { onClose: () => void }) {
  const { t } = useI18n();
  return (
    <Dialog title={t('keys.helpTitle')} onClose={props.onClose} labelId="keys-help-title">
      <div className="keys-help">
        {GROUPS.map((g) => (
          <section key={g.id}>
            <h3>{t(g.label)}</h3>
            <dl>
              {SHORTCUTS.filter((s) => s.group === g.id).map((s) => (
                <div key={s.keys} className="keys-help-row">
                  <dt>
                    <kbd>{keyLabel(s.keys)}</kbd>
                  </dt>
                  <dd>{t(s.label)}</dd>
                </div>
              ))}
            </dl>
          </section>
        ))}
        <p className="muted">{t('keys.fieldsHint')}</p>
      </div>
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={props.onClose}>
          {t('common.close')}
        </button>
      </div>
    </Dialog>
  );
}

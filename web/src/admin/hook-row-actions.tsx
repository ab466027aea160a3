import { useI18n } from '../i18n';
import { Link } from '../router';
import { FormErrors } from './fields';

/**
 * A webhook's row actions — its deliveries, edit, enable/disable, delete — shared by the webhooks
 * page and the bots page (a bot is a webhook with a key). `name` labels each button for a screen reader.
 */
export function HookRowActions(props: {
  webhookId: string;
  name: string;
  enabled: boolean;
  busy: boolean;
  errors: string[];
  onEdit: () => void;
  onToggle: () => void;
  onDelete: () => void;
}) {
  const { t } = useI18n();
  const toggleLabel = props.enabled ? t('hooks.disable') : t('hooks.enable');
  return (
    <div className="adm-row-actions">
      <Link
        href={`/admin/webhooks/${props.webhookId}`}
        className="btn small"
        aria-label={`${t('hooks.deliveries')}: ${props.name}`}
      >
        {t('hooks.deliveries')}
      </Link>
      <button
        type="button"
        className="btn small"
        onClick={props.onEdit}
        aria-label={`${t('common.edit')}: ${props.name}`}
      >
        {t('common.edit')}
      </button>
      <button
        type="button"
        className="btn small"
        disabled={props.busy}
        onClick={props.onToggle}
        aria-label={`${toggleLabel}: ${props.name}`}
      >
        {toggleLabel}
      </button>
      <button
        type="button"
        className="btn small danger"
        onClick={props.onDelete}
        aria-label={`${t('common.delete')}: ${props.name}`}
      >
        {t('common.delete')}
      </button>
      <FormErrors messages={props.errors} />
    </div>
  );
}

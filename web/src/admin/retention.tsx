import { useState } from 'react';
import { get, put } from '../api';
import { useI18n } from '../i18n';
import { FormErrors } from './fields';
import { LoadState, PageHeader } from './list-page';
import { useLoad, useSubmit } from './load';

interface Retention {
  days: number | null;
  scope: 'messages' | 'media';
}

/** How long the account keeps messages and files (getRetention / updateRetention); empty: forever. */
export function RetentionPage() {
  const { t } = useI18n();
  const current = useLoad(() => get<Retention>('/api/retention'), 'retention');
  return (
    <>
      <PageHeader title={t('retention.title')} />
      <LoadState
        loading={current.loading && !current.data}
        error={current.error}
        onRetry={() => void current.reload()}
      />
      {/* The form shows once the saved values are in: a choice made earlier would be overwritten by them. */}
      {current.data && <RetentionForm initial={current.data} />}
    </>
  );
}

function RetentionForm(props: { initial: Retention }) {
  const { t } = useI18n();
  const [days, setDays] = useState(props.initial.days === null ? '' : String(props.initial.days));
  const [scope, setScope] = useState<Retention['scope']>(props.initial.scope);
  const [saved, setSaved] = useState(false);
  const submit = useSubmit(['days', 'scope']);
  return (
    <>
      <form
        className="adm-form"
        data-testid="retention-form"
        onSubmit={(e) => {
          e.preventDefault();
          setSaved(false);
          void submit
            .run(async () => {
              await put('/api/retention', { days: days.trim() === '' ? null : Number(days), scope });
            })
            .then((ok) => setSaved(ok));
        }}
      >
        <p className="muted">{t('retention.intro')}</p>
        <FormErrors messages={[...submit.errors.rest, ...Object.values(submit.errors.byField).flat()]} />
        <label className="field">
          <span>{t('retention.days')}</span>
          <input type="number" min={1} max={36500} value={days} onChange={(e) => setDays(e.target.value)} />
        </label>
        <label className="field">
          <span>{t('retention.scope')}</span>
          <select value={scope} onChange={(e) => setScope(e.target.value === 'media' ? 'media' : 'messages')}>
            <option value="messages">{t('retention.messages')}</option>
            <option value="media">{t('retention.media')}</option>
          </select>
        </label>
        <button type="submit" className="btn primary" disabled={submit.pending}>
          {t('common.save')}
        </button>
        {saved && <span role="status">{t('retention.saved')}</span>}
      </form>
    </>
  );
}

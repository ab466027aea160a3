import { useState } from 'react';
import { post } from '../api';
import { ConfirmDialog } from '../admin/form-dialog';
import { useI18n } from '../i18n';

/**
 * The person's rights (LGPD), for admins on the contact page: the export is a plain link (the session
 * cookie authorises the download, streamed by the browser); the erasure asks first.
 */
export function DataProtectionActions(props: { id: string; onErased: () => void }) {
  const { t } = useI18n();
  const [confirming, setConfirming] = useState(false);
  const [queued, setQueued] = useState(false);
  return (
    <>
      <a className="btn" href={`/api/contacts/${props.id}/export`} download>
        {t('privacy.export')}
      </a>
      <button type="button" className="btn danger" onClick={() => setConfirming(true)} disabled={queued}>
        {t('privacy.erase')}
      </button>
      {queued && (
        <span role="status" className="muted">
          {t('privacy.erasing')}
        </span>
      )}
      {confirming && (
        <ConfirmDialog
          title={t('privacy.erase')}
          message={t('privacy.eraseConfirm')}
          confirmLabel={t('privacy.eraseDo')}
          danger
          onClose={() => setConfirming(false)}
          onConfirm={async () => {
            await post(`/api/contacts/${props.id}/erase`, { confirm: 'ERASE' });
            setQueued(true);
            props.onErased();
          }}
        />
      )}
    </>
  );
}

import { useState, type FormEvent } from 'react';
import { ApiError, post } from '../api';
import { Dialog } from '../components';
import { useI18n } from '../i18n';
import { useDirectory, useMe } from '../session';
import type { Chat } from '../models';

/** Transfer a conversation to a team (its waiting queue) or straight to an agent, with a reason. */
export function TransferDialog(props: { chat: Chat; onClose: () => void; onDone: (chat: Chat) => void }) {
  const { t } = useI18n();
  const { me } = useMe();
  const { teams, users } = useDirectory();
  const { chat } = props;
  const [target, setTarget] = useState<'team' | 'user'>('team');
  const activeTeams = teams.filter((x) => x.status === 'active');
  const agents = users.filter((u) => u.status !== 'cancelled' && u.id !== chat.userId);
  const [teamId, setTeamId] = useState(activeTeams.find((x) => x.id !== chat.teamId)?.id ?? '');
  const [userId, setUserId] = useState(agents.find((u) => u.id !== me.user.id)?.id ?? '');
  const [reasonCode, setReasonCode] = useState('');
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body = {
        ...(target === 'team' ? { teamId } : { userId }),
        ...(reasonCode.trim() ? { reasonCode: reasonCode.trim() } : {}),
        ...(reason.trim() ? { reason: reason.trim() } : {}),
      };
      props.onDone(await post<Chat>(`/api/chats/${chat.id}/transfer`, body));
    } catch (err) {
      setError(err instanceof ApiError && err.status !== 0 ? err.message : t('common.error'));
      setBusy(false);
    }
  };

  return (
    <Dialog title={t('transfer.title')} onClose={props.onClose} labelId="transfer-title">
      <form onSubmit={(e) => void submit(e)}>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <fieldset className="radio-row">
          <legend className="sr-only">{t('transfer.title')}</legend>
          <label>
            <input
              type="radio"
              name="target"
              checked={target === 'team'}
              onChange={() => setTarget('team')}
            />
            {t('transfer.toTeam')}
          </label>
          <label>
            <input
              type="radio"
              name="target"
              checked={target === 'user'}
              onChange={() => setTarget('user')}
            />
            {t('transfer.toUser')}
          </label>
        </fieldset>
        {target === 'team' ? (
          <label className="field">
            <span>{t('transfer.team')}</span>
            <select value={teamId} onChange={(e) => setTeamId(e.target.value)} required>
              <option value="" disabled>
                {t('transfer.pickTeam')}
              </option>
              {activeTeams.map((x) => (
                <option key={x.id} value={x.id}>
                  {x.name}
                </option>
              ))}
            </select>
          </label>
        ) : (
          <label className="field">
            <span>{t('transfer.user')}</span>
            <select value={userId} onChange={(e) => setUserId(e.target.value)} required>
              <option value="" disabled>
                {t('transfer.pickUser')}
              </option>
              {agents.map((u) => (
                <option key={u.id} value={u.id}>
                  {u.id === me.user.id ? `${u.name} (${t('chat.you')})` : u.name}
                </option>
              ))}
            </select>
          </label>
        )}
        <label className="field">
          <span>{t('transfer.reasonCode')}</span>
          <input
            type="text"
            value={reasonCode}
            maxLength={64}
            onChange={(e) => setReasonCode(e.target.value)}
          />
        </label>
        <label className="field">
          <span>{t('transfer.reason')}</span>
          <textarea rows={3} value={reason} maxLength={1000} onChange={(e) => setReason(e.target.value)} />
        </label>
        <div className="dialog-actions">
          <button type="button" className="btn" onClick={props.onClose}>
            {t('common.cancel')}
          </button>
          <button
            type="submit"
            className="btn primary"
            disabled={busy || (target === 'team' ? !teamId : !userId)}
          >
            {t('transfer.submit')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

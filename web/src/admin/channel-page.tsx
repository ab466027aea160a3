import { useState } from 'react';
import { get, patch } from '../api';
import { useI18n } from '../i18n';
import { Link } from '../router';
import { useDirectory } from '../session';
import type { Channel, Team } from '../models';
import { ChannelApiTab } from './channel-api';
import {
  FIELDS,
  providerLabel,
  ReadReceiptsField,
  SECRETS,
  teamOptions,
  WhatsAppFields,
  type Secret,
} from './channel-fields';
import { CopyField, FormErrors, SelectField, TextField } from './fields';
import { LoadState, PageHeader } from './list-page';
import { onForm, useList, useLoad, useSubmit } from './load';

/** One channel: the general settings, or the API tab. */
export function ChannelPage(props: { id: string; tab: 'general' | 'api' }) {
  const { t } = useI18n();
  const channel = useLoad(() => get<Channel>(`/api/channels/${props.id}`), props.id);
  const teams = useList<Team>('/api/teams');
  const c = channel.data;
  const base = `/admin/channels/${props.id}`;

  return (
    <>
      <PageHeader
        title={c ? t('channels.settings', { name: c.name }) : t('channels.title')}
        back={
          <Link href="/admin/channels" className="adm-back">
            ← {t('channels.back')}
          </Link>
        }
      >
        {c?.provider === 'sandbox' && (
          <Link href="/simulator" className="btn">
            {t('channels.simulate')}
          </Link>
        )}
      </PageHeader>
      <LoadState
        loading={channel.loading && !c}
        error={channel.error}
        onRetry={() => void channel.reload()}
      />
      {c && (
        <>
          <nav className="adm-tabs" aria-label={t('channels.tabs')}>
            <Link href={base} aria-current={props.tab === 'general' ? 'page' : undefined}>
              {t('channels.general')}
            </Link>
            <Link href={`${base}/api`} aria-current={props.tab === 'api' ? 'page' : undefined}>
              {t('channels.apiTab')}
            </Link>
          </nav>
          {props.tab === 'general' ? (
            <GeneralTab
              key={c.id}
              channel={c}
              teams={teams.data ?? []}
              onSaved={(x) => channel.setData(() => x)}
            />
          ) : (
            <ChannelApiTab channel={c} onChanged={(x) => channel.setData(() => x)} />
          )}
        </>
      )}
    </>
  );
}

function GeneralTab(props: { channel: Channel; teams: Team[]; onSaved: (c: Channel) => void }) {
  const { t } = useI18n();
  const { reloadDirectory } = useDirectory();
  const c = props.channel;
  const [name, setName] = useState(c.name);
  const [defaultTeamId, setTeam] = useState(c.defaultTeamId);
  const [queue, setQueue] = useState(c.queue);
  const [sendReadReceipts, setReadReceipts] = useState(c.sendReadReceipts);
  const [phoneNumberId, setPhone] = useState(c.providerConfig.phoneNumberId ?? '');
  const [businessAccountId, setBusinessAccountId] = useState(c.providerConfig.businessAccountId ?? '');
  const [secrets, setSecrets] = useState<Record<Secret, string>>({
    accessToken: '',
    appSecret: '',
    verifyToken: '',
  });
  const [done, setDone] = useState(false);
  const submit = useSubmit(FIELDS);
  const { byField, rest } = submit.errors;

  const save = () =>
    submit.run(async () => {
      setDone(false);
      const body: Record<string, unknown> = {};
      if (name.trim() !== c.name) body.name = name.trim();
      if (defaultTeamId !== c.defaultTeamId) body.defaultTeamId = defaultTeamId;
      if (queue.trim() !== c.queue) body.queue = queue.trim();
      if (sendReadReceipts !== c.sendReadReceipts) body.sendReadReceipts = sendReadReceipts;
      if (c.provider === 'whatsapp-cloud') {
        // Only the settings typed in: the server keeps the others (secrets are never sent back to us).
        const config: Record<string, string> = {};
        if (phoneNumberId.trim() !== (c.providerConfig.phoneNumberId ?? ''))
          config.phoneNumberId = phoneNumberId.trim();
        if (
          businessAccountId.trim() &&
          businessAccountId.trim() !== (c.providerConfig.businessAccountId ?? '')
        )
          config.businessAccountId = businessAccountId.trim();
        for (const k of SECRETS) if (secrets[k] !== '') config[k] = secrets[k];
        if (Object.keys(config).length > 0) body.providerConfig = config;
      }
      if (Object.keys(body).length > 0) {
        props.onSaved(await patch<Channel>(`/api/channels/${c.id}`, body));
        setSecrets({ accessToken: '', appSecret: '', verifyToken: '' });
        void reloadDirectory();
      }
      setDone(true);
    });

  return (
    <form className="card adm-card adm-form" noValidate onSubmit={onForm(save)}>
      {c.health === 'unhealthy' && <UnhealthyNotice channel={c} />}
      <FormErrors messages={rest} />
      <div className="adm-row">
        <TextField
          label={t('common.name')}
          name="name"
          value={name}
          onChange={setName}
          errors={byField.name}
        />
        <div className="field adm-field">
          <span className="adm-label">{t('channels.provider')}</span>
          <div className="adm-static">{providerLabel(t, c.provider)}</div>
        </div>
      </div>
      <div className="adm-row">
        <SelectField
          label={t('channels.defaultTeam')}
          name="defaultTeamId"
          value={defaultTeamId}
          onChange={setTeam}
          options={teamOptions(props.teams, c.defaultTeamId)}
          errors={byField.defaultTeamId}
        />
        <TextField
          label={t('channels.queue')}
          name="queue"
          value={queue}
          onChange={setQueue}
          hint={t('channels.queueHint')}
          errors={byField.queue}
        />
      </div>
      <ReadReceiptsField
        checked={sendReadReceipts}
        onChange={setReadReceipts}
        errors={byField.sendReadReceipts}
      />
      {c.provider === 'whatsapp-cloud' && (
        <>
          <WhatsAppFields
            phoneNumberId={phoneNumberId}
            setPhone={setPhone}
            businessAccountId={businessAccountId}
            setBusinessAccountId={setBusinessAccountId}
            secrets={secrets}
            setSecret={(k, v) => setSecrets((s) => ({ ...s, [k]: v }))}
            errors={byField.providerConfig ?? []}
            set={c.providerConfig}
          />
          <CopyField
            label={t('channels.webhookUrl')}
            value={`${location.origin}/webhooks/whatsapp/${c.id}`}
          />
        </>
      )}
      <CopyField label={t('channels.channelId')} value={c.id} />
      <div className="adm-actions">
        <span role="status" className="muted">
          {done ? t('channels.saved') : ''}
        </span>
        <button type="submit" className="btn primary" disabled={submit.pending}>
          {t('common.save')}
        </button>
      </div>
    </form>
  );
}

/** The provider refused the channel's token: what it means and what the admin does about it. */
function UnhealthyNotice(props: { channel: Channel }) {
  const { t, time } = useI18n();
  const reason = props.channel.healthReason;
  return (
    <div className="error" role="alert" data-testid="channel-unhealthy">
      <strong>{t('channels.unhealthyTitle')}</strong>
      <p>{t('channels.unhealthyHelp', { since: time(props.channel.unhealthySince) })}</p>
      {reason && (
        <p>
          {t('channels.unhealthyReason', {
            reason: `${reason.code} — ${reason.message}${reason.details ? ` (${reason.details})` : ''}`,
          })}
        </p>
      )}
    </div>
  );
}

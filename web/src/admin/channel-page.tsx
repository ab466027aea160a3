import { useState } from 'react';
import { get, patch } from '../api';
import { useI18n } from '../i18n';
import { Link } from '../router';
import { useDirectory } from '../session';
import type { Channel, Team } from '../models';
import { ChannelApiTab } from './channel-api';
import { ChannelBotTab } from './channel-bot';
import { ChannelFlowTab } from './channel-flow';
import {
  FIELDS,
  providerLabel,
  ReadReceiptsField,
  SECRETS,
  TeamAndQueue,
  teamOptions,
  useWhatsAppConfig,
  WhatsAppFields,
} from './channel-fields';
import { CopyField, FormErrors, TextField } from './fields';
import { LoadState, PageHeader } from './list-page';
import { onForm, useList, useLoad, useSubmit } from './load';

/** One channel: the general settings, or the API tab. */
export function ChannelPage(props: { id: string; tab: 'general' | 'api' | 'flow' | 'bot' }) {
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
            <Link href={`${base}/flow`} aria-current={props.tab === 'flow' ? 'page' : undefined}>
              {t('channels.flowTab')}
            </Link>
            <Link href={`${base}/api`} aria-current={props.tab === 'api' ? 'page' : undefined}>
              {t('channels.apiTab')}
            </Link>
            <Link href={`${base}/bot`} aria-current={props.tab === 'bot' ? 'page' : undefined}>
              {t('channels.botTab')}
            </Link>
          </nav>
          {props.tab === 'general' ? (
            <GeneralTab
              key={c.id}
              channel={c}
              teams={teams.data ?? []}
              onSaved={(x) => channel.setData(() => x)}
            />
          ) : props.tab === 'bot' ? (
            <ChannelBotTab key={c.id} channel={c} onSaved={(x) => channel.setData(() => x)} />
          ) : props.tab === 'flow' ? (
            <ChannelFlowTab key={c.id} channel={c} teams={teams.data ?? []} />
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
  const whatsapp = useWhatsAppConfig(c.providerConfig);
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
        const phoneNumberId = whatsapp.phoneNumberId.trim();
        const businessAccountId = whatsapp.businessAccountId.trim();
        if (phoneNumberId !== (c.providerConfig.phoneNumberId ?? '')) config.phoneNumberId = phoneNumberId;
        if (businessAccountId && businessAccountId !== (c.providerConfig.businessAccountId ?? ''))
          config.businessAccountId = businessAccountId;
        for (const k of SECRETS) if (whatsapp.secrets[k] !== '') config[k] = whatsapp.secrets[k];
        if (Object.keys(config).length > 0) body.providerConfig = config;
      }
      if (Object.keys(body).length > 0) {
        props.onSaved(await patch<Channel>(`/api/channels/${c.id}`, body));
        whatsapp.clearSecrets();
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
      <TeamAndQueue
        teamId={defaultTeamId}
        setTeamId={setTeam}
        queue={queue}
        setQueue={setQueue}
        options={teamOptions(props.teams, c.defaultTeamId)}
        errors={byField}
      />
      <ReadReceiptsField
        checked={sendReadReceipts}
        onChange={setReadReceipts}
        errors={byField.sendReadReceipts}
      />
      {c.provider === 'whatsapp-cloud' && (
        <>
          <WhatsAppFields config={whatsapp} errors={byField.providerConfig ?? []} set={c.providerConfig} />
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

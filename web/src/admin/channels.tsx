import { useState } from 'react';
import { get, patch, post } from '../api';
import { Dialog } from '../components';
import { useI18n, type Translate } from '../i18n';
import { Link } from '../router';
import { useDirectory } from '../session';
import type { Channel, Team } from '../models';
import { ChannelApiTab } from './channel-api';
import {
  Badge,
  CopyField,
  DataTable,
  FormErrors,
  LoadState,
  onForm,
  PageHeader,
  SelectField,
  TextField,
  useLoad,
  useSubmit,
  type Column,
} from './common';

const PROVIDERS = ['sandbox', 'whatsapp-cloud'] as const;
const DEFAULT_QUEUE = 'Espera';
const SECRETS = ['accessToken', 'appSecret', 'verifyToken'] as const;
type Secret = (typeof SECRETS)[number];
const SECRET_LABEL = {
  accessToken: 'channels.accessToken',
  appSecret: 'channels.appSecret',
  verifyToken: 'channels.verifyToken',
} as const;
const SECRET_SET = {
  accessToken: 'accessTokenSet',
  appSecret: 'appSecretSet',
  verifyToken: 'verifyTokenSet',
} as const;
const FIELDS = [
  'name',
  'provider',
  'defaultTeamId',
  'queue',
  'apiEnabled',
  'providerConfig',
  'sendReadReceipts',
];

export function providerLabel(t: Translate, provider: string): string {
  if (provider === 'sandbox') return t('channels.sandbox');
  if (provider === 'whatsapp-cloud') return t('channels.whatsapp');
  return provider;
}

/** Channels: list and create; each channel opens on its own page (general settings and API tab). */
export function ChannelsPage() {
  const { t } = useI18n();
  const { reloadDirectory } = useDirectory();
  const channels = useLoad(() => get<Channel[]>('/api/channels'), 'channels');
  const teams = useLoad(() => get<Team[]>('/api/teams'), 'teams');
  const [creating, setCreating] = useState(false);
  const teamName = (id: string) => teams.data?.find((x) => x.id === id)?.name ?? id;

  const columns: Column<Channel>[] = [
    {
      key: 'name',
      label: t('common.name'),
      render: (c) => (
        <Link href={`/admin/channels/${c.id}`} className="adm-link">
          <strong>{c.name}</strong>
        </Link>
      ),
    },
    { key: 'provider', label: t('channels.provider'), render: (c) => providerLabel(t, c.provider) },
    { key: 'team', label: t('channels.defaultTeam'), render: (c) => teamName(c.defaultTeamId) },
    { key: 'queue', label: t('channels.queue'), render: (c) => c.queue },
    {
      key: 'health',
      label: t('channels.health'),
      render: (c) => (
        <Badge tone={c.health === 'ok' ? 'ok' : 'bad'}>
          {c.health === 'ok' ? t('channels.healthOk') : t('channels.unhealthy')}
        </Badge>
      ),
    },
    {
      key: 'api',
      label: t('channels.apiTab'),
      render: (c) => (
        <Badge tone={c.apiEnabled ? 'ok' : 'neutral'}>
          {c.apiEnabled ? t('channels.apiOn') : t('channels.apiOff')}
        </Badge>
      ),
    },
    {
      key: 'actions',
      label: t('common.actions'),
      className: 'adm-cell-actions',
      render: (c) => (
        <div className="adm-row-actions">
          <Link
            href={`/admin/channels/${c.id}`}
            className="btn small"
            aria-label={`${t('channels.open')}: ${c.name}`}
          >
            {t('channels.open')}
          </Link>
          <Link
            href={`/admin/channels/${c.id}/api`}
            className="btn small"
            aria-label={`${t('channels.apiTab')}: ${c.name}`}
          >
            {t('channels.apiTab')}
          </Link>
        </div>
      ),
    },
  ];

  return (
    <>
      <PageHeader title={t('channels.title')}>
        <button type="button" className="btn primary" onClick={() => setCreating(true)}>
          {t('channels.new')}
        </button>
      </PageHeader>
      <LoadState
        loading={channels.loading && !channels.data}
        error={channels.error}
        onRetry={() => void channels.reload()}
      />
      {channels.data && (
        <DataTable
          caption={t('channels.title')}
          columns={columns}
          rows={channels.data}
          rowKey={(c) => c.id}
          empty={t('channels.empty')}
          testId="channels-table"
        />
      )}
      {creating && (
        <CreateChannelDialog
          teams={teams.data ?? []}
          onClose={() => setCreating(false)}
          onSaved={(c) => {
            channels.setData((prev) => [...(prev ?? []), c]);
            void reloadDirectory();
          }}
        />
      )}
    </>
  );
}

function teamOptions(teams: Team[], current?: string) {
  return teams
    .filter((x) => x.status === 'active' || x.id === current)
    .map((x) => ({ value: x.id, label: x.name }));
}

function CreateChannelDialog(props: { teams: Team[]; onClose: () => void; onSaved: (c: Channel) => void }) {
  const { t } = useI18n();
  const options = teamOptions(props.teams);
  const [name, setName] = useState('');
  const [provider, setProvider] = useState<string>('sandbox');
  const [team, setTeam] = useState('');
  // The teams may arrive after the dialog opened: the first one until another is picked.
  const defaultTeamId = team || (options[0]?.value ?? '');
  const [queue, setQueue] = useState(DEFAULT_QUEUE);
  const [apiEnabled, setApiEnabled] = useState(false);
  const [sendReadReceipts, setReadReceipts] = useState(false);
  const [phoneNumberId, setPhone] = useState('');
  const [businessAccountId, setBusinessAccountId] = useState('');
  const [secrets, setSecrets] = useState<Record<Secret, string>>({
    accessToken: '',
    appSecret: '',
    verifyToken: '',
  });
  const submit = useSubmit(FIELDS);
  const { byField, rest } = submit.errors;

  const save = () =>
    submit.run(async () => {
      const body: Record<string, unknown> = {
        name: name.trim(),
        provider,
        defaultTeamId,
        queue: queue.trim(),
        apiEnabled,
        sendReadReceipts,
      };
      if (provider === 'whatsapp-cloud')
        body.providerConfig = {
          phoneNumberId: phoneNumberId.trim(),
          ...secrets,
          ...(businessAccountId.trim() ? { businessAccountId: businessAccountId.trim() } : {}),
        };
      const channel = await post<Channel>('/api/channels', body);
      props.onSaved(channel);
      props.onClose();
    });

  return (
    <Dialog title={t('channels.new')} onClose={props.onClose}>
      <form className="adm-dialog-body" noValidate onSubmit={onForm(save)}>
        {options.length === 0 && <p className="notice">{t('channels.needTeam')}</p>}
        <FormErrors messages={rest} />
        <TextField
          label={t('common.name')}
          name="name"
          value={name}
          onChange={setName}
          autoFocus
          errors={byField.name}
        />
        <fieldset className="adm-radios">
          <legend>{t('channels.provider')}</legend>
          {PROVIDERS.map((p) => (
            <label key={p} className="adm-check">
              <input
                type="radio"
                name="provider"
                value={p}
                checked={provider === p}
                onChange={() => setProvider(p)}
              />
              <span>{providerLabel(t, p)}</span>
            </label>
          ))}
          {byField.provider && <small className="adm-field-error">{byField.provider.join('. ')}</small>}
        </fieldset>
        <div className="adm-row">
          <SelectField
            label={t('channels.defaultTeam')}
            name="defaultTeamId"
            value={defaultTeamId}
            onChange={setTeam}
            options={options}
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
        <label className="adm-check">
          <input
            type="checkbox"
            name="apiEnabled"
            checked={apiEnabled}
            onChange={(e) => setApiEnabled(e.target.checked)}
          />
          <span>{t('channels.api.enabled')}</span>
        </label>
        <ReadReceiptsField
          checked={sendReadReceipts}
          onChange={setReadReceipts}
          errors={byField.sendReadReceipts}
        />
        {provider === 'whatsapp-cloud' && (
          <WhatsAppFields
            phoneNumberId={phoneNumberId}
            setPhone={setPhone}
            businessAccountId={businessAccountId}
            setBusinessAccountId={setBusinessAccountId}
            secrets={secrets}
            setSecret={(k, v) => setSecrets((s) => ({ ...s, [k]: v }))}
            errors={byField.providerConfig ?? []}
          />
        )}
        <div className="adm-actions">
          <button type="button" className="btn" onClick={props.onClose}>
            {t('common.cancel')}
          </button>
          <button type="submit" className="btn primary" disabled={submit.pending}>
            {t('common.create')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** The four WhatsApp Cloud settings; the three secrets are write-only (`set` says which are stored). */
function WhatsAppFields(props: {
  phoneNumberId: string;
  setPhone: (v: string) => void;
  /** Optional: where the channel's approved templates are listed for agents. */
  businessAccountId: string;
  setBusinessAccountId: (v: string) => void;
  secrets: Record<Secret, string>;
  setSecret: (k: Secret, v: string) => void;
  errors: string[];
  set?: Channel['providerConfig'];
}) {
  const { t } = useI18n();
  const about = (field: string) => props.errors.filter((e) => e.startsWith(`providerConfig.${field}`));
  const others = props.errors.filter((e) => !/^providerConfig\.\w+/.test(e));
  const isSet = (k: Secret) => props.set?.[SECRET_SET[k]] === true;
  return (
    <fieldset className="adm-group">
      <legend>{t('channels.whatsappConfig')}</legend>
      {props.set && <small className="adm-hint">{t('channels.secretWriteOnly')}</small>}
      <FormErrors messages={others} />
      <TextField
        label={t('channels.phoneNumberId')}
        name="phoneNumberId"
        inputMode="numeric"
        autoComplete="off"
        value={props.phoneNumberId}
        onChange={props.setPhone}
        errors={about('phoneNumberId')}
      />
      <TextField
        label={t('channels.businessAccountId')}
        name="businessAccountId"
        inputMode="numeric"
        autoComplete="off"
        value={props.businessAccountId}
        onChange={props.setBusinessAccountId}
        hint={t('channels.businessAccountIdHint')}
        errors={about('businessAccountId')}
      />
      {SECRETS.map((k) => (
        <TextField
          key={k}
          label={t(SECRET_LABEL[k])}
          name={k}
          type="password"
          autoComplete="new-password"
          value={props.secrets[k]}
          onChange={(v) => props.setSecret(k, v)}
          placeholder={
            props.set ? (isSet(k) ? `•••• ${t('channels.secretSet')}` : t('channels.notSet')) : undefined
          }
          errors={about(k)}
        />
      ))}
    </fieldset>
  );
}

/** One channel: the general settings, or the API tab. */
export function ChannelPage(props: { id: string; tab: 'general' | 'api' }) {
  const { t } = useI18n();
  const channel = useLoad(() => get<Channel>(`/api/channels/${props.id}`), props.id);
  const teams = useLoad(() => get<Team[]>('/api/teams'), 'teams');
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

/** Whether an agent reading a chat sends the customer a read receipt (WhatsApp's blue ticks). */
function ReadReceiptsField(props: { checked: boolean; onChange: (v: boolean) => void; errors?: string[] }) {
  const { t } = useI18n();
  return (
    <div>
      <label className="adm-check">
        <input
          type="checkbox"
          name="sendReadReceipts"
          checked={props.checked}
          onChange={(e) => props.onChange(e.target.checked)}
          aria-describedby="read-receipts-hint"
        />
        <span>{t('channels.readReceipts')}</span>
      </label>
      <small id="read-receipts-hint" className="adm-hint">
        {t('channels.readReceiptsHint')}
      </small>
      {props.errors && <small className="adm-field-error">{props.errors.join('. ')}</small>}
    </div>
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

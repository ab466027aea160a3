import { useState } from 'react';
import { useI18n, type Translate } from '../i18n';
import type { Channel, Team } from '../models';
import { FormErrors, SelectField, TextField } from './fields';

// What the channel screens (a new channel's dialog, a channel's settings) share: the providers, the
// team and queue new conversations go to, the read-receipts switch, and the WhatsApp Cloud settings
// (the secrets write-only).

export const PROVIDERS = ['sandbox', 'whatsapp-cloud'] as const;
export const DEFAULT_QUEUE = 'Espera';
export const SECRETS = ['accessToken', 'appSecret', 'verifyToken'] as const;
export type Secret = (typeof SECRETS)[number];
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
/** The fields a channel's API messages may name. */
export const FIELDS = [
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

/** The active teams, and the channel's own even when inactive. */
export function teamOptions(teams: Team[], current?: string) {
  return teams
    .filter((x) => x.status === 'active' || x.id === current)
    .map((x) => ({ value: x.id, label: x.name }));
}

const NO_SECRETS: Record<Secret, string> = { accessToken: '', appSecret: '', verifyToken: '' };

/** The WhatsApp Cloud settings being typed: the two ids (from what is stored), the secrets blank. */
export function useWhatsAppConfig(stored?: Channel['providerConfig']) {
  const [phoneNumberId, setPhone] = useState(stored?.phoneNumberId ?? '');
  const [businessAccountId, setBusinessAccountId] = useState(stored?.businessAccountId ?? '');
  const [secrets, setSecrets] = useState(NO_SECRETS);
  return {
    phoneNumberId,
    setPhone,
    businessAccountId,
    setBusinessAccountId,
    secrets,
    setSecret: (k: Secret, v: string) => setSecrets((s) => ({ ...s, [k]: v })),
    clearSecrets: () => setSecrets(NO_SECRETS),
  };
}
export type WhatsAppConfig = ReturnType<typeof useWhatsAppConfig>;

/**
 * The four WhatsApp Cloud settings (the business account id optional: where the channel's approved
 * templates are listed for agents); the three secrets are write-only (`set` says which are stored).
 */
export function WhatsAppFields(props: {
  config: WhatsAppConfig;
  errors: string[];
  set?: Channel['providerConfig'];
}) {
  const { t } = useI18n();
  const { config } = props;
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
        value={config.phoneNumberId}
        onChange={config.setPhone}
        errors={about('phoneNumberId')}
      />
      <TextField
        label={t('channels.businessAccountId')}
        name="businessAccountId"
        inputMode="numeric"
        autoComplete="off"
        value={config.businessAccountId}
        onChange={config.setBusinessAccountId}
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
          value={config.secrets[k]}
          onChange={(v) => config.setSecret(k, v)}
          placeholder={
            props.set ? (isSet(k) ? `•••• ${t('channels.secretSet')}` : t('channels.notSet')) : undefined
          }
          errors={about(k)}
        />
      ))}
    </fieldset>
  );
}

/** The team whose queue a channel's new conversations enter, and that queue, side by side. */
export function TeamAndQueue(props: {
  teamId: string;
  setTeamId: (v: string) => void;
  queue: string;
  setQueue: (v: string) => void;
  options: { value: string; label: string }[];
  errors: Record<string, string[]>;
}) {
  const { t } = useI18n();
  return (
    <div className="adm-row">
      <SelectField
        label={t('channels.defaultTeam')}
        name="defaultTeamId"
        value={props.teamId}
        onChange={props.setTeamId}
        options={props.options}
        errors={props.errors.defaultTeamId}
      />
      <TextField
        label={t('channels.queue')}
        name="queue"
        value={props.queue}
        onChange={props.setQueue}
        hint={t('channels.queueHint')}
        errors={props.errors.queue}
      />
    </div>
  );
}

/** Whether an agent reading a chat sends the customer a read receipt (WhatsApp's blue ticks). */
export function ReadReceiptsField(props: {
  checked: boolean;
  onChange: (v: boolean) => void;
  errors?: string[];
}) {
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

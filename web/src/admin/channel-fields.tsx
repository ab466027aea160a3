import { useI18n, type Translate } from '../i18n';
import type { Channel, Team } from '../models';
import { FormErrors, TextField } from './fields';

// What the channel screens share: the providers and the WhatsApp Cloud settings (the secrets
// write-only), the teams a channel may answer with, and the read-receipts switch.

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

/** The four WhatsApp Cloud settings; the three secrets are write-only (`set` says which are stored). */
export function WhatsAppFields(props: {
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

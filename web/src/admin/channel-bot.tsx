import { useId, useState } from 'react';
import { put } from '../api';
import { useI18n } from '../i18n';
import { Link } from '../router';
import type { Bot, Channel, ChannelBotBody } from '../models';
import { DEFAULT_WEEKLY, type Interval, WeeklyFields } from './business-hours';
import { FormErrors, SelectField, TextField } from './fields';
import { onForm, useList, useSubmit } from './load';

// A channel's bot (updateChannelBot): which bot takes its new conversations, at any time or only at
// the hours given (business hours' rules, in a time zone). The server checks the hours: its messages
// show under the days they name.

export function ChannelBotTab(props: { channel: Channel; onSaved: (c: Channel) => void }) {
  const { t } = useI18n();
  const c = props.channel;
  const bots = useList<Bot>('/api/bots');
  const [botId, setBotId] = useState(c.botId ?? '');
  const [limited, setLimited] = useState(c.botHours !== null);
  const [timeZone, setTimeZone] = useState(c.botHours?.timeZone ?? 'America/Sao_Paulo');
  const [weekly, setWeekly] = useState<Interval[][]>(c.botHours?.weekly ?? DEFAULT_WEEKLY());
  const [saved, setSaved] = useState(false);
  const submit = useSubmit(['botId', 'hours']);
  const { byField } = submit.errors;
  const whenId = useId();

  const save = () =>
    submit.run(async () => {
      setSaved(false);
      const body: ChannelBotBody = {
        botId: botId === '' ? null : botId,
        hours:
          botId !== '' && limited
            ? { timeZone: timeZone.trim(), weekly, holidays: c.botHours?.holidays ?? [] }
            : null,
      };
      props.onSaved(await put<Channel>(`/api/channels/${c.id}/bot`, body));
      setSaved(true);
    });

  const hoursErrors = byField.hours ?? [];
  return (
    <form className="adm-form" noValidate onSubmit={onForm(save)} data-testid="channel-bot">
      <p className="adm-note">{t('channelBot.intro')}</p>
      <FormErrors messages={submit.errors.rest} />
      <SelectField
        label={t('channelBot.bot')}
        name="botId"
        value={botId}
        onChange={setBotId}
        options={[
          { value: '', label: t('channelBot.none') },
          ...(bots.data ?? []).map((b) => ({ value: b.id, label: b.name })),
        ]}
        hint={
          <>
            {t('channelBot.botHint')} <Link href="/admin/bots">{t('nav.bots')}</Link>
          </>
        }
        errors={byField.botId}
      />
      {botId !== '' && (
        <fieldset className="adm-group" aria-describedby={whenId}>
          <legend>{t('channelBot.when')}</legend>
          <small id={whenId} className="adm-hint">
            {t('channelBot.whenHint')}
          </small>
          <label className="adm-check">
            <input type="radio" name="when" checked={!limited} onChange={() => setLimited(false)} />
            <span>{t('channelBot.always')}</span>
          </label>
          <label className="adm-check">
            <input type="radio" name="when" checked={limited} onChange={() => setLimited(true)} />
            <span>{t('channelBot.hours')}</span>
          </label>
          {limited && (
            <>
              <TextField
                label={t('hours.timeZone')}
                name="timeZone"
                value={timeZone}
                onChange={setTimeZone}
                autoComplete="off"
                errors={hoursErrors.filter((m) => m.startsWith('hours.timeZone'))}
              />
              <WeeklyFields
                weekly={weekly}
                onChange={setWeekly}
                prefix="hours.weekly"
                errors={hoursErrors.filter((m) => m.startsWith('hours.weekly'))}
              />
            </>
          )}
        </fieldset>
      )}
      <div className="adm-actions">
        <button type="submit" className="btn primary" disabled={submit.pending}>
          {t('common.save')}
        </button>
        {saved && (
          <span role="status" className="muted">
            {t('channelBot.saved')}
          </span>
        )}
      </div>
    </form>
  );
}

import { useEffect, useState } from 'react';
import { get, put } from '../api';
import { useI18n } from '../i18n';
import { useGateway } from '../session';
import type { Channel, ChannelFlow, ChannelFlowBody, Team } from '../models';
import { FieldErrors, FormErrors, SelectField, TextField } from './fields';
import { LoadState } from './list-page';
import { TextArea } from './text-area';
import { CsatFields } from './channel-flow-csat';
import { onForm, useLoad, useSubmit } from './load';

// A channel's built-in flow (getChannelFlow, updateChannelFlow): greeting, numbered menu of teams,
// re-prompt and timeout, out-of-hours and away messages, auto-close, and the CSAT question. The server
// validates; its messages show under the part they name. Another admin's change (`channel.flow`)
// replaces the form.

const MAX_OPTIONS = 10;
const FIELDS = ['enabled', 'greeting', 'menu', 'outOfHoursMessage', 'awayMessage', 'autoClose', 'csat'];

/** A number typed in, or the text as typed so that the server says what is wrong with it. */
const num = (s: string): number => (/^\s*\d+\s*$/.test(s) ? Number(s) : (s as unknown as number));
const orNull = (s: string) => (s.trim() === '' ? null : s);

/** The form's state: every text as typed. */
export interface Form {
  enabled: boolean;
  greeting: string;
  prompt: string;
  options: { label: string; teamId: string }[];
  interactive: boolean;
  listButton: string;
  invalidReply: string;
  maxAttempts: string;
  timeoutMinutes: string;
  outOfHoursMessage: string;
  awayMessage: string;
  autoClose: boolean;
  autoCloseHours: string;
  autoCloseMessage: string;
  csat: boolean;
  csatQuestion: string;
  csatThanks: string;
  csatInvalid: string;
  csatWindowHours: string;
  /** The five rating labels, one per line; blank: the platform's. */
  csatLabels: string;
  csatListButton: string;
}

function formOf(f: ChannelFlow): Form {
  return {
    enabled: f.enabled,
    greeting: f.greeting ?? '',
    prompt: f.menu.prompt,
    options: f.menu.options.map((o) => ({ ...o })),
    interactive: f.menu.interactive,
    listButton: f.menu.listButton ?? '',
    invalidReply: f.menu.invalidReply,
    maxAttempts: String(f.menu.maxAttempts),
    timeoutMinutes: String(f.menu.timeoutMinutes),
    outOfHoursMessage: f.outOfHoursMessage ?? '',
    awayMessage: f.awayMessage ?? '',
    autoClose: f.autoClose !== null,
    autoCloseHours: String(f.autoClose?.hours ?? 8),
    autoCloseMessage:
      f.autoClose?.message ?? 'Encerramos esta conversa por falta de resposta. Escreva quando quiser!',
    csat: f.csat !== null,
    csatQuestion:
      f.csat?.question ?? 'Como você avalia nosso atendimento? Responda de 1 (péssimo) a 5 (ótimo).',
    csatThanks: f.csat?.thanks ?? 'Obrigado pela sua avaliação!',
    csatInvalid: f.csat?.invalidReply ?? 'Por favor, responda com um número de 1 a 5.',
    csatWindowHours: String(f.csat?.windowHours ?? 24),
    csatLabels: (f.csat?.labels ?? []).join('\n'),
    csatListButton: f.csat?.listButton ?? '',
  };
}

function bodyOf(f: Form): ChannelFlowBody {
  return {
    enabled: f.enabled,
    greeting: orNull(f.greeting),
    menu: {
      prompt: f.prompt,
      options: f.options,
      interactive: f.interactive,
      ...(f.listButton.trim() ? { listButton: f.listButton } : {}),
      invalidReply: f.invalidReply,
      maxAttempts: num(f.maxAttempts),
      timeoutMinutes: num(f.timeoutMinutes),
    },
    outOfHoursMessage: orNull(f.outOfHoursMessage),
    awayMessage: orNull(f.awayMessage),
    autoClose: f.autoClose ? { hours: num(f.autoCloseHours), message: f.autoCloseMessage } : null,
    csat: f.csat
      ? {
          question: f.csatQuestion,
          thanks: f.csatThanks,
          invalidReply: f.csatInvalid,
          windowHours: num(f.csatWindowHours),
          ...(f.csatLabels.trim() ? { labels: f.csatLabels.split('\n').filter((l) => l.trim()) } : {}),
          ...(f.csatListButton.trim() ? { listButton: f.csatListButton } : {}),
        }
      : null,
  };
}

export function ChannelFlowTab(props: { channel: Channel; teams: Team[] }) {
  const { t } = useI18n();
  const id = props.channel.id;
  const flow = useLoad(() => get<ChannelFlow>(`/api/channels/${id}/flow`), id);
  const [form, setForm] = useState<Form | null>(null);
  const [done, setDone] = useState(false);
  const submit = useSubmit(FIELDS);
  const { byField, rest } = submit.errors;
  const { gateway } = useGateway();

  useEffect(() => {
    if (flow.data) setForm(formOf(flow.data));
  }, [flow.data]);
  useEffect(() => {
    if (!gateway) return;
    return gateway.on('channel.flow', (e) => {
      if (e.data.flow.channelId === id) setForm(formOf(e.data.flow));
    });
  }, [gateway, id]);

  if (!form)
    return <LoadState loading={flow.loading} error={flow.error} onRetry={() => void flow.reload()} />;
  // An edited form is not the saved one any more: "saved" goes until the next save.
  const set = (patch: Partial<Form>) => {
    setForm({ ...form, ...patch });
    setDone(false);
  };
  const teamOptions = props.teams
    .filter((x) => x.status === 'active')
    .map((x) => ({ value: x.id, label: x.name }));
  const menuErrors = (byField.menu ?? []).filter((m) => !m.startsWith('menu.options.'));
  const optionErrors = (i: number) =>
    (byField.menu ?? []).filter(
      (m) => m.startsWith(`menu.options.${i}.`) || m.startsWith(`menu.options.${i} `),
    );
  const save = () =>
    submit.run(async () => {
      setDone(false);
      const saved = await put<ChannelFlow>(`/api/channels/${id}/flow`, bodyOf(form));
      setForm(formOf(saved));
      setDone(true);
    });
  const setOption = (i: number, patch: Partial<Form['options'][number]>) =>
    set({ options: form.options.map((o, j) => (j === i ? { ...o, ...patch } : o)) });

  return (
    <form className="card adm-card adm-form" noValidate onSubmit={onForm(save)} data-testid="channel-flow">
      <FormErrors messages={rest} />
      <label className="adm-check">
        <input
          type="checkbox"
          name="enabled"
          checked={form.enabled}
          onChange={(e) => set({ enabled: e.target.checked })}
        />
        <span>{t('flow.enabled')}</span>
      </label>
      <small className="adm-hint">{t('flow.enabledHint')}</small>
      <TextArea
        label={t('flow.greeting')}
        name="greeting"
        value={form.greeting}
        onChange={(v) => set({ greeting: v })}
        hint={t('flow.optionalHint')}
        errors={byField.greeting}
      />
      <fieldset className="adm-group">
        <legend>{t('flow.menu')}</legend>
        <FieldErrors messages={menuErrors} />
        <TextArea
          label={t('flow.prompt')}
          name="prompt"
          value={form.prompt}
          onChange={(v) => set({ prompt: v })}
        />
        <ol className="adm-flow-options">
          {form.options.map((o, i) => (
            <li key={i} role="group" aria-label={t('flow.option', { n: i + 1 })}>
              <TextField
                label={t('flow.optionLabel', { n: i + 1 })}
                name={`option-${i}-label`}
                value={o.label}
                maxLength={24}
                onChange={(v) => setOption(i, { label: v })}
              />
              <SelectField
                label={t('flow.optionTeam', { n: i + 1 })}
                name={`option-${i}-team`}
                value={o.teamId}
                options={teamOptions}
                onChange={(v) => setOption(i, { teamId: v })}
              />
              <button
                type="button"
                className="btn small"
                disabled={form.options.length <= 1}
                aria-label={t('flow.removeOption', { n: i + 1 })}
                onClick={() => set({ options: form.options.filter((_, j) => j !== i) })}
              >
                {t('hours.remove')}
              </button>
              <FieldErrors messages={optionErrors(i)} />
            </li>
          ))}
        </ol>
        {form.options.length < MAX_OPTIONS && (
          <button
            type="button"
            className="btn small"
            onClick={() =>
              set({
                options: [
                  ...form.options,
                  { label: '', teamId: teamOptions[0]?.value ?? props.channel.defaultTeamId },
                ],
              })
            }
          >
            {t('flow.addOption')}
          </button>
        )}
        <label className="adm-check">
          <input
            type="checkbox"
            name="interactive"
            checked={form.interactive}
            onChange={(e) => set({ interactive: e.target.checked })}
          />
          <span>{t('flow.interactive')}</span>
        </label>
        {form.interactive && (
          <TextField
            label={t('flow.listButton')}
            name="listButton"
            hint={t('flow.listButtonHint')}
            value={form.listButton}
            onChange={(v) => set({ listButton: v })}
          />
        )}
        <TextArea
          label={t('flow.invalidReply')}
          name="invalidReply"
          value={form.invalidReply}
          onChange={(v) => set({ invalidReply: v })}
        />
        <div className="adm-row">
          <TextField
            label={t('flow.maxAttempts')}
            name="maxAttempts"
            inputMode="numeric"
            value={form.maxAttempts}
            onChange={(v) => set({ maxAttempts: v })}
          />
          <TextField
            label={t('flow.timeoutMinutes')}
            name="timeoutMinutes"
            inputMode="numeric"
            value={form.timeoutMinutes}
            onChange={(v) => set({ timeoutMinutes: v })}
            hint={t('flow.timeoutHint')}
          />
        </div>
      </fieldset>
      <TextArea
        label={t('flow.outOfHours')}
        name="outOfHoursMessage"
        value={form.outOfHoursMessage}
        onChange={(v) => set({ outOfHoursMessage: v })}
        hint={t('flow.outOfHoursHint')}
        errors={byField.outOfHoursMessage}
      />
      <TextArea
        label={t('flow.away')}
        name="awayMessage"
        value={form.awayMessage}
        onChange={(v) => set({ awayMessage: v })}
        hint={t('flow.awayHint')}
        errors={byField.awayMessage}
      />
      <fieldset className="adm-group">
        <legend>{t('flow.autoClose')}</legend>
        <label className="adm-check">
          <input
            type="checkbox"
            name="autoClose"
            checked={form.autoClose}
            onChange={(e) => set({ autoClose: e.target.checked })}
          />
          <span>{t('flow.autoCloseOn')}</span>
        </label>
        <FieldErrors messages={byField.autoClose ?? []} />
        {form.autoClose && (
          <>
            <TextField
              label={t('flow.autoCloseHours')}
              name="autoCloseHours"
              inputMode="numeric"
              value={form.autoCloseHours}
              onChange={(v) => set({ autoCloseHours: v })}
              hint={t('flow.autoCloseHint')}
            />
            <TextArea
              label={t('flow.closingMessage')}
              name="autoCloseMessage"
              value={form.autoCloseMessage}
              onChange={(v) => set({ autoCloseMessage: v })}
            />
          </>
        )}
      </fieldset>
      <CsatFields form={form} set={set} errors={byField.csat ?? []} />
      <div className="adm-actions">
        <span role="status" className="muted">
          {done ? t('flow.saved') : ''}
        </span>
        <button type="submit" className="btn primary" disabled={submit.pending}>
          {t('common.save')}
        </button>
      </div>
    </form>
  );
}

import { useI18n } from '../i18n';
import type { Form } from './channel-flow';
import { FieldErrors, TextField } from './fields';
import { TextArea } from './text-area';

/** The flow form's rating part: on or off, its texts, its five labels and the list's button. */
export function CsatFields(props: { form: Form; set: (p: Partial<Form>) => void; errors: string[] }) {
  const { t } = useI18n();
  return (
    <fieldset className="adm-group">
      <legend>{t('flow.csat')}</legend>
      <label className="adm-check">
        <input
          type="checkbox"
          name="csat"
          checked={props.form.csat}
          onChange={(e) => props.set({ csat: e.target.checked })}
        />
        <span>{t('flow.csatOn')}</span>
      </label>
      <FieldErrors messages={props.errors} />
      {props.form.csat && (
        <>
          <TextArea
            label={t('flow.csatQuestion')}
            name="csatQuestion"
            value={props.form.csatQuestion}
            onChange={(v) => props.set({ csatQuestion: v })}
          />
          <TextArea
            label={t('flow.csatThanks')}
            name="csatThanks"
            value={props.form.csatThanks}
            onChange={(v) => props.set({ csatThanks: v })}
          />
          <TextArea
            label={t('flow.csatInvalid')}
            name="csatInvalid"
            value={props.form.csatInvalid}
            onChange={(v) => props.set({ csatInvalid: v })}
          />
          <TextArea
            label={t('flow.csatLabels')}
            name="csatLabels"
            hint={t('flow.csatLabelsHint')}
            value={props.form.csatLabels}
            onChange={(v) => props.set({ csatLabels: v })}
          />
          <TextField
            label={t('flow.csatListButton')}
            name="csatListButton"
            hint={t('flow.csatListButtonHint')}
            value={props.form.csatListButton}
            onChange={(v) => props.set({ csatListButton: v })}
          />
          <TextField
            label={t('flow.csatWindow')}
            name="csatWindowHours"
            inputMode="numeric"
            value={props.form.csatWindowHours}
            onChange={(v) => props.set({ csatWindowHours: v })}
          />
        </>
      )}
    </fieldset>
  );
}

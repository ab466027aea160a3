import type { ReactNode } from 'react';
import { Dialog } from '../components';
import { useI18n } from '../i18n';
import { CopyField, FormErrors } from './fields';
import { onForm, useSubmit, type Submit } from './load';

// The admin screens' dialogs: one form dialog for every create and edit (users, teams, channels, API
// keys, webhooks) and for confirmations, and the dialog that shows a secret once.

/**
 * A form in a modal dialog: its fields, the API's messages that name no field above them, and Cancel
 * beside the submit button. Escape and Cancel close it; focus returns where it was.
 */
export function FormDialog(props: {
  title: string;
  onClose: () => void;
  submit: Submit;
  /** Called on submit (Enter in a field, or the button). */
  onSubmit: () => void | Promise<unknown>;
  submitLabel: string;
  /** A red submit button, for what cannot be undone. */
  danger?: boolean;
  /** Focus on the submit button (a confirmation), instead of a field's autoFocus. */
  focusSubmit?: boolean;
  /** Above the form's messages: a notice, a confirmation's question. */
  intro?: ReactNode;
  children?: ReactNode;
}) {
  const { t } = useI18n();
  return (
    <Dialog title={props.title} onClose={props.onClose}>
      <form className="adm-dialog-body" noValidate onSubmit={onForm(props.onSubmit)}>
        {props.intro}
        <FormErrors messages={props.submit.errors.rest} />
        {props.children}
        <div className="adm-actions">
          <button type="button" className="btn" onClick={props.onClose}>
            {t('common.cancel')}
          </button>
          <button
            type="submit"
            className={props.danger ? 'btn danger' : 'btn primary'}
            disabled={props.submit.pending}
            autoFocus={props.focusSubmit}
          >
            {props.submitLabel}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** Asks before an action that cannot be undone; shows the API's answer if it fails. */
export function ConfirmDialog(props: {
  title: string;
  message: string;
  confirmLabel: string;
  danger?: boolean;
  onConfirm: () => Promise<void>;
  onClose: () => void;
}) {
  const submit = useSubmit([]);
  return (
    <FormDialog
      title={props.title}
      onClose={props.onClose}
      submit={submit}
      onSubmit={async () => {
        if (await submit.run(props.onConfirm)) props.onClose();
      }}
      submitLabel={props.confirmLabel}
      danger={props.danger}
      focusSubmit
      intro={<p>{props.message}</p>}
    />
  );
}

/** A secret shown once, right after it was made: copy it now, it is never shown again. */
export function SecretDialog(props: {
  title: string;
  label: string;
  value: string;
  notes: string[];
  onClose: () => void;
  testId?: string;
}) {
  const { t } = useI18n();
  return (
    <Dialog title={props.title} onClose={props.onClose}>
      <div className="adm-dialog-body" data-testid={props.testId}>
        <p className="warning adm-once" role="note">
          {t('common.shownOnce')}
        </p>
        {props.notes.map((n) => (
          <p key={n} className="adm-note">
            {n}
          </p>
        ))}
        <CopyField
          label={props.label}
          value={props.value}
          rows={2}
          testId={props.testId ? `${props.testId}-value` : undefined}
        />
        <div className="adm-actions">
          <button type="button" className="btn primary" onClick={props.onClose}>
            {t('admin.shownOnceDone')}
          </button>
        </div>
      </div>
    </Dialog>
  );
}

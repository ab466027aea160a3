import { useId, useRef, useState, type InputHTMLAttributes, type ReactNode } from 'react';
import { useI18n } from '../i18n';

// The admin forms' fields: labelled inputs, selects and checklists with their hints and the API's
// messages about them (tied by aria-describedby), a form's other messages, and values to copy.

export function FormErrors(props: { messages: string[] }) {
  if (props.messages.length === 0) return null;
  return (
    <div className="error adm-errors" role="alert">
      {props.messages.length === 1 ? (
        <p>{props.messages[0]}</p>
      ) : (
        <ul>
          {props.messages.map((m) => (
            <li key={m}>{m}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'onChange' | 'value'>;

/** A labelled input with its hint and the API's messages about it, tied by aria-describedby. */
export function TextField(
  props: InputProps & {
    label: string;
    value: string;
    onChange: (value: string) => void;
    hint?: ReactNode;
    errors?: string[];
  },
) {
  const { label, value, onChange, hint, errors, className, ...input } = props;
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errId = errors?.length ? `${id}-err` : undefined;
  return (
    <div className={className ? `field adm-field ${className}` : 'field adm-field'}>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={errors?.length ? true : undefined}
        aria-describedby={[hintId, errId].filter(Boolean).join(' ') || undefined}
        {...input}
      />
      {hint && (
        <small id={hintId} className="adm-hint">
          {hint}
        </small>
      )}
      {errId && <FieldErrors id={errId} messages={errors ?? []} />}
    </div>
  );
}

export function SelectField(props: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  options: { value: string; label: string }[];
  errors?: string[];
  hint?: ReactNode;
  disabled?: boolean;
  name?: string;
}) {
  const id = useId();
  const hintId = props.hint ? `${id}-hint` : undefined;
  const errId = props.errors?.length ? `${id}-err` : undefined;
  return (
    <div className="field adm-field">
      <label htmlFor={id}>{props.label}</label>
      <select
        id={id}
        name={props.name}
        value={props.value}
        disabled={props.disabled}
        onChange={(e) => props.onChange(e.target.value)}
        aria-invalid={errId ? true : undefined}
        aria-describedby={[hintId, errId].filter(Boolean).join(' ') || undefined}
      >
        {props.options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      {props.hint && (
        <small id={hintId} className="adm-hint">
          {props.hint}
        </small>
      )}
      {errId && <FieldErrors id={errId} messages={props.errors ?? []} />}
    </div>
  );
}

export function FieldErrors(props: { id?: string; messages: string[] }) {
  if (props.messages.length === 0) return null;
  return (
    <small id={props.id} className="adm-field-error" role="alert">
      {props.messages.join('. ')}
    </small>
  );
}

/** A group of checkboxes with a legend, keyboard-reachable as plain inputs. */
export function CheckList(props: {
  legend: string;
  options: { value: string; label: ReactNode; hint?: string }[];
  selected: string[];
  onChange: (selected: string[]) => void;
  errors?: string[];
  hint?: ReactNode;
  name: string;
  extra?: ReactNode;
  disabled?: boolean;
}) {
  const id = useId();
  const set = new Set(props.selected);
  const toggle = (value: string, on: boolean) => {
    const next = new Set(set);
    if (on) next.add(value);
    else next.delete(value);
    // Keep the options' order, so what is sent is stable.
    props.onChange(props.options.map((o) => o.value).filter((v) => next.has(v)));
  };
  const errId = props.errors?.length ? `${id}-err` : undefined;
  return (
    <fieldset className="adm-checklist" aria-describedby={errId} aria-invalid={errId ? true : undefined}>
      <legend>{props.legend}</legend>
      {props.hint && <small className="adm-hint">{props.hint}</small>}
      {props.extra}
      <div className="adm-checks">
        {props.options.map((o) => (
          <label key={o.value} className="adm-check">
            <input
              type="checkbox"
              name={props.name}
              value={o.value}
              checked={set.has(o.value)}
              disabled={props.disabled}
              onChange={(e) => toggle(o.value, e.target.checked)}
            />
            <span>
              {o.label}
              {o.hint && <small className="adm-hint"> {o.hint}</small>}
            </span>
          </label>
        ))}
      </div>
      {errId && <FieldErrors id={errId} messages={props.errors ?? []} />}
    </fieldset>
  );
}

/**
 * A value the user copies: the copy button uses the Clipboard API, and where that is unavailable
 * (an insecure origin, a refused permission) selects the text for Ctrl+C instead.
 */
export function CopyField(props: {
  label: string;
  value: string;
  /** Lines of a textarea, for long values that should be seen whole; an input otherwise. */
  rows?: number;
  testId?: string;
}) {
  const { t } = useI18n();
  const id = useId();
  const ref = useRef<HTMLInputElement & HTMLTextAreaElement>(null);
  const [state, setState] = useState<'idle' | 'copied' | 'select'>('idle');
  const selectAll = () => ref.current?.select();
  const copy = async () => {
    try {
      if (!navigator.clipboard) throw new Error('no clipboard');
      await navigator.clipboard.writeText(props.value);
      setState('copied');
    } catch {
      selectAll();
      setState('select');
    }
  };
  const common = {
    id,
    ref,
    readOnly: true,
    value: props.value,
    onFocus: selectAll,
    spellCheck: false,
    'data-testid': props.testId,
  };
  return (
    <div className="field adm-field adm-copy">
      <label htmlFor={id}>{props.label}</label>
      <div className="adm-copy-row">
        {props.rows ? <textarea {...common} rows={props.rows} /> : <input {...common} />}
        <button type="button" className="btn" onClick={() => void copy()}>
          {t('common.copy')}
        </button>
      </div>
      <small className="adm-hint" role="status" aria-live="polite">
        {state === 'copied' ? t('common.copied') : state === 'select' ? t('admin.copyFallback') : ''}
      </small>
    </div>
  );
}

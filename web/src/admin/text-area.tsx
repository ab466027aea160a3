import { useId } from 'react';
import { FieldErrors } from './fields';

/** A labelled text area of an admin form, with its hint and the server's messages about it. */
export function TextArea(props: {
  label: string;
  name: string;
  value: string;
  onChange: (v: string) => void;
  hint?: string;
  errors?: string[];
}) {
  const id = useId();
  const errId = props.errors?.length ? `${id}-err` : undefined;
  return (
    <div className="field adm-field">
      <label htmlFor={id}>{props.label}</label>
      <textarea
        id={id}
        name={props.name}
        rows={2}
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
        aria-invalid={errId ? true : undefined}
        aria-describedby={
          [props.hint ? `${id}-hint` : '', errId ?? ''].filter(Boolean).join(' ') || undefined
        }
      />
      {props.hint && (
        <small id={`${id}-hint`} className="adm-hint">
          {props.hint}
        </small>
      )}
      {errId && <FieldErrors id={errId} messages={props.errors ?? []} />}
    </div>
  );
}

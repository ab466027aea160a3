import { useId } from 'react';
import type { AttributeDefinition } from '../models';

/** The input of one custom attribute, by its type: text, number, date, or a list's options. */
export function AttributeInput(props: {
  def: AttributeDefinition;
  value: string;
  onChange: (value: string) => void;
  /** A label hidden from sight (a filter bar), read by screen readers. */
  hiddenLabel?: boolean;
}) {
  const id = useId();
  const { def } = props;
  const label = (
    <label htmlFor={id} className={props.hiddenLabel ? 'sr-only' : undefined}>
      {def.label}
    </label>
  );
  if (def.type === 'list') {
    return (
      <div className="field">
        {label}
        <select id={id} name={def.key} value={props.value} onChange={(e) => props.onChange(e.target.value)}>
          <option value="">—</option>
          {def.options.map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      </div>
    );
  }
  return (
    <div className="field">
      {label}
      <input
        id={id}
        name={def.key}
        type={def.type === 'number' ? 'number' : def.type === 'date' ? 'date' : 'text'}
        step={def.type === 'number' ? 'any' : undefined}
        maxLength={def.type === 'text' ? 1000 : undefined}
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
      />
    </div>
  );
}

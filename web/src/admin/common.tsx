import {
  useCallback,
  useEffect,
  useId,
  useRef,
  useState,
  type FormEvent,
  type InputHTMLAttributes,
  type ReactNode,
} from 'react';
import { ApiError } from '../api';
import { Dialog } from '../components';
import { useI18n } from '../i18n';
import './admin.css';

// Building blocks shared by the admin screens: loading state, the API's error messages placed next to
// the fields they name, fields, tables that turn into cards on a phone, copy-once secrets, confirmations.

export interface Loaded<T> {
  data: T | null;
  error: string[] | null;
  loading: boolean;
  reload(): Promise<void>;
  setData(update: (prev: T | null) => T | null): void;
}

/** Runs `load` on mount and whenever `key` changes; answers that arrive for an older key are dropped. */
export function useLoad<T>(load: () => Promise<T>, key: string): Loaded<T> {
  const { t } = useI18n();
  const [data, setDataState] = useState<T | null>(null);
  const [error, setError] = useState<string[] | null>(null);
  const [loading, setLoading] = useState(true);
  const loadRef = useRef(load);
  loadRef.current = load;
  const generation = useRef(0);

  const reload = useCallback(async () => {
    const mine = ++generation.current;
    setLoading(true);
    try {
      const value = await loadRef.current();
      if (mine !== generation.current) return;
      setDataState(value);
      setError(null);
    } catch (err) {
      if (mine !== generation.current) return;
      setError(errorMessages(err, t('common.error')));
    } finally {
      if (mine === generation.current) setLoading(false);
    }
  }, [t]);

  useEffect(() => {
    void reload();
    // `key` stands for everything `load` reads.
  }, [key, reload]);

  const setData = useCallback((update: (prev: T | null) => T | null) => setDataState(update), []);
  return { data, error, loading, reload, setData };
}

/** The `message` of the API's error body as a list; a network failure as the generic sentence. */
export function errorMessages(err: unknown, generic: string): string[] {
  if (err instanceof ApiError && err.status !== 0 && err.messages.length > 0) return err.messages;
  return [generic];
}

/**
 * Validation messages name their field first (`email must be an email`, `providerConfig.accessToken
 * must …`); those go under the field, the rest above the form.
 */
export function splitErrors(
  messages: string[],
  fields: string[],
): { byField: Record<string, string[]>; rest: string[] } {
  const byField: Record<string, string[]> = {};
  const rest: string[] = [];
  for (const msg of messages) {
    const field = fields.find(
      (f) => msg.startsWith(`${f} `) || msg.startsWith(`${f}.`) || msg.startsWith(`${f}[`),
    );
    if (field) (byField[field] ??= []).push(msg);
    else rest.push(msg);
  }
  return { byField, rest };
}

/**
 * A form's submission: pending state, and the API's messages split by field. `run` returns false
 * when it failed (the messages are then shown).
 */
export function useSubmit(fields: string[]) {
  const { t } = useI18n();
  const [pending, setPending] = useState(false);
  const [errors, setErrors] = useState<{ byField: Record<string, string[]>; rest: string[] }>({
    byField: {},
    rest: [],
  });
  const fieldsKey = fields.join('\u0000');
  const run = useCallback(
    async (action: () => Promise<void>): Promise<boolean> => {
      setPending(true);
      setErrors({ byField: {}, rest: [] });
      try {
        await action();
        return true;
      } catch (err) {
        setErrors(splitErrors(errorMessages(err, t('common.error')), fieldsKey.split('\u0000')));
        return false;
      } finally {
        setPending(false);
      }
    },
    [t, fieldsKey],
  );
  const clear = useCallback(() => setErrors({ byField: {}, rest: [] }), []);
  /** Shows messages found before calling the API (e.g. nothing picked in a checklist). */
  const fail = useCallback((byField: Record<string, string[]>) => setErrors({ byField, rest: [] }), []);
  return { pending, errors, run, clear, fail };
}

/** `onSubmit` that never reloads the page. */
export const onForm = (fn: () => void | Promise<unknown>) => (e: FormEvent) => {
  e.preventDefault();
  void fn();
};

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

export interface Column<T> {
  key: string;
  label: string;
  render: (row: T) => ReactNode;
  className?: string;
}

/**
 * A table that becomes one card per row on narrow screens: every cell carries its column's label,
 * which the stylesheet shows before the value there.
 */
export function DataTable<T>(props: {
  caption: string;
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string;
  rowClass?: (row: T) => string | undefined;
  empty: ReactNode;
  testId?: string;
}) {
  if (props.rows.length === 0) return <p className="muted adm-empty">{props.empty}</p>;
  return (
    <div className="adm-table-wrap">
      <table className="adm-table" data-testid={props.testId}>
        <caption className="sr-only">{props.caption}</caption>
        <thead>
          <tr>
            {props.columns.map((c) => (
              <th key={c.key} scope="col" className={c.className}>
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => (
            <tr key={props.rowKey(row)} className={props.rowClass?.(row)}>
              {props.columns.map((c) => (
                <td key={c.key} data-label={c.label} className={c.className}>
                  {c.render(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function PageHeader(props: { title: string; children?: ReactNode; back?: ReactNode }) {
  return (
    <header className="adm-header">
      <div>
        {props.back}
        <h1>{props.title}</h1>
      </div>
      {props.children && <div className="adm-header-actions">{props.children}</div>}
    </header>
  );
}

export function LoadState(props: { loading: boolean; error: string[] | null; onRetry: () => void }) {
  const { t } = useI18n();
  if (props.error) {
    return (
      <div className="error adm-errors" role="alert">
        <p>{props.error.join('; ')}</p>
        <button type="button" className="btn" onClick={props.onRetry}>
          {t('admin.retry')}
        </button>
      </div>
    );
  }
  if (props.loading)
    return (
      <p className="muted" role="status">
        {t('common.loading')}
      </p>
    );
  return null;
}

export function Badge(props: { tone: 'ok' | 'warn' | 'bad' | 'neutral' | 'info'; children: ReactNode }) {
  return <span className={`adm-badge ${props.tone}`}>{props.children}</span>;
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

/** Asks before an action that cannot be undone; shows the API's answer if it fails. */
export function ConfirmDialog(props: {
  title: string;
  message: string;
  confirmLabel: string;
  danger?: boolean;
  onConfirm: () => Promise<void>;
  onClose: () => void;
}) {
  const { t } = useI18n();
  const submit = useSubmit([]);
  return (
    <Dialog title={props.title} onClose={props.onClose}>
      <form
        className="adm-dialog-body"
        onSubmit={onForm(async () => {
          if (await submit.run(props.onConfirm)) props.onClose();
        })}
      >
        <p>{props.message}</p>
        <FormErrors messages={submit.errors.rest} />
        <div className="adm-actions">
          <button type="button" className="btn" onClick={props.onClose}>
            {t('common.cancel')}
          </button>
          <button
            type="submit"
            className={props.danger ? 'btn danger' : 'btn primary'}
            disabled={submit.pending}
            autoFocus
          >
            {props.confirmLabel}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** Page navigation of a paged list. */
export function Pager(props: { page: number; limit: number; total: number; onPage: (page: number) => void }) {
  const { t } = useI18n();
  const pages = Math.max(1, Math.ceil(props.total / props.limit));
  if (props.total === 0) return null;
  return (
    <nav className="adm-pager" aria-label={t('common.page', { page: props.page, pages })}>
      <button
        type="button"
        className="btn"
        disabled={props.page <= 1}
        onClick={() => props.onPage(props.page - 1)}
      >
        {t('common.previous')}
      </button>
      <span>
        {t('common.page', { page: props.page, pages })} · {t('admin.total', { n: props.total })}
      </span>
      <button
        type="button"
        className="btn"
        disabled={props.page >= pages}
        onClick={() => props.onPage(props.page + 1)}
      >
        {t('common.next')}
      </button>
    </nav>
  );
}

/** A short, readable form of a long id (the full one in the title and for screen readers). */
export function ShortId(props: { id: string }) {
  // Ids begin with their creation time (ObjectIds and UUIDv7 alike), so ids made close together share
  // their start: the end is what tells them apart.
  return (
    <code className="adm-id" title={props.id}>
      {shortId(props.id)}
    </code>
  );
}

/** The distinguishing end of a long id. */
export const shortId = (id: string) => (id.length > 12 ? `…${id.slice(-8)}` : id);

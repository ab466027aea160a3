import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { ApiError, get } from '../api';
import { useI18n } from '../i18n';

// How the admin screens read and write: a loaded value with its error and a reload, a list that takes
// what a save answered, a form's submission with the API's messages split by field, and an action on
// one row of a table.

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

export interface LoadedList<T extends { id: string }> extends Loaded<T[]> {
  /** Puts a saved item in place of its old copy, or adds it (at the end, or first with `first`). */
  upsert(item: T, opts?: { first?: boolean }): void;
  remove(id: string): void;
}

/** A list the API answers at `path` (`GET /api/teams`…), kept up to date with what saves answer. */
export function useList<T extends { id: string }>(path: string): LoadedList<T> {
  const list = useLoad(() => get<T[]>(path), path);
  const { setData } = list;
  const upsert = useCallback(
    (item: T, opts: { first?: boolean } = {}) =>
      setData((prev) => {
        const rows = prev ?? [];
        if (rows.some((x) => x.id === item.id)) return rows.map((x) => (x.id === item.id ? item : x));
        return opts.first ? [item, ...rows] : [...rows, item];
      }),
    [setData],
  );
  const remove = useCallback(
    (id: string) => setData((prev) => (prev ?? []).filter((x) => x.id !== id)),
    [setData],
  );
  return { ...list, upsert, remove };
}

/** The `message` of the API's error body as a list; a network failure as the generic sentence. */
export function errorMessages(err: unknown, generic: string): string[] {
  if (err instanceof ApiError && err.status !== 0 && err.messages.length > 0) return err.messages;
  return [generic];
}

export interface FieldErrorsByName {
  byField: Record<string, string[]>;
  rest: string[];
}

/**
 * Validation messages name their field first (`email must be an email`, `providerConfig.accessToken
 * must …`); those go under the field, the rest above the form.
 */
export function splitErrors(messages: string[], fields: string[]): FieldErrorsByName {
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

export interface Submit {
  pending: boolean;
  errors: FieldErrorsByName;
  /** Runs the save; false when it failed (its messages are then shown). */
  run(action: () => Promise<void>): Promise<boolean>;
  clear(): void;
  /** Shows messages found before calling the API (e.g. nothing picked in a checklist). */
  fail(byField: Record<string, string[]>): void;
}

/** A form's submission: pending state, and the API's messages split by the form's fields. */
export function useSubmit(fields: string[]): Submit {
  const { t } = useI18n();
  const [pending, setPending] = useState(false);
  const [errors, setErrors] = useState<FieldErrorsByName>({ byField: {}, rest: [] });
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
  const fail = useCallback((byField: Record<string, string[]>) => setErrors({ byField, rest: [] }), []);
  return { pending, errors, run, clear, fail };
}

/** `onSubmit` that never reloads the page. */
export const onForm = (fn: () => void | Promise<unknown>) => (e: FormEvent) => {
  e.preventDefault();
  void fn();
};

/**
 * An action on one row of a table (activate a team, pause a webhook): which row is busy, and the
 * API's messages shown on the row that failed.
 */
export function useRowAction() {
  const { t } = useI18n();
  const [busy, setBusy] = useState<string | null>(null);
  const [failed, setFailed] = useState<{ id: string; messages: string[] } | null>(null);
  const run = async (id: string, action: () => Promise<void>) => {
    setBusy(id);
    setFailed(null);
    try {
      await action();
    } catch (err) {
      setFailed({ id, messages: errorMessages(err, t('common.error')) });
    } finally {
      setBusy(null);
    }
  };
  const errorsOf = (id: string) => (failed?.id === id ? failed.messages : []);
  return { busy, run, errorsOf };
}

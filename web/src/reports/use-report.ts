import { useCallback, useEffect, useState } from 'react';
import { ApiError, get } from '../api';
import { useGateway } from '../session';
import type { Report } from './types';

// A report read from the API and kept current: the figures come from rollups the server updates
// behind the events, so the console reads the report again — soon after conversations change (the
// events it already receives, a burst read once), every minute while shown, and every few seconds
// while the server says its rollups are catching up.

const EVERY_MS = 60_000;
const CATCHING_UP_MS = 5_000;
const AFTER_EVENT_MS = 5_000;

export interface ReportState<R> {
  report: R | null;
  /** The server's sentences when the last read failed (a 400 names the bad field). */
  error: string[] | null;
  loading: boolean;
  reload(): void;
}

export function useReport<R extends Report>(path: string | null): ReportState<R> {
  const { gateway } = useGateway();
  // The report with the path it answers: one of another query never shows under the new filters.
  const [data, setData] = useState<{ path: string; report: R } | null>(null);
  const [error, setError] = useState<string[] | null>(null);
  const [loading, setLoading] = useState(false);
  const [tick, setTick] = useState(0);

  const reload = useCallback(() => setTick((n) => n + 1), []);

  useEffect(() => {
    if (!path) return;
    let cancelled = false;
    setLoading(true);
    get<R>(path)
      .then((r) => {
        if (cancelled) return;
        setData({ path, report: r });
        setError(null);
      })
      .catch((err: unknown) => {
        if (cancelled) return;
        setError(err instanceof ApiError ? err.messages : [String(err)]);
      })
      .finally(() => !cancelled && setLoading(false));
    return () => {
      cancelled = true;
    };
  }, [path, tick]);

  const report = data && data.path === path ? data.report : null;
  const catchingUp = report?.freshness.catchingUp ?? false;
  useEffect(() => {
    if (!path) return;
    const id = window.setInterval(
      () => {
        if (document.visibilityState === 'visible') reload();
      },
      catchingUp ? CATCHING_UP_MS : EVERY_MS,
    );
    return () => window.clearInterval(id);
  }, [path, catchingUp, reload]);

  useEffect(() => {
    if (!gateway || !path) return;
    let timer: number | undefined;
    const soon = () => {
      if (timer === undefined)
        timer = window.setTimeout(() => ((timer = undefined), reload()), AFTER_EVENT_MS);
    };
    const offs = [
      gateway.on('chat.new', soon),
      gateway.on('chat.close', soon),
      gateway.on('chat.reopen', soon),
      gateway.on('chat.csat', soon),
      gateway.onResync(reload),
    ];
    return () => {
      window.clearTimeout(timer);
      offs.forEach((off) => off());
    };
  }, [gateway, path, reload]);

  return { report, error, loading, reload };
}

import { useCallback } from 'react';
import { useI18n } from '../i18n';

/**
 * Compact times for lists and bubbles: the hour today, the day otherwise (the full date and time is
 * in each element's title).
 */
export function useShortTime(): (iso: string | null | undefined) => string {
  const { lang } = useI18n();
  return useCallback(
    (iso) => {
      if (!iso) return '';
      const d = new Date(iso);
      if (Number.isNaN(d.getTime())) return '';
      const now = new Date();
      if (d.toDateString() === now.toDateString())
        return d.toLocaleTimeString(lang, { hour: '2-digit', minute: '2-digit' });
      if (d.getFullYear() === now.getFullYear())
        return d.toLocaleDateString(lang, { day: '2-digit', month: '2-digit' });
      return d.toLocaleDateString(lang, { day: '2-digit', month: '2-digit', year: '2-digit' });
    },
    [lang],
  );
}

import { useI18n } from '../i18n';
import type { Chat } from '../models';
import { useNow } from './template-form';

// A conversation's SLA in the list and the header (docs/adr/0088-slas.md): the target that runs now
// (the first response until a person replies, then the resolution), its time left, and a state —
// `ok`, `near` (15 minutes or less left) or `breached` (past due, or the server raised the breach).

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** Time left under which the badge turns to `near`. */
const NEAR_MS = 15 * MINUTE;

export type SlaState = 'ok' | 'near' | 'breached';

/** The running target of an open conversation and its state at `now`; null when none runs. */
export function slaOf(
  chat: Chat,
  now: number,
): { kind: 'firstResponse' | 'resolution'; leftMs: number; state: SlaState } | null {
  const sla = chat.sla;
  if (!sla || chat.status !== 'open') return null;
  const running =
    sla.firstRespondedAt === null && sla.firstResponseDueAt !== null
      ? { kind: 'firstResponse' as const, due: sla.firstResponseDueAt, breached: sla.firstResponseBreached }
      : sla.resolutionDueAt !== null
        ? { kind: 'resolution' as const, due: sla.resolutionDueAt, breached: sla.resolutionBreached }
        : null;
  if (!running) return null;
  const leftMs = Date.parse(running.due) - now;
  const state: SlaState = running.breached || leftMs <= 0 ? 'breached' : leftMs <= NEAR_MS ? 'near' : 'ok';
  return { kind: running.kind, leftMs, state };
}

/** The running SLA target with its time left (or how late it is), kept current by the clock. */
export function SlaBadge(props: { chat: Chat }) {
  const { t } = useI18n();
  const now = useNow(15_000);
  const s = slaOf(props.chat, now);
  if (!s) return null;
  const abs = Math.abs(s.leftMs);
  const span =
    abs >= HOUR
      ? t('sla.leftHours', { h: Math.floor(abs / HOUR), m: Math.floor((abs % HOUR) / MINUTE) })
      : t('sla.leftMinutes', { m: Math.max(1, Math.ceil(abs / MINUTE)) });
  const what = s.kind === 'firstResponse' ? t('sla.badgeFirstResponse') : t('sla.badgeResolution');
  const text = s.state === 'breached' ? t('sla.overdue', { what, span }) : t('sla.dueIn', { what, span });
  return (
    <span className="sla-badge" data-sla={s.state} data-testid="sla-badge" title={t('sla.badgeHint')}>
      {text}
    </span>
  );
}

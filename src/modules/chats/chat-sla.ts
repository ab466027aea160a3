import type { BusinessHours, Interval, SlaTargets } from '../teams/index.js';

// The start of a conversation's SLA clocks as the inbound statement reads it (docs/adr/0088-slas.md):
// shared by ChatsRepo (which reads it) and ChatSlaService (which turns it into due instants).

/** A clock the customer's first message started, with what its team had then (ChatsRepo.recordInbound). */
export interface SlaStart {
  at: Date;
  targets: SlaTargets;
  hours: BusinessHours | null;
}

/** What `ChatsRepo.recordInbound` reads of the team when the customer's message starts the clock. */
export interface SlaStartRow {
  started_at: Date;
  has_sla: boolean;
  first_response_minutes: number | null;
  resolution_minutes: number | null;
  time_zone: string | null;
  weekly: Interval[][] | null;
  holidays: string[] | null;
}

/** The clock's start with the team's targets and hours, or null when the team had no target. */
export function slaStartOf(row: SlaStartRow): SlaStart | null {
  if (!row.has_sla) return null;
  return {
    at: row.started_at,
    targets: { firstResponseMinutes: row.first_response_minutes, resolutionMinutes: row.resolution_minutes },
    hours:
      row.time_zone === null
        ? null
        : { timeZone: row.time_zone, weekly: row.weekly, holidays: row.holidays ?? [] },
  };
}

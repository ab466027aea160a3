/**
 * The figures the reports' tests expect of the scripted day (report-day.ts), written by hand: durations
 * listed fact by fact, and a duration made of its values by the rules the ADR states (mean, nearest rank).
 */
export interface Duration {
  count: number;
  averageSeconds: number | null;
  p50Seconds: number | null;
  p90Seconds: number | null;
  p95Seconds: number | null;
}

/** A duration from its values, by hand's rule: mean, nearest-rank percentiles. */
export function dur(values: number[]): Duration {
  const v = [...values].sort((a, b) => a - b);
  const rank = (p: number) => v[Math.max(1, Math.ceil(p * v.length)) - 1] ?? null;
  return {
    count: v.length,
    averageSeconds: v.length ? Math.round((v.reduce((a, b) => a + b, 0) / v.length) * 1000) / 1000 : null,
    p50Seconds: rank(0.5),
    p90Seconds: rank(0.9),
    p95Seconds: rank(0.95),
  };
}

export interface Spec {
  opened?: number;
  closed?: number;
  reopened?: number;
  transfers?: number;
  attended?: number;
  messagesIn?: number;
  messagesOut?: number;
  fr?: number[];
  wait?: number[];
  handling?: number[];
  resolution?: number[];
  csat?: number[];
  sla?: [frMet: number, frBreached: number, resMet: number, resBreached: number];
}

export function metrics(s: Spec) {
  const csat = s.csat ?? [0, 0, 0, 0, 0];
  const n = csat.reduce((a, b) => a + b, 0);
  const [fm, fb, rm, rb] = s.sla ?? [0, 0, 0, 0];
  return {
    opened: s.opened ?? 0,
    closed: s.closed ?? 0,
    reopened: s.reopened ?? 0,
    transfers: s.transfers ?? 0,
    attended: s.attended ?? 0,
    messagesIn: s.messagesIn ?? 0,
    messagesOut: s.messagesOut ?? 0,
    firstResponse: dur(s.fr ?? []),
    wait: dur(s.wait ?? []),
    handling: dur(s.handling ?? []),
    resolution: dur(s.resolution ?? []),
    csat: {
      count: n,
      average: n ? Math.round((csat.reduce((a, b, i) => a + b * (i + 1), 0) / n) * 1000) / 1000 : null,
      distribution: csat,
    },
    sla: {
      firstResponse: { met: fm, breached: fb },
      resolution: { met: rm, breached: rb },
      compliance: fm + fb + rm + rb ? Math.round(((fm + rm) / (fm + fb + rm + rb)) * 1000) / 1000 : null,
    },
  };
}

export type Metrics = ReturnType<typeof metrics>;
export interface Report {
  range: { timeZone: string };
  freshness: { upTo: string | null; lagSeconds: number; catchingUp: boolean };
  totals: Metrics;
  series: { start: string; metrics: Metrics }[];
}

export const MIN = 60;
// The day by team (see report-day.ts): team 0 has X, Y's start, Z, B; team 1 Y after its transfer, W.
export const TEAM0: Spec = {
  opened: 4,
  closed: 2,
  reopened: 1,
  transfers: 1,
  // X's capture and its reopening, Y's and Z's and B's captures.
  attended: 5,
  messagesIn: 5,
  messagesOut: 3,
  fr: [10 * MIN, 50 * MIN, 25 * MIN],
  wait: [5 * MIN, 10 * MIN, 45 * MIN, 15 * MIN],
  handling: [35 * MIN, 30 * MIN],
  resolution: [40 * MIN, 30 * MIN],
  sla: [2, 1, 2, 0],
};
export const TEAM1: Spec = {
  opened: 1,
  closed: 2,
  // Y and W assigned automatically.
  attended: 2,
  messagesIn: 4,
  messagesOut: 5,
  fr: [30 * MIN, 8 * MIN],
  wait: [5 * MIN, 3 * MIN],
  handling: [60 * MIN, 15 * MIN],
  resolution: [70 * MIN, 20 * MIN],
  csat: [0, 0, 0, 0, 1],
  sla: [1, 0, 1, 0],
};
export const ALL: Spec = {
  opened: 5,
  closed: 4,
  reopened: 1,
  transfers: 1,
  attended: 7,
  messagesIn: 9,
  messagesOut: 8,
  fr: [...TEAM0.fr!, ...TEAM1.fr!],
  wait: [...TEAM0.wait!, ...TEAM1.wait!],
  handling: [...TEAM0.handling!, ...TEAM1.handling!],
  resolution: [...TEAM0.resolution!, ...TEAM1.resolution!],
  csat: [0, 0, 0, 0, 1],
  sla: [3, 1, 3, 0],
};
// Attendants: agent 0 holds X, Y until its transfer, Z and B once captured; agent 1 Y after it, and W.
export const AGENT0: Spec = {
  closed: 2,
  reopened: 1,
  transfers: 1,
  attended: 5,
  messagesIn: 1,
  messagesOut: 3,
  fr: TEAM0.fr!,
  wait: TEAM0.wait!,
  handling: TEAM0.handling!,
  resolution: TEAM0.resolution!,
  sla: [2, 0, 2, 0],
};
export const AGENT1: Spec = { ...TEAM1, opened: 0, messagesIn: 2, messagesOut: 4 };

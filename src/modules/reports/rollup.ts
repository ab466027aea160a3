import { addDuration, emptyAcc, type Acc, type CounterKey, type DurationKey } from './figures.js';
import { GRAINS, keyIn, REPORT_DAY_ZONE, SPAN_DAY, SPAN_HOUR } from './grains.js';
import { dayStart, localDate } from './zone.js';

/**
 * What the event log's facts add to the rollups (docs/adr/0089-reports-and-rollups.md): a pure step
 * per event, over what is known of its conversation (`ChatState`), in seq order. Every instant is the
 * event's `occurredAt`, the log's one clock.
 */

/** Queues where no person is asked to attend: a bot's and the Channel API's. */
const QUEUE_BOT = 'Automação';
const NOT_FOR_PEOPLE = new Set([QUEUE_BOT, 'API']);
const HOUR = 3_600_000;

export interface ChatState {
  chatId: string;
  accountId: string;
  status: string;
  queue: string;
  team: string;
  user: string | null;
  channel: string;
  labels: string[];
  /** The open cycle's start: created or reopened. */
  cycleStartedAt: number | null;
  /** When it first reached a person's queue (first response counts from here). */
  humanSince: number | null;
  /** Since when it waits in a person's queue without attendant. */
  waitingSince: number | null;
  /** The cycle's first attendant came at. */
  assignedAt: number | null;
  firstResponseAt: number | null;
  firstResponseDueAt: number | null;
  firstResponseBreached: boolean;
  closedAt: number | null;
}

export interface LogEvent {
  accountId: string;
  seq: number;
  event: string;
  at: number;
  data: Record<string, unknown>;
}

interface Dims {
  team: string;
  user: string;
  channel: string;
  labels: readonly string[];
}

/** The start of the reports' day-zone day holding an hour (cached: one `Intl` call per hour). */
const dayOfHour = new Map<number, number>();
function dayOf(hour: number): number {
  let day = dayOfHour.get(hour);
  if (day === undefined) {
    day = dayStart(REPORT_DAY_ZONE, localDate(REPORT_DAY_ZONE, hour));
    if (dayOfHour.size > 10_000) dayOfHour.clear();
    dayOfHour.set(hour, day);
  }
  return day;
}

export interface DeltaRow {
  account: string;
  span: number;
  grain: number;
  hour: number;
  key: Dims;
  acc: Acc;
}

/** Figures added by a batch of events, per rollup row: each fact in its hour's rows and its day's. */
export class Deltas {
  readonly rows = new Map<string, DeltaRow>();

  add(account: string, at: number, dims: Dims, apply: (acc: Acc) => void): void {
    const hour = Math.floor(at / HOUR) * HOUR;
    for (const [span, start] of [
      [SPAN_HOUR, hour],
      [SPAN_DAY, dayOf(hour)],
    ] as const) {
      GRAINS.forEach((dimsOfGrain, grain) => {
        const labels = dimsOfGrain.includes('label') ? dims.labels : [''];
        for (const label of labels) {
          const k = keyIn(grain, { team: dims.team, user: dims.user, channel: dims.channel, label });
          const id = `${account}|${span}|${grain}|${start}|${k.team}|${k.user}|${k.channel}|${k.label}`;
          let row = this.rows.get(id);
          if (!row) {
            row = { account, span, grain, hour: start, key: { ...k, labels: [k.label] }, acc: emptyAcc() };
            this.rows.set(id, row);
          }
          apply(row.acc);
        }
      });
    }
  }

  count(account: string, at: number, dims: Dims, counter: CounterKey): void {
    this.add(account, at, dims, (acc) => (acc.counters[counter] += 1));
  }

  duration(account: string, at: number, dims: Dims, key: DurationKey, from: number): void {
    this.add(account, at, dims, (acc) => addDuration(acc, key, (at - from) / 1000));
  }
}

interface Snap {
  id: string;
  status: string;
  queue: string;
  teamId: string;
  userId: string | null;
  channelId: string;
  labels: string[];
  sla: { frDue: number | null; frBreached: boolean; resDue: number | null; resBreached: boolean } | null;
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const obj = (v: unknown): Record<string, unknown> | null =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
const time = (v: unknown): number | null => (typeof v === 'string' ? Date.parse(v) : null);

/** The chat an event carries whole (the agent API's chat), or null. */
export function snapshotOf(data: Record<string, unknown>): Snap | null {
  const c = obj(data.chat);
  const id = str(c?.id);
  const status = str(c?.status);
  const teamId = str(c?.teamId);
  const channelId = str(c?.channelId);
  const queue = str(c?.queue);
  if (!c || !id || !status || !teamId || !channelId || queue === null) return null;
  const labels = Array.isArray(c.labels)
    ? c.labels.map((l) => str(obj(l)?.id)).filter((x) => x !== null)
    : [];
  const sla = obj(c.sla);
  return {
    id,
    status,
    queue,
    teamId,
    userId: str(c.userId),
    channelId,
    labels,
    sla: sla
      ? {
          frDue: time(sla.firstResponseDueAt),
          frBreached: sla.firstResponseBreached === true,
          resDue: time(sla.resolutionDueAt),
          resBreached: sla.resolutionBreached === true,
        }
      : null,
  };
}

/** The chat an event is about, whether it carries it whole or by id. */
export function chatIdOf(ev: LogEvent): string | null {
  return str(obj(ev.data.chat)?.id) ?? str(ev.data.chatId) ?? str(obj(ev.data.csat)?.chatId);
}

export function newState(accountId: string, s: Snap): ChatState {
  return {
    chatId: s.id,
    accountId,
    status: s.status,
    queue: s.queue,
    team: s.teamId,
    user: s.userId,
    channel: s.channelId,
    labels: s.labels,
    cycleStartedAt: null,
    humanSince: null,
    waitingSince: null,
    assignedAt: null,
    firstResponseAt: null,
    firstResponseDueAt: null,
    firstResponseBreached: false,
    closedAt: null,
  };
}

const dimsOf = (s: ChatState): Dims => ({
  team: s.team,
  user: s.user ?? '',
  channel: s.channel,
  labels: s.labels,
});

/** The conversation as an event shows it: where it is now, and the wait that ended. */
function observe(state: ChatState, snap: Snap, at: number, out: Deltas, isNew = false): void {
  const attendantBefore = !isNew && state.status === 'open' ? state.user : null;
  const open = snap.status === 'open';
  const forPeople = open && !NOT_FOR_PEOPLE.has(snap.queue);
  Object.assign(state, {
    status: snap.status,
    queue: snap.queue,
    team: snap.teamId,
    user: snap.userId,
    channel: snap.channelId,
    labels: snap.labels,
  });
  if (snap.sla) {
    state.firstResponseDueAt = snap.sla.frDue;
    state.firstResponseBreached ||= snap.sla.frBreached;
  }
  if (forPeople && state.humanSince === null) state.humanSince = at;
  const waiting = forPeople && snap.userId === null;
  if (state.waitingSince !== null && !waiting) {
    // Ended by an attendant: a wait. Ended otherwise (closed, to a bot or the API): no wait counted.
    if (open && snap.userId !== null)
      out.duration(state.accountId, at, dimsOf(state), 'wait', state.waitingSince);
    state.waitingSince = null;
  } else if (waiting && state.waitingSince === null) {
    state.waitingSince = at;
  }
  if (open && snap.userId !== null && state.assignedAt === null) state.assignedAt = at;
  // A person takes it (captured, assigned, transferred to them, reopened by them): theirs to attend.
  if (open && snap.userId !== null && snap.userId !== attendantBefore)
    out.count(state.accountId, at, dimsOf(state), 'attended');
}

/**
 * Applies one event: updates its conversation's state (`states`, by chat id, loaded before) and adds
 * its facts to `out`. Answers the chat whose state changed, if any.
 */
export function applyEvent(states: Map<string, ChatState>, ev: LogEvent, out: Deltas): string | null {
  const { accountId: account, at, data } = ev;
  const snap = snapshotOf(data);
  if (ev.event === 'chat.new' && snap) {
    const state = newState(account, snap);
    state.cycleStartedAt = at;
    states.set(snap.id, state);
    observe(state, snap, at, out, true);
    out.count(account, at, dimsOf(state), 'opened');
    return snap.id;
  }
  if (ev.event === 'chat.csat') {
    const csat = obj(data.csat);
    const score = typeof csat?.score === 'number' ? csat.score : 0;
    const chat = obj(data.chat);
    const chatId = str(csat?.chatId);
    if (score < 1 || score > 5 || !csat || !chatId) return null;
    const state = states.get(chatId);
    const dims: Dims = {
      team: str(csat.teamId) ?? state?.team ?? '',
      user: str(csat.userId) ?? '',
      channel: str(chat?.channelId) ?? state?.channel ?? '',
      labels: state?.labels ?? [],
    };
    out.add(account, at, dims, (acc) => (acc.csat[score - 1] = (acc.csat[score - 1] ?? 0) + 1));
    return null;
  }
  if (ev.event === 'message.upsert') return applyMessage(states, ev, out);
  if (!snap || ev.event === 'chat.split') return null;
  let state = states.get(snap.id);
  if (!state) {
    state = newState(account, snap);
    states.set(snap.id, state);
  }
  switch (ev.event) {
    case 'chat.transfer': {
      // A bot's conversation handed to people is a hand-off, not a transfer.
      if (state.queue !== QUEUE_BOT) {
        const from = obj(data.from);
        const team = str(from?.teamId) ?? state.team;
        out.count(account, at, { ...dimsOf(state), team, user: str(from?.userId) ?? '' }, 'transfers');
      }
      observe(state, snap, at, out);
      break;
    }
    case 'chat.close': {
      observe(state, snap, at, out);
      const dims = dimsOf(state);
      out.count(account, at, dims, 'closed');
      if (state.cycleStartedAt !== null) out.duration(account, at, dims, 'resolution', state.cycleStartedAt);
      if (state.assignedAt !== null && snap.userId !== null)
        out.duration(account, at, dims, 'handling', state.assignedAt);
      if (snap.sla?.resDue != null && !snap.sla.resBreached) out.count(account, at, dims, 'sla_res_met');
      Object.assign(state, { closedAt: at, cycleStartedAt: null, assignedAt: null, waitingSince: null });
      break;
    }
    case 'chat.reopen': {
      Object.assign(state, { closedAt: null, cycleStartedAt: at, assignedAt: null, waitingSince: null });
      // Never answered before its close: its first response counts from the reopening.
      if (state.firstResponseAt === null) state.humanSince = null;
      observe(state, snap, at, out);
      out.count(account, at, dimsOf(state), 'reopened');
      break;
    }
    case 'sla.breached': {
      observe(state, snap, at, out);
      const kind = str(data.kind);
      if (kind === 'first_response') state.firstResponseBreached = true;
      out.count(
        account,
        at,
        dimsOf(state),
        kind === 'first_response' ? 'sla_fr_breached' : 'sla_res_breached',
      );
      break;
    }
    default:
      observe(state, snap, at, out);
  }
  return snap.id;
}

/** A message: in or out, and the conversation's first response by a person. */
function applyMessage(states: Map<string, ChatState>, ev: LogEvent, out: Deltas): string | null {
  const chatId = str(ev.data.chatId);
  const message = obj(ev.data.message);
  const state = chatId ? states.get(chatId) : undefined;
  if (!state || !message) return null;
  const origin = str(message.origin);
  const dims = dimsOf(state);
  out.count(ev.accountId, ev.at, dims, origin === 'contact' ? 'messages_in' : 'messages_out');
  const byPerson = (origin === 'user' || origin === 'api') && message.automation == null;
  if (!byPerson || state.status !== 'open' || state.humanSince === null || state.firstResponseAt !== null)
    return null;
  state.firstResponseAt = ev.at;
  out.duration(ev.accountId, ev.at, dims, 'fr', state.humanSince);
  const due = state.firstResponseDueAt;
  // A late response is counted as breached by the breach itself (`sla.breached`), once.
  if (due !== null && !state.firstResponseBreached && ev.at <= due)
    out.count(ev.accountId, ev.at, dims, 'sla_fr_met');
  return state.chatId;
}

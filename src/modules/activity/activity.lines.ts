import { obj, str, type JsonObject } from '../../lib/json-read.js';
import type { ActorRefT } from '../chats/index.js';
import type { ActivityT } from './activity.schemas.js';

/** What a line says beyond its event's id, seq and time. */
type Line = Omit<ActivityT, 'id' | 'seq' | 'at'>;

const by = (d: JsonObject): ActorRefT | null => {
  const b = obj(d.by);
  const type = str(b?.type);
  const id = str(b?.id);
  return (type === 'user' || type === 'api_key') && id !== undefined ? { type, id } : null;
};
const nullable = (v: unknown): string | null => str(v) ?? null;
const line = (kind: string, d: JsonObject, rest: Partial<Line> = {}): Line => ({
  kind,
  by: by(d),
  from: null,
  to: null,
  reasonCode: null,
  reason: null,
  ...rest,
});
const teamUser = (v: unknown) => {
  const p = obj(v);
  return { teamId: nullable(p?.teamId), userId: nullable(p?.userId) };
};

/**
 * The activity lines of a conversation, one entry per event of the log: the event's name and how its
 * `data` (its chat trimmed to `teamId`, `userId`, `queue`) reads as a line. Only these events are read
 * back; an event added to the catalogue shows in the timeline with one entry here (and its words in
 * the console's `activity.*` strings).
 */
export const ACTIVITY_LINES: Readonly<Record<string, (data: JsonObject) => Line>> = {
  // Events recorded before `by` existed: who captured is who attends.
  'chat.capture': (d) => {
    const attendant = str(obj(d.chat)?.userId);
    // Automatic assignment: nobody acted; to whom, and the team's mode.
    const mode = str(obj(d.assignment)?.mode);
    if (mode !== undefined) {
      return line('assign.auto', d, { to: { userId: attendant ?? null }, reasonCode: mode });
    }
    const l = line('capture', d);
    return l.by === null && attendant ? { ...l, by: { type: 'user', id: attendant } } : l;
  },
  // A supervisor taking a conversation over is a transfer to themself with its own reason code.
  'chat.transfer': (d) => {
    const to = teamUser(d.to);
    const kind =
      to.userId === null ? 'transfer.team' : d.reasonCode === 'takeover' ? 'takeover' : 'transfer.user';
    return line(kind, d, {
      from: teamUser(d.from),
      to,
      reasonCode: nullable(d.reasonCode),
      reason: nullable(d.reason),
    });
  },
  'chat.queue': (d) =>
    line('queue', d, { from: { queue: str(d.from) ?? '' }, to: { queue: str(d.to) ?? '' } }),
  'chat.close': (d) => line('close', d),
  // Its `by` is the user's id.
  'chat.reopen': (d) => {
    const id = str(d.by);
    return { ...line('reopen', d), by: id === undefined ? null : { type: 'user', id } };
  },
  'chat.labels': (d) => {
    const l = obj(d.label);
    const [id, name, color] = [str(l?.id), str(l?.name), str(l?.color)];
    return line(d.action === 'removed' ? 'label.removed' : 'label.added', d, {
      ...(id !== undefined && name !== undefined ? { label: { id, name, color: color ?? '' } } : {}),
    });
  },
  'chat.split': (d) => line('split', d),
  // Snoozed until a time (null: until the customer writes); back by `time`, `customer_message` or `manual`.
  'chat.snoozed': (d) => line('snoozed', d, { until: nullable(d.until) }),
  'chat.unsnoozed': (d) => line('unsnoozed', d, { reasonCode: nullable(d.reason) }),
  // A bot's hold ended: why (`handoff`, `agent`, `timeout`, `failing`, `closed`, `deleted`) and which bot.
  'chat.bot_released': (d) =>
    line('bot.released', d, { reasonCode: nullable(d.reason), from: { botId: str(d.botId) ?? '' } }),
};

export const ACTIVITY_EVENTS = Object.keys(ACTIVITY_LINES);

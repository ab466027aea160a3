/**
 * The rollups' grains: which dimensions a row is keyed by ('' for the others). Each fact is added to
 * one row of every grain (to one row per label of the conversation in the label grains), so a report
 * reads the smallest grain that holds the dimensions it filters and groups by.
 */
export type Dim = 'team' | 'user' | 'channel' | 'label';

export const GRAINS: readonly (readonly Dim[])[] = [
  [],
  ['team'],
  ['team', 'user'],
  ['team', 'channel'],
  ['team', 'label'],
  ['team', 'user', 'channel'],
  ['team', 'user', 'channel', 'label'],
];

/** The smallest grain keyed by every dimension of `dims`. */
export function grainFor(dims: ReadonlySet<Dim>): number {
  const i = GRAINS.findIndex((g) => [...dims].every((d) => g.includes(d)));
  return i < 0 ? GRAINS.length - 1 : i;
}

/** The key of a fact in grain `g`. */
export interface FactKey {
  team: string;
  user: string;
  channel: string;
  label: string;
}

export function keyIn(grain: number, k: FactKey): FactKey {
  const dims = GRAINS[grain] ?? [];
  return {
    team: dims.includes('team') ? k.team : '',
    user: dims.includes('user') ? k.user : '',
    channel: dims.includes('channel') ? k.channel : '',
    label: dims.includes('label') ? k.label : '',
  };
}

/** Rows of an hour (UTC), and rows of a local day in the reports' day zone. */
export const SPAN_HOUR = 0;
export const SPAN_DAY = 1;
/**
 * The zone of the day rows: the product's default. A daily report in this zone reads one row per day
 * and key instead of 24; any other zone, or hours, reads the hour rows.
 */
export const REPORT_DAY_ZONE = 'America/Sao_Paulo';

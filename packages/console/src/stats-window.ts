// The Overview's window: today, the last 7, 30 or 90 days, or dates chosen by hand, kept in the URL
// (`?days=7`, `?since=2026-01-01&until=2026-01-31`) so that a window can be linked to and reloaded. A
// preset stays relative: a link to the last 7 days shows the last 7 days on the day it is opened. Days
// are UTC days, as GET /verifications/stats counts them, both ends included.

export const PRESETS = [1, 7, 30, 90] as const;
export type Preset = (typeof PRESETS)[number];
/** The window without a choice in the URL: the statistics' own default. */
export const DEFAULT_DAYS: Preset = 30;

export const PRESET_LABELS: Record<Preset, string> = { 1: 'Today', 7: 'Last 7 days', 30: 'Last 30 days', 90: 'Last 90 days' };

export type StatsWindow =
  | { kind: 'preset'; days: Preset; since: string; until: string }
  /** Dates as the URL gives them: the API names what it refuses (an impossible date, until before since, over 366 days). */
  | { kind: 'custom'; since: string; until: string };

const DAY_MS = 86_400_000;

/** The UTC day of a time, YYYY-MM-DD. */
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** The window a URL's query names: custom dates when it has either, else its preset (an unknown one is the default). */
export function windowOf(query: URLSearchParams, now = Date.now()): StatsWindow {
  const since = query.get('since') ?? '';
  const until = query.get('until') ?? '';
  if (since !== '' || until !== '') return { kind: 'custom', since, until };
  const days = PRESETS.find((d) => String(d) === query.get('days')) ?? DEFAULT_DAYS;
  return { kind: 'preset', days, since: utcDay(now - (days - 1) * DAY_MS), until: utcDay(now) };
}

/** The query of GET /verifications/stats for a window: a custom end left empty takes the API's default. */
export const statsQuery = (chosen: StatsWindow) => ({ since: chosen.since || undefined, until: chosen.until || undefined });

/** The Overview's heading for a window, with the days the answer covers. */
export function windowTitle(chosen: StatsWindow, answered: { since: string; until: string }): string {
  const span = answered.since === answered.until ? answered.since : `${answered.since} to ${answered.until}`;
  return chosen.kind === 'preset' ? `${PRESET_LABELS[chosen.days]} (${span})` : span;
}

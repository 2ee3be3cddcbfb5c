// Reading a world's verifications back: the keyset list and the statistics of a window
// (docs/read-api.md). Rules only; SQL is in repository.ts and scan-counts.ts.
import type { Kernel } from '../kernel.js';
import { pageOf } from '../http/query.js';
import type { World } from '../world.js';
import { DAY_MICROS, type VerificationListing } from './list-query.js';
import * as verificationsRepo from './repository.js';
import * as scanCountsRepo from './scan-counts.js';
import { REASONS } from './schemas.js';
import { SIGNALS, type Signal } from '../signals/index.js';
import * as signalCountsRepo from '../signals/index.js';
import { groupBy } from '../group-by.js';

type Reason = (typeof REASONS)[number];

/**
 * The reasons a filter admits, undefined for all. A scan is genuine exactly when its reason is `ok`
 * (decide.ts, service.ts), so both filters are a set of reasons, each a range of one index.
 */
function reasonsOf(genuine: boolean | undefined, reason: Reason | undefined): Reason[] | undefined {
  if (genuine === undefined && reason === undefined) return undefined;
  return REASONS.filter((r) => (reason === undefined || r === reason) && (genuine === undefined || (r === 'ok') === genuine));
}

export async function listVerifications(ctx: Kernel, world: World, listing: VerificationListing) {
  const { genuine, reason, size, ...filter } = listing;
  const found = await verificationsRepo.listVerifications(ctx.db.kysely, world, { ...filter, reasons: reasonsOf(genuine, reason), limit: size + 1 });
  const { rows, more } = pageOf(found, size);
  const last = rows.at(-1);
  return { rows, next: more && last ? ([last.scanned_at, last.id] as const) : null };
}

export interface Counts {
  count: number;
  flagged: number;
  by_reason: Record<Reason, number>;
  by_signal: Record<Signal, number>;
  by_country: { country: string | null; count: number; flagged: number }[];
}

function tally(
  rows: readonly scanCountsRepo.ScanCountRow[],
  signalRows: readonly signalCountsRepo.SignalCountRow[],
  flaggedRows: readonly signalCountsRepo.FlaggedCountRow[],
): Counts {
  const bySignal = Object.fromEntries(SIGNALS.map((s) => [s, 0])) as Record<Signal, number>;
  let flagged = 0;
  for (const row of signalRows) {
    if (row.signal === signalCountsRepo.FLAGGED) flagged += row.count;
    else if (row.signal in bySignal) bySignal[row.signal as Signal] += row.count;
  }
  const byReason = Object.fromEntries(REASONS.map((r) => [r, 0])) as Record<Reason, number>;
  const byCountry = new Map<string, { count: number; flagged: number }>();
  const countryOf = (country: string) => {
    let counted = byCountry.get(country);
    if (!counted) byCountry.set(country, (counted = { count: 0, flagged: 0 }));
    return counted;
  };
  let count = 0;
  for (const row of rows) {
    count += row.count;
    // A reason this version does not know is in the total only.
    if (row.reason in byReason) byReason[row.reason as Reason] += row.count;
    countryOf(row.country).count += row.count;
  }
  for (const row of flaggedRows) countryOf(row.country).flagged += row.count;
  const countries = [...byCountry.entries()]
    .sort(([a, x], [b, y]) => y.count - x.count || (a < b ? -1 : 1))
    .map(([c, n]) => ({ country: c === '' ? null : c, count: n.count, flagged: n.flagged }));
  return { count, flagged, by_reason: byReason, by_signal: bySignal, by_country: countries };
}

/** Counts per UTC day (every day of the window, zeros included) and over the window. */
export async function verificationStats(ctx: Kernel, world: World, window: { since: number; until: number }) {
  const since = scanCountsRepo.utcDay(window.since);
  const until = scanCountsRepo.utcDay(window.until);
  const [rows, signalRows, flaggedRows] = await Promise.all([
    scanCountsRepo.findScanCounts(ctx.db.kysely, world, since, until),
    signalCountsRepo.findSignalCounts(ctx.db.kysely, world, since, until),
    signalCountsRepo.findFlaggedCounts(ctx.db.kysely, world, since, until),
  ]);
  const byDay = groupBy(rows, (row) => row.day);
  const signalsByDay = groupBy(signalRows, (row) => row.day);
  const flaggedByDay = groupBy(flaggedRows, (row) => row.day);
  const days = [];
  for (let at = window.since; at <= window.until; at += DAY_MICROS) {
    const day = scanCountsRepo.utcDay(at);
    days.push({ day, ...tally(byDay.get(day) ?? [], signalsByDay.get(day) ?? [], flaggedByDay.get(day) ?? []) });
  }
  return { since, until, totals: tally(rows, signalRows, flaggedRows), days };
}

// Deciding a scan's signals, pure. They are decided with the verdict, in the same arrival order and
// against the same locked chip (src/verifications/decide.ts), so that two servers sharing a database
// see one history. They never change the verdict.
import type { Signal } from './names.js';
import type { Thresholds } from './thresholds.js';

/** What the chip remembers of its tag's genuine scans, as the batch reads and advances it. */
export interface SignalState {
  /** The read counter of the last genuine scan of this write generation; null before the first. */
  last_counter: number | null;
  /** The previous genuine scan's country (null when unknown) and time; last_genuine_at null before the first. */
  last_country: string | null;
  last_genuine_at: number | null;
  /** 1 once a genuine scan has reported the TagTamper loop open. */
  tamper_opened: number;
}

/** What a genuine scan brings. */
export interface GenuineScan {
  read_counter: number;
  country: string | null;
  scanned_at: number;
  tamper_permanent: string | null;
}

const MICROS = 1_000_000;

const NONE: readonly Signal[] = Object.freeze([]);

/** A genuine scan's signals against the chip as it was before the scan (nearly always none: one shared empty list). */
export function genuineSignals(chip: SignalState, scan: GenuineScan, limits: Thresholds): readonly Signal[] {
  const gap = chip.last_counter !== null && scan.read_counter - chip.last_counter > limits.counter_gap;
  const jump =
    chip.last_genuine_at !== null &&
    chip.last_country !== null &&
    scan.country !== null &&
    scan.country !== chip.last_country &&
    scan.scanned_at - chip.last_genuine_at < limits.country_jump_window * MICROS;
  // The permanent status latches: once a genuine scan said open, every later genuine scan is of an opened tag.
  const tamper: Signal | null = chip.tamper_opened === 1 ? 'tamper_open' : scan.tamper_permanent === 'open' ? 'tamper_opened' : null;
  if (!gap && !jump && tamper === null) return NONE;
  const signals: Signal[] = [];
  // Reads between the last genuine one and this one that nobody verified: URLs taken and not sent.
  if (gap) signals.push('counter_gap');
  if (jump) signals.push('country_jump');
  if (tamper !== null) signals.push(tamper);
  return signals;
}

/** Advances the chip's memory past a genuine scan (in place: the batch's copy of the locked chip). */
export function advanceGenuine(chip: SignalState, scan: GenuineScan): void {
  chip.last_country = scan.country;
  chip.last_genuine_at = scan.scanned_at;
  if (scan.tamper_permanent === 'open') chip.tamper_opened = 1;
}

/** The window replay_burst counts refused scans in: the hour up to and including the scan. */
export const BURST_WINDOW_MICROS = 3600 * MICROS;

/**
 * Whether a refused scan makes a burst: `earlier` are the times of the tag's refused scans decided before
 * it (any order, any age); it counts itself. A scan timed a little later by another process but committed
 * first is one of them: the count follows the order of decision, which every process agrees on.
 */
export function isBurst(scannedAt: number, earlier: Iterable<number>, limits: Thresholds): boolean {
  let count = 1;
  for (const at of earlier) if (at > scannedAt - BURST_WINDOW_MICROS) count += 1;
  return count >= limits.replay_burst;
}

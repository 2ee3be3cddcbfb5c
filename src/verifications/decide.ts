// The scan decision, pure: a batch's authentic scans in arrival order against
// their chips. A counter above the chip's last accepted one (in the same write
// generation) is genuine and advances the chip; anything else is a reload or a
// replay, which needs the stored verifications (src/verifications/scan-commit.ts).
// A repeat of the newest accepted URL within the tag's session_duration is a page
// reload and answers the original; an older URL, once a newer counter has been
// accepted, is a replay whatever the time (docs/api.md, verifications). A genuine scan's
// counterfeit signals are decided here too, against the same chip (src/signals/detect.ts).
import { advanceGenuine, genuineSignals } from '../signals/index.js';
import { storedSignals } from '../signals/index.js';
import type { Thresholds } from '../signals/index.js';
import { placeGenuineScan } from '../sessions/index.js';
import type { SessionRow } from '../sessions/index.js';
import type { LockedChip } from '../tag-chips/index.js';
import type { ChipAdvance, VerificationRow } from './repository.js';

/**
 * A scan whose SUN message is authentic: genuine if its counter is fresh, else a reload or a replay. Its row
 * is the verification to store but for its reason, genuineness and session, and carries everything the
 * decision reads (tag, write generation, counter, URL hash, time). Plain data: it crosses to the commit thread.
 */
export interface AuthenticScan {
  kind: 'authentic';
  row: VerificationRow & { read_counter: number };
  /** The world's signal thresholds when the scan arrived. */
  limits: Thresholds;
}

/** A scan already judged (bad_cmac, bad_picc_data, uid_mismatch): stored as is but for its signals. */
export interface FailedScan {
  kind: 'failed';
  row: VerificationRow;
  limits: Thresholds;
}

export type Scan = AuthenticScan | FailedScan;

export const decided = (scan: AuthenticScan, reason: 'ok' | 'replayed', sessionId: string | null, signals: string | null = null): VerificationRow => ({
  ...scan.row,
  genuine: reason === 'ok' ? 1 : 0,
  reason,
  session_id: sessionId,
  signals,
});

/**
 * A batch's decisions against its chips. `losers` are the authentic scans not fresh (a reload or a replay), each
 * with the chip's newest accepted counter at its turn: only a URL of that counter can be a reload.
 */
export interface Decision {
  results: (VerificationRow | undefined)[];
  inserts: VerificationRow[];
  sessions: SessionRow[];
  advances: ChipAdvance[];
  acceptedHere: Map<string, VerificationRow>;
  losers: { index: number; newest: number | null }[];
}

/** Decides the fresh scans in arrival order against `chips`, advancing them in place. */
export function decide(scans: Scan[], chips: Map<string, LockedChip>): Decision {
  const d: Decision = { results: new Array(scans.length), inserts: [], sessions: [], advances: [], acceptedHere: new Map(), losers: [] };
  const before = new Map<LockedChip, LockedChip>();
  scans.forEach((scan, i) => {
    if (scan.kind === 'failed') {
      d.results[i] = scan.row;
      d.inserts.push(scan.row);
      return;
    }
    const { row } = scan;
    const chip = chips.get(row.tag_id);
    // A scan checked against another write generation's keys (a cached lookup
    // that predates a rewrite) is not accepted; nor is a counter not above the last.
    const sameGeneration = chip !== undefined && chip.write_generation === row.write_generation;
    if (!sameGeneration || (chip.last_counter !== null && row.read_counter <= chip.last_counter)) {
      d.losers.push({ index: i, newest: sameGeneration ? chip.last_counter : null });
      return;
    }
    if (!before.has(chip)) before.set(chip, { ...chip });
    const signals = genuineSignals(chip, row, scan.limits);
    advanceGenuine(chip, row);
    chip.last_counter = row.read_counter;
    const world = { teamId: row.team_id, mode: row.mode };
    const { sessionId, opened } = placeGenuineScan(world, { id: row.tag_id, session_duration: chip.session_duration }, chip, row.scanned_at);
    if (opened) d.sessions.push(opened);
    const accepted = decided(scan, 'ok', sessionId, storedSignals(signals));
    d.results[i] = accepted;
    d.inserts.push(accepted);
    d.acceptedHere.set(`${row.tag_id} ${row.url_hash}`, accepted);
  });
  for (const [after, was] of before) d.advances.push({ before: was, after });
  return d;
}

// Opening and joining cases in the scan's commit (docs/cases.md#how-a-case-opens): under the tags' chip
// locks, next to verification.flagged, so every process agrees on a tag's one unresolved case and a
// crash loses the scan and its place in a case together or neither.
import type { Executor } from '../db/database.js';
import type { Mode } from '../db/schema.js';
import { newId } from '../ids.js';
import { queueCaseOpened } from '../mail/index.js';
import { SIGNALS, signalsOf, storedSignals } from '../signals/index.js';
import { countsOf, emptyCounts } from './counts.js';
import type { VerificationRow } from '../verifications/index.js';
import { announceCases } from './events.js';
import * as casesRepo from './repository.js';
import type { CaseRow } from './repository.js';

/** `row` with one more flagged scan. */
function joined(row: CaseRow, scan: VerificationRow): CaseRow {
  const counts = countsOf(row.signal_counts);
  for (const signal of signalsOf(scan.signals)) counts[signal] += 1;
  const countries = new Set(JSON.parse(row.countries) as string[]);
  if (scan.country !== null) countries.add(scan.country);
  return {
    ...row,
    scans: row.scans + 1,
    last_seen_at: Math.max(row.last_seen_at, scan.scanned_at),
    signal_counts: JSON.stringify(counts),
    signals: storedSignals(SIGNALS.filter((s) => counts[s] > 0)) ?? '',
    countries: JSON.stringify([...countries].sort()),
  };
}

function opened(scan: VerificationRow, previous: string | undefined): CaseRow {
  const empty: CaseRow = {
    id: newId('case'),
    team_id: scan.team_id,
    mode: scan.mode as Mode,
    tag_id: scan.tag_id,
    state: 'open',
    opened_at: scan.scanned_at,
    last_seen_at: scan.scanned_at,
    updated_at: scan.scanned_at,
    scans: 0,
    signals: '',
    signal_counts: JSON.stringify(emptyCounts()),
    countries: '[]',
    assignee_id: null,
    resolution: null,
    resolution_note: null,
    previous_case_id: previous ?? null,
    acknowledged_at: null,
    resolved_at: null,
  };
  return joined(empty, scan);
}

/**
 * In the scan's commit (the tags' chips locked): each flagged verification, in arrival order, joins its
 * tag's unresolved case, or opens one that links the tag's previous (resolved) case.
 */
export async function openOrJoinCases(db: Executor, rows: VerificationRow[]): Promise<void> {
  const tagIds = [...new Set(rows.map((row) => row.tag_id))];
  const unresolved = new Map((await casesRepo.lockUnresolved(db, tagIds)).map((row) => [row.tag_id, row]));
  const missing = tagIds.filter((id) => !unresolved.has(id));
  const previous = missing.length === 0 ? new Map<string, string>() : await casesRepo.newestCases(db, missing);
  const created = new Map<string, CaseRow>();
  const changed = new Map<string, CaseRow>();
  const scans = [];
  for (const scan of rows) {
    const current = created.get(scan.tag_id) ?? changed.get(scan.tag_id) ?? unresolved.get(scan.tag_id);
    const next = current === undefined ? opened(scan, previous.get(scan.tag_id)) : joined(current, scan);
    (created.has(scan.tag_id) || current === undefined ? created : changed).set(scan.tag_id, next);
    scans.push({ case_id: next.id, scanned_at: scan.scanned_at, verification_id: scan.id });
  }
  await casesRepo.saveCases(db, [...created.values(), ...changed.values()]);
  await casesRepo.insertCaseScans(db, scans);
  await announceCases(db, 'case.opened', [...created.values()], rows.at(-1)!.scanned_at);
  await queueCaseOpened(db, [...created.values()]);
}

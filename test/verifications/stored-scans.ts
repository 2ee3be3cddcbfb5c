// Scans written straight into the database as the verify path stores them (rows and their per-day counts
// in one transaction, by the verify path's own outcome write), for the list, filter and statistics tests
// that need many of them at chosen times.
import { newId } from '../../src/ids.js';
import type { Mode } from '../../src/db/schema.js';
import { writeOutcomes, type VerificationRow } from '../../src/verifications/repository.js';
import type { TestServer } from '../kit/harness.js';

export function scanRow(
  world: { teamId: string },
  mode: Mode,
  tagId: string,
  scannedAt: number,
  reason: string,
  country: string | null,
  signals: string | null = null,
): VerificationRow {
  return {
    id: newId('vrf'),
    team_id: world.teamId,
    mode,
    tag_id: tagId,
    genuine: reason === 'ok' ? 1 : 0,
    reason,
    read_counter: null,
    tamper_permanent: null,
    tamper_current: null,
    session_id: null,
    scanned_at: scannedAt,
    url_hash: 'h',
    client_ip: null,
    country,
    write_generation: 1,
    signals,
  };
}

/** Stores rows as the verify path does: the verifications and their counts (per reason, signal and country) in one transaction. */
export async function storeScans(server: TestServer, rows: VerificationRow[]): Promise<void> {
  await server.ctx.db.kysely.transaction().execute((trx) => writeOutcomes(trx, [], [], rows));
}

/** The ids in the lists' order: newest first, then by id, descending. */
export const newestFirst = (rows: VerificationRow[]) => [...rows].sort((a, b) => b.scanned_at - a.scanned_at || (a.id < b.id ? 1 : -1)).map((r) => r.id);

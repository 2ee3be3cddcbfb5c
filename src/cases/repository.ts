// All SQL on cases, their scans and their notes (docs/cases.md).
import { sql } from 'kysely';
import { inChunks } from '../db/chunked.js';
import { lockedForUpdate, type Executor } from '../db/database.js';
import { executeShaped } from '../db/precompiled.js';
import type { CaseNotesTable, CaseScansTable, CaseState, CasesTable } from '../db/schema.js';
import { isId } from '../ids.js';
import { signalPattern, type Signal } from '../signals/index.js';
import type { World } from '../world.js';

export type CaseRow = CasesTable;
export type CaseNoteRow = CaseNotesTable;
export type CaseScanRow = CaseScansTable;

/** The unresolved cases of these tags, locked until the transaction ends (PostgreSQL): a triage waits for the scan's commit, and the other way round. */
export function lockUnresolved(db: Executor, tagIds: string[]): Promise<CaseRow[]> {
  return lockedForUpdate(db, db.selectFrom('cases').selectAll().where('tag_id', 'in', tagIds).where('state', '<>', 'resolved').orderBy('id')).execute();
}

/** Each tag's newest case (a resolved one, when the tag has no unresolved case), which a new case links to. */
export async function newestCases(db: Executor, tagIds: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const tagId of tagIds) {
    const row = await db
      .selectFrom('cases')
      .select('id')
      .where('tag_id', '=', tagId)
      .orderBy('opened_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (row) out.set(tagId, row.id);
  }
  return out;
}

/**
 * Writes the cases a batch of scans opened or joined, in one statement compiled once per shape (the scan's
 * commit): a new case is inserted, a joined one gets its progress (its triage is left as it is).
 */
export async function saveCases(db: Executor, rows: CaseRow[]): Promise<void> {
  await inChunks(rows, (part) =>
    executeShaped(db, 'saveCases', part, (d, p) =>
      d
        .insertInto('cases')
        .values(p)
        .onConflict((oc) =>
          oc.column('id').doUpdateSet((eb) => ({
            last_seen_at: eb.ref('excluded.last_seen_at'),
            scans: eb.ref('excluded.scans'),
            signals: eb.ref('excluded.signals'),
            signal_counts: eb.ref('excluded.signal_counts'),
            countries: eb.ref('excluded.countries'),
          })),
        ),
    ),
  );
}

export async function insertCaseScans(db: Executor, rows: CaseScanRow[]): Promise<void> {
  await inChunks(rows, (part) => executeShaped(db, 'insertCaseScans', part, (d, p) => d.insertInto('case_scans').values(p)));
}

export async function findCase(db: Executor, world: World, id: string): Promise<CaseRow | undefined> {
  if (!isId('case', id)) return undefined;
  return db.selectFrom('cases').selectAll().where('id', '=', id).where('team_id', '=', world.teamId).where('mode', '=', world.mode).executeTakeFirst();
}

/** The case, locked until the transaction ends (PostgreSQL): a scan joining it waits for the triage's commit. */
export async function findCaseForUpdate(db: Executor, world: World, id: string): Promise<CaseRow | undefined> {
  if (!isId('case', id)) return undefined;
  return lockedForUpdate(
    db,
    db.selectFrom('cases').selectAll().where('id', '=', id).where('team_id', '=', world.teamId).where('mode', '=', world.mode),
  ).executeTakeFirst();
}

export type CaseChanges = Partial<Pick<CaseRow, 'state' | 'assignee_id' | 'resolution' | 'resolution_note' | 'acknowledged_at' | 'resolved_at' | 'updated_at'>>;

export async function updateCase(db: Executor, id: string, changes: CaseChanges): Promise<void> {
  await db.updateTable('cases').set(changes).where('id', '=', id).execute();
}

export interface CaseFilter {
  state?: CaseState;
  signal?: Signal;
  tagId?: string;
  /** A person's id, or null for the unassigned. */
  assigneeId?: string | null;
  since?: number;
  until?: number;
}

function filtered(db: Executor, world: World, filter: CaseFilter) {
  let query = db.selectFrom('cases').where('team_id', '=', world.teamId).where('mode', '=', world.mode);
  if (filter.tagId !== undefined) query = query.where('tag_id', '=', filter.tagId);
  if (filter.signal !== undefined) query = query.where(sql<string>`',' || ${sql.ref('signals')} || ','`, 'like', signalPattern(filter.signal));
  if (filter.assigneeId === null) query = query.where('assignee_id', 'is', null);
  else if (filter.assigneeId !== undefined) query = query.where('assignee_id', '=', filter.assigneeId);
  if (filter.since !== undefined) query = query.where('opened_at', '>=', filter.since);
  if (filter.until !== undefined) query = query.where('opened_at', '<', filter.until);
  return query;
}

/** A keyset page of the world's cases, newest opened first. */
export function listCases(db: Executor, world: World, filter: CaseFilter & { before?: readonly [number, string]; limit: number }): Promise<CaseRow[]> {
  let query = filtered(db, world, filter).selectAll();
  if (filter.state !== undefined) query = query.where('state', '=', filter.state);
  if (filter.before !== undefined) query = query.where(sql<boolean>`(opened_at, id) < (${filter.before[0]}, ${filter.before[1]})`);
  return query.orderBy('opened_at', 'desc').orderBy('id', 'desc').limit(filter.limit).execute();
}

/** How many cases of the filter are in each state (whatever state the list shows). */
export async function countByState(db: Executor, world: World, filter: CaseFilter): Promise<{ state: string; count: number }[]> {
  const rows = await filtered(db, world, filter)
    .select(['state', (eb) => eb.fn.countAll<number | string>().as('count')])
    .groupBy('state')
    .execute();
  return rows.map((row) => ({ state: row.state, count: Number(row.count) }));
}

/** The newest `limit` scans of a case. */
export function caseScans(db: Executor, caseId: string, limit: number): Promise<CaseScanRow[]> {
  return db
    .selectFrom('case_scans')
    .selectAll()
    .where('case_id', '=', caseId)
    .orderBy('scanned_at', 'desc')
    .orderBy('verification_id', 'desc')
    .limit(limit)
    .execute();
}

export async function insertNote(db: Executor, row: CaseNoteRow): Promise<void> {
  await db.insertInto('case_notes').values(row).execute();
}

/** A case's thread, oldest first. */
export function caseNotes(db: Executor, caseId: string): Promise<CaseNoteRow[]> {
  return db.selectFrom('case_notes').selectAll().where('case_id', '=', caseId).orderBy('created_at').orderBy('id').execute();
}

// The rules of cases (docs/cases.md): reading them back, triaging them (state, assignee, resolution) and
// their thread of notes. Every change is audited and announced (case.updated) in its own transaction.
import { changedFields, recordAudit } from '../audit/index.js';
import { inTransaction } from '../db/transaction.js';
import type { CaseState } from '../db/schema.js';
import { DomainError, problem, validationFailed, type FieldProblem } from '../errors.js';
import { fieldProblems } from '../http/field-rules.js';
import { pageOf } from '../http/query.js';
import { newTimeOrderedId } from '../ids.js';
import type { Kernel } from '../kernel.js';
import { findUserInTeam } from '../users/index.js';
import { signalsOf } from '../signals/index.js';
import { findVerifications, previousGenuine, type VerificationRow } from '../verifications/index.js';
import type { Caller, World } from '../world.js';
import { announceCases } from './events.js';
import type { CaseListing } from './list-query.js';
import * as casesRepo from './repository.js';
import type { CaseChanges, CaseNoteRow, CaseRow } from './repository.js';
import { ATTRIBUTES, CASE_STATES, MUTABLE, NOTE_BODY, type Resolution } from './rules.js';
import { CASE_SCANS_SHOWN } from './schemas.js';

type Services = Pick<Kernel, 'db' | 'clock'>;

export async function listCases(ctx: Pick<Kernel, 'db'>, world: World, listing: CaseListing) {
  const { size, before, state, ...filter } = listing;
  const [found, counted] = await Promise.all([
    casesRepo.listCases(ctx.db.kysely, world, { ...filter, state, before, limit: size + 1 }),
    casesRepo.countByState(ctx.db.kysely, world, filter),
  ]);
  const { rows, more } = pageOf(found, size);
  const last = rows.at(-1);
  const counts = Object.fromEntries(CASE_STATES.map((s) => [s, counted.find((c) => c.state === s)?.count ?? 0])) as Record<CaseState, number>;
  return { rows, counts, next: more && last ? ([last.opened_at, last.id] as const) : null };
}

/** A case's scan as GET /cases/:id shows it: in the case, or the genuine scan one of its country jumps came from. */
export interface ShownScan {
  row: VerificationRow;
  inCase: boolean;
  jumpedFrom: string | null;
}

export interface CaseView {
  row: CaseRow;
  scans: ShownScan[];
  notes: CaseNoteRow[];
}

export async function getCase(ctx: Pick<Kernel, 'db'>, world: World, id: string): Promise<CaseView> {
  const db = ctx.db.kysely;
  const row = await casesRepo.findCase(db, world, id);
  if (!row) throw new DomainError('NotFound');
  const listed = await casesRepo.caseScans(db, row.id, CASE_SCANS_SHOWN);
  const found = new Map(
    (
      await findVerifications(
        db,
        world,
        listed.map((s) => s.verification_id),
      )
    ).map((v) => [v.id, v]),
  );
  // A scan pruned by retention (docs/verifications.md) keeps its place in the counts only.
  const rows = listed.flatMap((s) => found.get(s.verification_id) ?? []);
  const scans: ShownScan[] = [];
  const origins: ShownScan[] = [];
  for (const scan of rows) {
    let jumpedFrom: string | null = null;
    if (signalsOf(scan.signals).includes('country_jump')) {
      const origin = await previousGenuine(db, scan.tag_id, [scan.scanned_at, scan.id]);
      if (origin) {
        jumpedFrom = origin.id;
        if (!found.has(origin.id) && !origins.some((o) => o.row.id === origin.id)) origins.push({ row: origin, inCase: false, jumpedFrom: null });
      }
    }
    scans.push({ row: scan, inCase: true, jumpedFrom });
  }
  return { row, scans: [...scans, ...origins], notes: await casesRepo.caseNotes(db, row.id) };
}

const ALLOWED_MOVES: Record<CaseState, readonly CaseState[]> = {
  open: ['open', 'acknowledged', 'resolved'],
  acknowledged: ['acknowledged', 'open', 'resolved'],
  resolved: ['resolved'],
};

function checkAttributes(attributes: Record<string, unknown>): void {
  const errors: FieldProblem[] = [];
  for (const [name, value] of Object.entries(attributes)) {
    if (!(MUTABLE as readonly string[]).includes(name)) errors.push(problem(name, `${name} cannot be set by this operation; one of ${MUTABLE.join(', ')}`));
    else errors.push(...fieldProblems(name, ATTRIBUTES[name as keyof typeof ATTRIBUTES], value, undefined));
  }
  if (errors.length > 0) throw validationFailed(errors);
}

/** The changes a triage makes to `row`, or the 422 naming each attribute it cannot set. */
function triage(row: CaseRow, attributes: Record<string, unknown>, at: number): CaseChanges {
  const errors: FieldProblem[] = [];
  const state = (attributes.state as CaseState | undefined) ?? row.state;
  const resolution = attributes.resolution as Resolution | undefined;
  const note = attributes.resolution_note as string | undefined;
  if (row.state === 'resolved') {
    // Repeating what a resolved case already says is no change (a retried request); anything else is.
    for (const name of MUTABLE)
      if (name in attributes && attributes[name] !== row[name])
        errors.push(problem(name, `the case is resolved and no longer changes; the tag's next flagged scan opens a new case`));
    if (errors.length > 0) throw validationFailed(errors);
    return {};
  }
  if (!ALLOWED_MOVES[row.state].includes(state)) errors.push(problem('state', `a case cannot go from ${row.state} to ${state}`));
  if (state === 'resolved') {
    if (resolution === undefined)
      errors.push(problem('resolution', 'resolution is required to resolve a case: counterfeit_confirmed, false_positive, expected or other'));
    if (resolution === 'other' && note === undefined)
      errors.push(problem('resolution_note', 'resolution_note is required with resolution other: say what it was'));
  } else {
    if (resolution !== undefined) errors.push(problem('resolution', 'resolution is set only when resolving: send it with state resolved'));
    if (note !== undefined) errors.push(problem('resolution_note', 'resolution_note is set only when resolving: send it with state resolved'));
  }
  if (errors.length > 0) throw validationFailed(errors);
  const changes: CaseChanges = {};
  if (state !== row.state) {
    changes.state = state;
    if (state === 'acknowledged' && row.acknowledged_at === null) changes.acknowledged_at = at;
    if (state === 'resolved') Object.assign(changes, { resolved_at: at, resolution, resolution_note: note ?? null });
  }
  if ('assignee_id' in attributes && attributes.assignee_id !== row.assignee_id) changes.assignee_id = attributes.assignee_id as string | null;
  return changes;
}

export async function updateCase(ctx: Services, caller: Caller, id: string, attributes: Record<string, unknown>): Promise<CaseRow> {
  checkAttributes(attributes);
  return inTransaction(ctx.db, async (trx) => {
    const row = await casesRepo.findCaseForUpdate(trx, caller, id);
    if (!row) throw new DomainError('NotFound');
    const at = ctx.clock.nowMicros();
    const changes = triage(row, attributes, at);
    if (changes.assignee_id != null) {
      const person = await findUserInTeam(trx, changes.assignee_id, caller.teamId);
      if (!person || person.disabled_at !== null)
        throw validationFailed([problem('assignee_id', 'assignee_id must be a person of this team whose account is not disabled')]);
    }
    if (Object.keys(changes).length === 0) return row;
    const after: CaseRow = { ...row, ...changes, updated_at: at };
    await casesRepo.updateCase(trx, row.id, { ...changes, updated_at: at });
    const changed = changedFields(row, after, ['state', 'assignee_id', 'resolution', 'resolution_note']);
    await recordAudit(trx, caller, at, [{ operation: 'case.update', resourceId: row.id, changes: changed }]);
    await announceCases(trx, 'case.updated', [after], at, () => ({ changes: changed }));
    return after;
  });
}

export async function addNote(ctx: Services, caller: Caller, id: string, attributes: Record<string, unknown>): Promise<CaseNoteRow> {
  const errors = Object.entries(attributes).flatMap(([name, value]) =>
    name === 'body' ? fieldProblems(name, NOTE_BODY, value, undefined) : [problem(name, `${name} cannot be set by this operation; only body`)],
  );
  if (errors.length > 0) throw validationFailed(errors);
  return inTransaction(ctx.db, async (trx) => {
    const row = await casesRepo.findCaseForUpdate(trx, caller, id);
    if (!row) throw new DomainError('NotFound');
    const at = ctx.clock.nowMicros();
    const note: CaseNoteRow = {
      id: newTimeOrderedId('note', Math.floor(at / 1000)),
      case_id: row.id,
      author_type: caller.actor.type,
      author_id: caller.actor.id,
      body: attributes.body as string,
      created_at: at,
    };
    await casesRepo.insertNote(trx, note);
    await casesRepo.updateCase(trx, row.id, { updated_at: at });
    await recordAudit(trx, caller, at, [{ operation: 'case.add_note', resourceId: row.id, changes: { note: note.id } }]);
    await announceCases(trx, 'case.updated', [{ ...row, updated_at: at }], at, () => ({ changes: { note: { id: note.id, body: note.body } } }));
    return note;
  });
}

// The rules of the tag resource (docs/api.md#tags: states, limits).
// Every operation is one transaction; a failed batch changes nothing.
import type { Db, Executor } from '../db/database.js';
import { inTransaction } from '../db/transaction.js';
import { recordTagEvents } from './events.js';
import { DomainError, problem, validationFailed, type FieldProblem } from '../errors.js';
import { isId, newId } from '../ids.js';
import type { Kernel } from '../kernel.js';
import type { Clock } from '../time.js';
import * as tagsRepo from './repository.js';
import type { ListQuery } from './repository.js';
import type { Caller, World } from '../world.js';
import { changedFields, recordAudit } from '../audit/index.js';
import { CREATABLE, LIMITS, MUTABLE, checkAttributes, type Protocol } from './rules.js';
import type { TagRow } from './serializer.js';

/** What the tag operations that run their own transaction need: the database and the clock that stamps changes. */
export type TagServices = Pick<Kernel, 'db' | 'clock'>;

/** Tag work in a transaction; a url claimed by a concurrent request runs it once more, so that the checks report it. */
const atomically = <T>(db: Db, work: (trx: Executor) => Promise<T>): Promise<T> => inTransaction(db, work, { afterUniqueViolation: true });

export async function createTags({ db, clock }: TagServices, world: Caller, entries: Record<string, unknown>[]): Promise<TagRow[]> {
  const errors: FieldProblem[] = [];
  const firstIndexOfUrl = new Map<string, number>();
  entries.forEach((attributes, index) => {
    const fieldErrors = checkAttributes(attributes, CREATABLE, index);
    errors.push(...fieldErrors);
    const url = attributes.url;
    if (typeof url === 'string' && !fieldErrors.some((e) => e.path === 'url')) {
      const first = firstIndexOfUrl.get(url);
      if (first === undefined) firstIndexOfUrl.set(url, index);
      else errors.push(problem('url', `url is the same as in entry ${first}`, index));
    }
  });
  if (errors.length > 0) throw validationFailed(errors);

  return atomically(db, async (trx) => {
    const rows = await insertCheckedTags(trx, world, entries, clock);
    await recordAudit(trx, world, rows[0]?.inserted_at ?? clock.nowMicros(), rows.map(createdEntry));
    return rows;
  });
}

const createdEntry = (row: TagRow) =>
  ({
    operation: 'tag.create',
    resourceId: row.id,
    changes: { protocol: row.protocol, url: row.url, comment: row.comment, session_duration: row.session_duration },
  }) as const;

/**
 * Inserts entries that passed checkAttributes and have distinct urls, in the
 * world's transaction (POST /tags, and chip import which configures them in
 * the same transaction): 422 when a url is already taken in the world.
 */
export async function insertCheckedTags(trx: Executor, world: World, entries: Record<string, unknown>[], clock: Clock): Promise<TagRow[]> {
  const indexOfUrl = new Map(entries.map((a, index) => [a.url as string, index]));
  const taken = await tagsRepo.findUrlOwners(trx, world, [...indexOfUrl.keys()]);
  if (taken.size > 0) {
    throw validationFailed(
      [...taken.keys()]
        .map((url) => indexOfUrl.get(url)!)
        .sort((a, b) => a - b)
        .map((index) => problem('url', 'url is already used by another tag of this team', index)),
    );
  }
  const at = clock.nowMicros();
  const rows: TagRow[] = entries.map((a) => ({
    id: newId('tag'),
    team_id: world.teamId,
    mode: world.mode,
    protocol: a.protocol as Protocol,
    url: a.url as string,
    comment: (a.comment as string | null | undefined) ?? null,
    session_duration: (a.session_duration as number | undefined) ?? LIMITS.sessionDuration.default,
    status: 'created',
    configured_at: null,
    inserted_at: at,
    updated_at: at,
  }));
  await tagsRepo.insertTags(trx, rows);
  await tagsRepo.adjustTagCount(trx, world, rows.length);
  await recordTagEvents(trx, 'tag.created', rows, at);
  return rows;
}

export async function getTag({ db }: Pick<Kernel, 'db'>, world: World, id: string): Promise<TagRow> {
  const row = await tagsRepo.findTag(db.kysely, world, id);
  if (!row) throw new DomainError('NotFound');
  return row;
}

export interface Update {
  id: string;
  attributes: Record<string, unknown>;
}

/**
 * Applies updates in request order as one transaction. url uniqueness is judged
 * on the final state, so a batch may swap two tags' urls.
 */
export async function updateTags({ db, clock }: TagServices, world: Caller, updates: Update[]): Promise<TagRow[]> {
  const errors = updates.flatMap((u, i) => checkAttributes(u.attributes, MUTABLE, i));
  if (errors.length > 0) throw validationFailed(errors);

  return atomically(db, async (trx) => {
    const existing = await tagsRepo.findTagsForUpdate(trx, world, [...new Set(updates.map((u) => u.id))]);
    if (existing.length !== new Set(updates.map((u) => u.id)).size) throw new DomainError('NotFound');
    const state = new Map(existing.map((row) => [row.id, { ...row }]));
    const original = new Map(existing.map((row) => [row.id, row]));
    const lastUrlWriter = new Map<string, number>();

    updates.forEach((update, index) => {
      const row = state.get(update.id)!;
      const a = update.attributes;
      if ('url' in a && a.url !== row.url) {
        if (row.status === 'configured') {
          errors.push(problem('url', 'url cannot change once the tag is configured', index));
          return;
        }
        row.url = a.url as string;
        lastUrlWriter.set(update.id, index);
      }
      if ('comment' in a) row.comment = a.comment as string | null;
      if ('session_duration' in a) row.session_duration = a.session_duration as number;
    });

    // Final urls must stay unique: among the batch (blame the latest entry that
    // moved a url there), and against tags outside it.
    const taken = 'url is already used by another tag of this team';
    const finalOwner = new Map<string, string>();
    for (const row of state.values()) {
      const other = finalOwner.get(row.url);
      if (other === undefined) {
        finalOwner.set(row.url, row.id);
        continue;
      }
      const blamed = Math.max(lastUrlWriter.get(row.id) ?? -1, lastUrlWriter.get(other) ?? -1);
      errors.push(problem('url', taken, blamed));
    }
    const movedUrls = [...lastUrlWriter.keys()].map((id) => state.get(id)!.url);
    const owners = await tagsRepo.findUrlOwners(trx, world, movedUrls);
    for (const [url, ownerId] of owners) {
      if (state.has(ownerId)) continue; // owned by a tag of this batch: judged above on its final url
      const writer = [...lastUrlWriter.keys()].find((id) => state.get(id)!.url === url)!;
      errors.push(problem('url', taken, lastUrlWriter.get(writer)!));
    }
    if (errors.length > 0) throw validationFailed(dedupe(errors));

    const at = clock.nowMicros();
    const changed = [...state.values()].filter((row) => {
      const before = original.get(row.id)!;
      return row.url !== before.url || row.comment !== before.comment || row.session_duration !== before.session_duration;
    });
    // Urls moving between tags of this batch would collide mid-way on the unique
    // index; park them on a placeholder first (never a valid url: it is longer
    // than LIMITS.urlBytes; not a NUL, which PostgreSQL text cannot hold).
    const swapping = changed.filter((row) => row.url !== original.get(row.id)!.url);
    if (swapping.length > 1) {
      for (const row of swapping) await tagsRepo.updateTag(trx, row.id, { url: `swap:${row.id}:`.padEnd(LIMITS.urlBytes + 1, '~') });
    }
    for (const row of changed) {
      row.updated_at = at;
      await tagsRepo.updateTag(trx, row.id, { url: row.url, comment: row.comment, session_duration: row.session_duration, updated_at: at });
    }
    await recordAudit(
      trx,
      world,
      at,
      changed.map((row) => ({ operation: 'tag.update', resourceId: row.id, changes: changedFields(original.get(row.id)!, row, MUTABLE) })),
    );
    return updates.map((u) => state.get(u.id)!);
  });
}

// What a deleted tag was, so that the record still says which tag it was once the row is gone.
const deletedEntry = (row: TagRow) => ({ operation: 'tag.delete', resourceId: row.id, changes: { url: row.url, comment: row.comment } }) as const;

function dedupe(errors: FieldProblem[]): FieldProblem[] {
  const seen = new Set<string>();
  const key = (e: FieldProblem) => `${e.index}/${e.path}/${e.detail}`;
  return errors.filter((e) => (seen.has(key(e)) ? false : (seen.add(key(e)), true)));
}

export async function deleteTag({ db, clock }: TagServices, world: Caller, id: string): Promise<void> {
  await atomically(db, async (trx) => {
    const row = await tagsRepo.findTagForUpdate(trx, world, id);
    if (!row) throw new DomainError('NotFound');
    if (row.status === 'configured') throw new DomainError('ConfiguredTag');
    await tagsRepo.deleteTags(trx, [id]);
    await tagsRepo.adjustTagCount(trx, world, -1);
    const at = clock.nowMicros();
    await recordTagEvents(trx, 'tag.deleted', [row], at);
    await recordAudit(trx, world, at, [deletedEntry(row)]);
  });
}

/** Deletes the world's unconfigured tags among `ids`; configured ones are kept, foreign ids ignored. */
export async function deleteManyTags({ db, clock }: TagServices, world: Caller, ids: string[]): Promise<{ deleted: string[]; kept: string[] }> {
  return atomically(db, async (trx) => {
    const rows = await tagsRepo.findTagsForUpdate(trx, world, [...new Set(ids)]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    const order = [...new Set(ids)].filter((id) => byId.has(id));
    const doomed = order.map((id) => byId.get(id)!).filter((r) => r.status !== 'configured');
    const kept = order.filter((id) => byId.get(id)!.status === 'configured');
    await tagsRepo.deleteTags(
      trx,
      doomed.map((r) => r.id),
    );
    await tagsRepo.adjustTagCount(trx, world, -doomed.length);
    const at = clock.nowMicros();
    await recordTagEvents(trx, 'tag.deleted', doomed, at);
    await recordAudit(trx, world, at, doomed.map(deletedEntry));
    return { deleted: doomed.map((r) => r.id), kept };
  });
}

/** Most tags a search may name before it is answered by walking the world instead (tagsRepo.searchTagIds). */
const SEARCH_IDS_MAX = 5_000;

export async function listTags(
  { db }: Pick<Kernel, 'db'>,
  world: World,
  list: ListQuery & { uid?: string | null },
): Promise<{ rows: TagRow[]; total: number }> {
  const { uid, ...rest } = list;
  let among = uid ? await tagsRepo.findChipTagIds(db.kysely, world, uid) : null;
  let q = rest.q;
  // A search that the trigram table answers with a few tags becomes those tags (or the tag whose id q is).
  const searched = q === null ? null : await tagsRepo.searchTagIds(db.kysely, world, q, SEARCH_IDS_MAX);
  if (q !== null && searched !== null) {
    const ids = isId('tag', q) ? [...searched, q] : searched;
    among = among === null ? ids : among.filter((id) => ids.includes(id));
    q = null;
  }
  // No tag holds that chip (or matches): nothing to count or list.
  if (among?.length === 0) return { rows: [], total: 0 };
  const filter = { ...rest, q, among };
  const total = tagsRepo.unfiltered(filter) ? await tagsRepo.countTags(db.kysely, world) : await tagsRepo.countFiltered(db.kysely, world, filter);
  // A page past the end needs no query (and an OFFSET there would walk the whole index).
  const rows = filter.offset >= total ? [] : await tagsRepo.listTags(db.kysely, world, filter);
  return { rows, total };
}

/**
 * The chip write succeeded (writer, or import of a chip written elsewhere):
 * `created` → `configured`, `configured_at` and `updated_at` set, `tag.configured`
 * recorded. Runs inside the world's transaction so that key material stored
 * with the write commits together with the status. Undefined when the tag is gone.
 */
export async function configureTag(trx: Executor, world: World, tagId: string, clock: Clock): Promise<TagRow | undefined> {
  const at = clock.nowMicros();
  const configured = await tagsRepo.configureCreatedTag(trx, world, tagId, at);
  if (!configured) {
    // Rare: tell a deleted tag from a configured one only when the update found nothing.
    if (await tagsRepo.findTag(trx, world, tagId)) throw new DomainError('ConfiguredTag');
    return undefined;
  }
  await recordTagEvents(trx, 'tag.configured', [configured], at);
  return configured;
}

/** configureTag for callers that know the tag exists: a missing tag is NotFound. */
export async function markConfigured(trx: Executor, world: World, tagId: string, clock: Clock): Promise<TagRow> {
  const configured = await configureTag(trx, world, tagId, clock);
  if (!configured) throw new DomainError('NotFound');
  return configured;
}

/**
 * The chip write failed: the tag stays `created` (it can be written again); `tag.configuration_failed`
 * is recorded. Nothing is recorded for a tag that is gone (undefined).
 */
export async function recordConfigurationFailure(
  trx: Executor,
  world: World,
  tagId: string,
  clock: Clock,
  reason?: { code: string; detail: string },
): Promise<TagRow | undefined> {
  const row = await tagsRepo.findTagForUpdate(trx, world, tagId);
  if (row) await recordTagEvents(trx, 'tag.configuration_failed', [row], clock.nowMicros(), reason ? { reason } : {});
  return row;
}

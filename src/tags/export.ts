// GET /tags/export: a world's tags with the list's filters as CSV, in id order (docs/read-api.md#tags-as-csv).
// Read one keyset page at a time, each page only once the client has taken the previous one (the stream's
// backpressure), so an export of any size holds one page in memory.
import { Readable } from 'node:stream';
import { csvRecord } from '../http/csv.js';
import { pageOf } from '../http/query.js';
import type { Kernel } from '../kernel.js';
import { isoMicros, isoOrNull } from '../time.js';
import type { World } from '../world.js';
import type { TagListFilter } from './list-query.js';
import * as tagsRepo from './repository.js';

/** Rows per statement: large enough that a statement's cost is spread thin, small enough to hold. */
const PAGE = 1_000;

export const TAG_CSV_COLUMNS = [
  'id',
  'protocol',
  'url',
  'status',
  'comment',
  'session_duration',
  'chip_uid',
  'configured_at',
  'inserted_at',
  'updated_at',
] as const;

export function tagCsv({ db }: Pick<Kernel, 'db'>, world: World, filter: TagListFilter): Readable {
  async function* lines(): AsyncGenerator<string> {
    yield csvRecord(TAG_CSV_COLUMNS);
    const { uid, ...rest } = filter;
    // A UID names at most a few tags: looked up first and read by id, as GET /tags does (repository.ts, filtered).
    const among = uid === null ? null : await tagsRepo.findChipTagIds(db.kysely, world, uid);
    if (among?.length === 0) return;
    let after: string | null = null;
    for (;;) {
      // One row more than the page says whether another statement is needed.
      const read: tagsRepo.TagWithChip[] = await tagsRepo.tagsAfter(db.kysely, world, { ...rest, among }, after, PAGE + 1);
      const { rows, more } = pageOf(read, PAGE);
      let chunk = '';
      for (const r of rows) {
        chunk += csvRecord([
          r.id,
          r.protocol,
          r.url,
          r.status,
          r.comment,
          r.session_duration,
          r.chip_uid,
          isoOrNull(r.configured_at),
          isoMicros(r.inserted_at),
          isoMicros(r.updated_at),
        ]);
      }
      if (chunk !== '') yield chunk;
      if (!more) return;
      after = rows[rows.length - 1]!.id;
    }
  }
  // One page's text per read: the generator runs again only when the socket has taken it.
  return Readable.from(lines(), { objectMode: false, highWaterMark: 1 });
}

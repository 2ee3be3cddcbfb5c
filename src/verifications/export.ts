// GET /verifications/export: a world's scans with the list's filters as CSV, newest first
// (docs/read-api.md#exports). Read one keyset page at a time, each page only once the client has
// taken the previous one (the stream's backpressure), so an export of any size holds one page in
// memory. The tag's url and comment ride along, read per page for the tags it names.
import { Readable } from 'node:stream';
import { csvRecord } from '../http/csv.js';
import type { Kernel } from '../kernel.js';
import * as tagsRepo from '../tags/index.js';
import { isoMicros } from '../time.js';
import type { World } from '../world.js';
import { listVerifications } from './history.js';
import type { VerificationListing } from './list-query.js';

/** Rows per statement: large enough that a statement's cost is spread thin, small enough to hold. */
const PAGE = 1_000;

export const SCAN_CSV_COLUMNS = [
  'id',
  'scanned_at',
  'tag_id',
  'tag_url',
  'tag_comment',
  'genuine',
  'reason',
  'read_counter',
  'signals',
  'country',
  'client_ip',
  'session_id',
  'tamper_permanent',
  'tamper_current',
] as const;

export function scanCsv(ctx: Kernel, world: World, filter: Omit<VerificationListing, 'size' | 'before'>): Readable {
  async function* lines(): AsyncGenerator<string> {
    yield csvRecord(SCAN_CSV_COLUMNS);
    let before: VerificationListing['before'];
    for (;;) {
      const { rows, next } = await listVerifications(ctx, world, { ...filter, size: PAGE, before });
      const tags = new Map((await tagsRepo.findTags(ctx.db.kysely, world, [...new Set(rows.map((r) => r.tag_id))])).map((t) => [t.id, t]));
      let chunk = '';
      for (const r of rows) {
        const tag = tags.get(r.tag_id);
        chunk += csvRecord([
          r.id,
          isoMicros(r.scanned_at),
          r.tag_id,
          tag?.url ?? null,
          tag?.comment ?? null,
          r.genuine === 1,
          r.reason,
          r.read_counter,
          r.signals === null ? null : r.signals.replace(/,/g, ' '),
          r.country,
          r.client_ip,
          r.session_id,
          r.tamper_permanent,
          r.tamper_current,
        ]);
      }
      if (chunk !== '') yield chunk;
      if (next === null) return;
      before = next;
    }
  }
  // One page's text per read: the generator runs again only when the socket has taken it.
  return Readable.from(lines(), { objectMode: false, highWaterMark: 1 });
}

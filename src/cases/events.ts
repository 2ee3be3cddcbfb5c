// The opt-in webhook events case.opened and case.updated (docs/cases.md#events), written to the outbox in
// the transaction of the change: a case opened in a scan's commit, a triage or a note. A scan joining an
// open case sends none: a case's events are its opening and what people do with it, however many scans
// it gathers (verification.flagged announces those).
import type { Executor } from '../db/database.js';
import type { Mode } from '../db/schema.js';
import { groupBy } from '../group-by.js';
import { findTags, renderTag } from '../tags/index.js';
import { recordEvents } from '../webhooks/index.js';
import type { CaseRow } from './repository.js';
import { renderCase } from './serializer.js';

/** Writes one event of `type` per case, with its tag as the API shows it now; `extra` adds members to a case's payload. */
export async function announceCases(
  db: Executor,
  type: 'case.opened' | 'case.updated',
  cases: CaseRow[],
  at: number,
  extra: (row: CaseRow) => Record<string, unknown> = () => ({}),
): Promise<void> {
  for (const group of groupBy(cases, (row) => `${row.team_id} ${row.mode}`).values()) {
    const world = { teamId: group[0]!.team_id, mode: group[0]!.mode as Mode };
    const tags = new Map((await findTags(db, world, [...new Set(group.map((row) => row.tag_id))])).map((tag) => [tag.id, tag]));
    const events = group.map((row) => {
      const tag = tags.get(row.tag_id);
      return { teamId: row.team_id, mode: row.mode, tagId: row.tag_id, data: renderCase(row), extra: { tag: tag ? renderTag(tag) : null, ...extra(row) } };
    });
    await recordEvents(db, type, events, at);
  }
}

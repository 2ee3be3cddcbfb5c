// The opt-in webhook event verification.flagged: a verification that carries a counterfeit signal,
// written to the outbox in the commit that stores it (src/webhooks/outbox.ts), with the tag as the
// API shows it then and the signals.
import type { Executor } from '../db/database.js';
import type { Mode } from '../db/schema.js';
import { groupBy } from '../group-by.js';
import { signalsOf } from '../signals/index.js';
import * as tagsRepo from '../tags/index.js';
import { renderTag } from '../tags/index.js';
import { recordEvents } from '../webhooks/index.js';
import type { VerificationRow } from './repository.js';
import { renderVerification } from './serializer.js';

export async function announceFlagged(db: Executor, rows: VerificationRow[]): Promise<void> {
  if (rows.length === 0) return;
  for (const flagged of groupBy(rows, (row) => `${row.team_id} ${row.mode}`).values()) {
    const world = { teamId: flagged[0]!.team_id, mode: flagged[0]!.mode as Mode };
    const tags = new Map((await tagsRepo.findTags(db, world, [...new Set(flagged.map((row) => row.tag_id))])).map((tag) => [tag.id, tag]));
    const events = flagged.map((row) => ({
      teamId: row.team_id,
      mode: row.mode as Mode,
      tagId: row.tag_id,
      data: renderVerification(row),
      extra: { tag: renderTag(tags.get(row.tag_id)!), signals: signalsOf(row.signals) },
    }));
    await recordEvents(db, 'verification.flagged', events, flagged.at(-1)!.scanned_at);
  }
}

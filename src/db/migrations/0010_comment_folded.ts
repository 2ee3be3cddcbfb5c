import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import { foldComment } from '../../tags/search-fold.js';
import { text } from './helpers.js';

// The comment folded for GET /tags `q` (src/tags/search-fold.ts), computed in
// JavaScript so that both engines match exactly the same way. Existing comments
// are folded here; from now on the tag repository writes it with every comment.
const BACKFILL_CHUNK = 1000;

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema.alterTable('tags').addColumn('comment_folded', text(dialect)).execute();
  let after = '';
  for (;;) {
    const rows: { id: string; comment: string }[] = await db
      .selectFrom('tags')
      .select(['id', 'comment'])
      .where('comment', 'is not', null)
      .where('id', '>', after)
      .orderBy('id')
      .limit(BACKFILL_CHUNK)
      .execute();
    for (const row of rows)
      await db
        .updateTable('tags')
        .set({ comment_folded: foldComment(row.comment) })
        .where('id', '=', row.id)
        .execute();
    if (rows.length < BACKFILL_CHUNK) return;
    after = rows[rows.length - 1]!.id;
  }
}

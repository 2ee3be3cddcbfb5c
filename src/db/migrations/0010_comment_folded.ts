import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import { text } from './helpers.js';

// The comment folded for GET /tags `q` (src/tags/search-fold.ts), computed in
// JavaScript so that both engines match exactly the same way. Existing comments
// are folded here; from now on the tag repository writes it with every comment.
const BACKFILL_CHUNK = 1000;

// The fold as this migration wrote it, kept here rather than imported: a migration
// must produce the same rows whatever the live code later becomes (a change of the
// fold is a migration of its own that refolds every comment).
const foldComment = (comment: string): string => comment.normalize('NFKC').toLowerCase().toUpperCase().toLowerCase().normalize('NFKC').replace(/ς/g, 'σ');

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

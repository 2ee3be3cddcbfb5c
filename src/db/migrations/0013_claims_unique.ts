import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// One claim per verification and URL (docs/extension.md, Claims): repeats of a claim could
// otherwise push a URL's earlier claims out of its list. Repeats already stored keep their
// earliest; the hash stands for the URL, which may be beyond a PostgreSQL index entry.
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db
    .deleteFrom('claims as c')
    .where((outer) =>
      outer.exists(
        outer
          .selectFrom('claims as e')
          .select('e.id')
          .whereRef('e.verification_id', '=', 'c.verification_id')
          .whereRef('e.resource_url_hash', '=', 'c.resource_url_hash')
          .where((eb) =>
            eb.or([
              eb('e.created_at', '<', eb.ref('c.created_at')),
              eb.and([eb('e.created_at', '=', eb.ref('c.created_at')), eb('e.id', '<', eb.ref('c.id'))]),
            ]),
          ),
      ),
    )
    .execute();
  await db.schema.createIndex('claims_verification_url').unique().on('claims').columns(['verification_id', 'resource_url_hash']).execute();
}

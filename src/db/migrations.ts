// One ordered list of migrations for both engines. Where the SQL must differ
// (auto-increment, collation, NULL ordering in indexes) a step asks the dialect;
// everything else is the same builder call.
import { Migrator, sql, type DatabaseIntrospector, type Kysely, type Migration, type MigrationProvider, type TableMetadata } from 'kysely';
import type { Db, Dialect } from './database.js';
import type { Database } from './schema.js';
import * as core from './migrations/0001_core.js';
import * as webhooks from './migrations/0002_webhooks.js';
import * as chipsVerifications from './migrations/0003_chips_verifications.js';
import * as extension from './migrations/0004_extension.js';
import * as masterKeyChecks from './migrations/0006_master_key_checks.js';
import * as writer from './migrations/0005_writer.js';
import * as holdings from './migrations/0009_holdings.js';
import * as commentFolded from './migrations/0010_comment_folded.js';
import * as genuineScansIndex from './migrations/0011_genuine_scans_index.js';
import * as scanChipsGuard from './migrations/0012_scan_chips_guard.js';
import * as claimsUnique from './migrations/0013_claims_unique.js';
import * as ownershipProofs from './migrations/0014_ownership_proofs.js';
import * as readApi from './migrations/0015_read_api.js';
import * as scanCounts from './migrations/0016_scan_counts.js';
import * as keyLastUsed from './migrations/0017_key_last_used.js';
import * as tagWrites from './migrations/0018_tag_writes.js';
import * as oneTagIndex from './migrations/0019_one_tag_index.js';
import * as reasonTimeIndex from './migrations/0020_reason_time_index.js';
import * as signals from './migrations/0021_signals.js';
import * as keyRoles from './migrations/0022_key_roles.js';
import * as chipRekey from './migrations/0024_chip_rekey.js';
import * as challengeScanIndex from './migrations/0025_challenge_scan_index.js';
import * as tagSearch from './migrations/0026_tag_search.js';
import * as chipUidIndex from './migrations/0027_chip_uid_index.js';
import * as masterGenerations from './migrations/0023_master_generations.js';
import * as attemptResponse from './migrations/0028_attempt_response.js';
import * as auditEvents from './migrations/0029_audit_events.js';
import * as countryTimeIndex from './migrations/0030_country_time_index.js';
import * as users from './migrations/0031_users.js';
import * as flagWindows from './migrations/0032_flag_windows.js';
import * as flaggedCounts from './migrations/0033_flagged_counts.js';
import * as cases from './migrations/0034_cases.js';
import * as mail from './migrations/0035_mail.js';
import * as tagIdCollation from './migrations/0036_tag_id_collation.js';

type Step = { up: (db: Kysely<any>, dialect: Dialect) => Promise<void> };

/** Append new steps at the end. The list is the order of application; numbers are names, not an order. */
const steps: Record<string, Step> = {
  '0001_core': core,
  '0002_webhooks': webhooks,
  '0003_chips_verifications': chipsVerifications,
  '0004_extension': extension,
  '0006_master_key_checks': masterKeyChecks,
  '0005_writer': writer,
  '0009_holdings': holdings,
  '0010_comment_folded': commentFolded,
  '0011_genuine_scans_index': genuineScansIndex,
  '0012_scan_chips_guard': scanChipsGuard,
  '0013_claims_unique': claimsUnique,
  '0014_ownership_proofs': ownershipProofs,
  '0015_read_api': readApi,
  '0016_scan_counts': scanCounts,
  '0017_key_last_used': keyLastUsed,
  '0018_tag_writes': tagWrites,
  '0019_one_tag_index': oneTagIndex,
  '0020_reason_time_index': reasonTimeIndex,
  '0021_signals': signals,
  '0022_key_roles': keyRoles,
  '0024_chip_rekey': chipRekey,
  '0025_challenge_scan_index': challengeScanIndex,
  '0026_tag_search': tagSearch,
  '0028_attempt_response': attemptResponse,
  '0023_master_generations': masterGenerations,
  '0027_chip_uid_index': chipUidIndex,
  '0029_audit_events': auditEvents,
  '0030_country_time_index': countryTimeIndex,
  '0031_users': users,
  '0032_flag_windows': flagWindows,
  '0033_flagged_counts': flaggedCounts,
  '0034_cases': cases,
  '0035_mail': mail,
  '0036_tag_id_collation': tagIdCollation,
};

function provider(dialect: Dialect): MigrationProvider {
  return {
    async getMigrations() {
      const out: Record<string, Migration> = {};
      for (const [name, step] of Object.entries(steps)) out[name] = { up: (db) => step.up(db, dialect) };
      return out;
    },
  };
}

/** Whether this PostgreSQL schema has been migrated: its migration table is there (in the search path). */
export async function isMigrated(db: Db): Promise<boolean> {
  const { rows } = await sql<{ found: string | null }>`select to_regclass('kysely_migration')::text as found`.execute(db.kysely);
  return (rows[0]?.found ?? null) !== null;
}

/** Applies every pending migration; safe from several processes at once (Kysely takes a lock). */
export async function migrate(db: Db): Promise<string[]> {
  // Kysely looks for its bookkeeping tables in every schema unless told which:
  // another schema's (a parallel test run, another deployment) would be taken for ours.
  const schema = db.dialect === 'postgres' ? (await sql<{ name: string }>`select current_schema() as name`.execute(db.kysely)).rows[0]?.name : undefined;
  // Unordered: migrations were numbered per feature and landed out of number order (0006 and 0009 before 0005),
  // so a database may have applied a later number before an earlier one arrives.
  const migrator = new Migrator({
    db: schema ? inSchema(db.kysely, schema) : db.kysely,
    provider: provider(db.dialect),
    allowUnorderedMigrations: true,
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  // Kysely's own check reads every schema's tables; inSchema keeps it to ours, but a schema dropped
  // meanwhile by someone else (another deployment, a parallel test run) can still fail its schema list
  // with 3F000. Nothing was applied then: read again.
  // On SQLite the pending migrations run in one immediate transaction (src/db/database.ts): a process
  // started beside one that is migrating waits busy_timeout (5 s) for it, then tries again, for about a minute.
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await migrator.migrateToLatest();
    if (!error) return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
    const code = (error as { code?: string }).code;
    if (!((code === '3F000' && attempt < 5) || (code === 'SQLITE_BUSY' && attempt < 12))) throw error as Error;
  }
}

/**
 * `kysely` as the migrator should see it: its check for its bookkeeping tables reads the tables of our
 * schema only. Kysely's own introspection reads every table and column of every schema, with
 * `pg_get_serial_sequence` per column: slow on a database shared by many schemas, and failing
 * ("column … of relation … does not exist") when another schema is migrated or dropped during the read.
 */
function inSchema(kysely: Kysely<Database>, schema: string): Kysely<Database> {
  const tables = async (): Promise<TableMetadata[]> => {
    const { rows } = await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = ${schema}`.execute(kysely);
    return rows.map(({ name }) => ({ name, schema, isView: false, columns: [] }));
  };
  const introspection: DatabaseIntrospector = {
    getSchemas: () => kysely.introspection.getSchemas(),
    getTables: tables,
    getMetadata: async () => ({ tables: await tables() }),
  };
  // Kysely keeps its state in private fields, so its methods run on the instance itself.
  return new Proxy(kysely, {
    get(target, property) {
      if (property === 'introspection') return introspection;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

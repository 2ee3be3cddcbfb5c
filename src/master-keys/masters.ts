// The per-deployment master keys every chip key descends from (docs/decisions.md §4).
// Production: TAPPROOF_MASTER_KEY or TAPPROOF_MASTER_KEY_FILE. On SQLite without
// either, a key is generated once and kept in a file beside the database, with a
// loud warning; on PostgreSQL (several hosts share one database, so a file on one
// host would be wrong on the others) production operations refuse instead.
// Sandbox: its own master, generated on first use and kept in `settings`, so
// emulated chips never share key material with physical ones.
//
// The database records a check value of each mode's master on first use. Every
// later use compares against it, and long-running processes and chip-touching
// commands compare at start (verifyMasterKeys), so a process with the wrong
// master refuses to start with one line instead of failing scans.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Db } from '../db/database.js';
import type { Mode } from '../db/schema.js';
import type { Kernel } from '../kernel.js';
import { KeyMaterialError, sealedKeyId, sealerKeyId } from '../secrets/index.js';

/** What resolving a master needs. */
type MasterContext = Pick<Kernel, 'db' | 'config' | 'clock'>;

/** The master keys of one process, for what derives chip keys and seals secrets. */
export interface MastersState {
  masters: MasterKeys;
}

/** The master key of a mode is missing or is not the one this database was first used with. */
export class MasterKeyError extends KeyMaterialError {}

const SANDBOX_SETTING = 'sandbox_master_key';
export const PRODUCTION_KEY_FILE = 'tapproof-production-master.key';
const MODES: Mode[] = ['sandbox', 'production'];

/** Names a master key without revealing it (a key check value). */
export function checkValue(master: Buffer): string {
  return createHmac('sha256', master).update('tapproof master key check v1').digest('hex').slice(0, 16);
}

// Values sealed under a mode's master (purposes as in src/tag-chips/keys.ts and
// src/webhooks/service.ts). Before the first check value is recorded (a database
// older than the checks), one of them tells whether a master is the one in use.
const SEALED = [
  { table: 'chips', column: 'sdm_file_read_key_sealed', purpose: 'chip-keys' },
  { table: 'webhooks', column: 'secret_sealed', purpose: 'webhook-secret' },
] as const;

async function sandboxMaster(db: Db, generate: boolean): Promise<Buffer | null> {
  // Several processes may start together: the first insert wins, everyone reads the winner.
  if (generate) {
    await db.kysely
      .insertInto('settings')
      .values({ name: SANDBOX_SETTING, value: randomBytes(32).toString('hex') })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
  }
  const row = await db.kysely.selectFrom('settings').select('value').where('name', '=', SANDBOX_SETTING).executeTakeFirst();
  return row ? Buffer.from(row.value, 'hex') : null;
}

/** Where a generated production master is kept: beside the SQLite file, else in the data directory. */
export function productionKeyPath({ config }: Pick<Kernel, 'config'>): string {
  const dir = config.database.kind === 'sqlite' && config.database.path !== ':memory:' ? dirname(config.database.path) : config.dataDir;
  return join(dir, PRODUCTION_KEY_FILE);
}

const SET_IT = 'set TAPPROOF_MASTER_KEY (or TAPPROOF_MASTER_KEY_FILE) to the same 64 hex characters on every host';

function productionMaster(ctx: MasterContext, generate: boolean): Buffer | null {
  if (ctx.config.masterKey) return Buffer.from(ctx.config.masterKey, 'hex');
  if (ctx.config.database.kind === 'postgres') {
    if (!generate) return null;
    throw new MasterKeyError(
      `production chip keys on PostgreSQL need TAPPROOF_MASTER_KEY or TAPPROOF_MASTER_KEY_FILE: ${SET_IT} (new deployment: openssl rand -hex 32)`,
    );
  }
  const path = productionKeyPath(ctx);
  const read = () => {
    let text: string;
    try {
      text = readFileSync(path, 'utf8').trim();
    } catch (error) {
      if ((error as { code?: string }).code === 'ENOENT' && !generate) return null;
      throw new MasterKeyError(`cannot read the production master key file ${path} (${(error as { code?: string }).code}); set TAPPROOF_MASTER_KEY`);
    }
    if (!/^[0-9a-fA-F]{64}$/.test(text)) throw new MasterKeyError(`${path} does not hold a 64-hex-character master key; set TAPPROOF_MASTER_KEY`);
    return Buffer.from(text, 'hex');
  };
  let generated = false;
  if (generate) {
    try {
      mkdirSync(dirname(path), { recursive: true });
      // 'wx': exactly one process creates the file; the others read what it wrote.
      writeFileSync(path, randomBytes(32).toString('hex') + '\n', { flag: 'wx', mode: 0o600 });
      generated = true;
    } catch (error) {
      if ((error as { code?: string }).code !== 'EEXIST')
        throw new MasterKeyError(`cannot create the production master key file ${path} (${(error as { code?: string }).code}); set TAPPROOF_MASTER_KEY`);
    }
  }
  const key = read();
  if (key === null) return null;
  process.stderr.write(
    `tapproof: WARNING: TAPPROOF_MASTER_KEY is not set; production chip keys descend from the master key ${generated ? 'just generated in' : 'kept in'} ${path}. ` +
      'Losing that file makes every production chip unverifiable. Set TAPPROOF_MASTER_KEY to its content (or your own 64 hex characters before any chip is written).\n',
  );
  return key;
}

/** The master of `mode` as this process has it; null when it has none and must not make one. */
async function resolveMaster(ctx: MasterContext, mode: Mode, generate: boolean): Promise<Buffer | null> {
  return mode === 'sandbox' ? sandboxMaster(ctx.db, generate) : productionMaster(ctx, generate);
}

/** Where this process's master of `mode` comes from, as an operator would change it. */
function sourceOf(ctx: MasterContext, mode: Mode): string {
  if (mode === 'sandbox') return `the sandbox master key in the database's settings`;
  return ctx.config.masterKeySource ?? `the production master key file ${productionKeyPath(ctx)}`;
}

function mismatch(ctx: MasterContext, mode: Mode, recorded: string, actual: string): MasterKeyError {
  const fix =
    mode === 'sandbox'
      ? `restore the settings table from the same backup as the rest of the database`
      : `start every process with the master key this database was first used with (changing it makes every production chip and webhook secret unusable; see docs/operations.md)`;
  return new MasterKeyError(
    `${sourceOf(ctx, mode)} does not match the ${mode} master key this database was first used with (check value ${recorded}, this process has ${actual}): ${fix}`,
  );
}

function missing(ctx: MasterContext, mode: Mode, recorded: string): MasterKeyError {
  const where =
    mode === 'sandbox'
      ? `restore the settings row ${SANDBOX_SETTING} from the same backup as the rest of the database`
      : ctx.config.database.kind === 'postgres'
        ? SET_IT
        : `set TAPPROOF_MASTER_KEY, or restore ${productionKeyPath(ctx)}`;
  return new MasterKeyError(
    `this database holds ${mode} chip keys sealed or derived under a master key (check value ${recorded}) this process does not have: ${where}`,
  );
}

async function recordedCheck(db: Db, mode: Mode): Promise<string | null> {
  const row = await db.kysely.selectFrom('master_key_checks').select('check_value').where('mode', '=', mode).executeTakeFirst();
  return row?.check_value ?? null;
}

const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** A database older than the checks: a value already sealed under another master shows this one is wrong. */
async function sealedUnderAnother(ctx: MasterContext, mode: Mode, master: Buffer): Promise<string | null> {
  for (const { table, column, purpose } of SEALED) {
    const row = await ctx.db.kysely
      .selectFrom(table)
      .select(`${column} as sealed` as any)
      .where('mode', '=', mode)
      .where(column, 'is not', null)
      .limit(1)
      .executeTakeFirst();
    const sealed = (row as { sealed?: string } | undefined)?.sealed;
    if (sealed && sealedKeyId(sealed) !== sealerKeyId(master, purpose)) return `${table}.${column}`;
  }
  return null;
}

/** Compares `master` with the recorded check value of `mode`, recording it on first use. */
async function confirm(ctx: MasterContext, mode: Mode, master: Buffer, record: boolean): Promise<void> {
  const actual = checkValue(master);
  let recorded = await recordedCheck(ctx.db, mode);
  if (recorded === null) {
    const where = await sealedUnderAnother(ctx, mode, master);
    if (where !== null) {
      throw new MasterKeyError(
        `${sourceOf(ctx, mode)} is not the ${mode} master key this database's ${where} values were sealed under: start with the original key (see docs/operations.md)`,
      );
    }
    if (!record) return;
    // Several processes may use a mode for the first time together: the first insert wins.
    await ctx.db.kysely
      .insertInto('master_key_checks')
      .values({ mode, check_value: actual, recorded_at: ctx.clock.nowMicros() })
      .onConflict((oc) => oc.column('mode').doNothing())
      .execute();
    recorded = (await recordedCheck(ctx.db, mode))!;
  }
  if (!same(recorded, actual)) throw mismatch(ctx, mode, recorded, actual);
}

/** Each mode's master key of one process, resolved once (and again after a failure). */
export class MasterKeys {
  private readonly resolved = new Map<Mode, Promise<Buffer>>();

  constructor(private readonly kernel: MasterContext) {}

  /** The 32-byte master key of a mode; records its check value on first use. */
  of(mode: Mode): Promise<Buffer> {
    let key = this.resolved.get(mode);
    if (!key) {
      key = (async () => {
        const master = (await resolveMaster(this.kernel, mode, true))!;
        await confirm(this.kernel, mode, master, true);
        return master;
      })();
      key.catch(() => this.resolved.delete(mode));
      this.resolved.set(mode, key);
    }
    return key;
  }
}

/** The 32-byte master key of a world's mode; records its check value on first use. */
export const modeMaster = (ctx: MastersState, mode: Mode): Promise<Buffer> => ctx.masters.of(mode);

/**
 * At the start of serve, worker and chip-touching commands: throws MasterKeyError
 * (one line) when this process's master of a mode is not the recorded one, or is
 * missing while the database has one recorded. Records nothing.
 */
export async function verifyMasterKeys(ctx: MasterContext): Promise<void> {
  for (const mode of MODES) {
    const recorded = await recordedCheck(ctx.db, mode);
    const master = await resolveMaster(ctx, mode, false);
    if (master === null) {
      if (recorded !== null) throw missing(ctx, mode, recorded);
      continue;
    }
    await confirm(ctx, mode, master, false);
  }
}

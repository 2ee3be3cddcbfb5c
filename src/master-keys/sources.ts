// Where a process's master keys come from (docs/operations.md, Master keys).
// Production: TAPPROOF_MASTER_KEY (or _FILE) is the current key and TAPPROOF_PREVIOUS_MASTER_KEYS
// (or _FILE) the older live ones. On SQLite without either, keys are generated into a file beside
// the database, one a line, the current first, with a loud warning; on PostgreSQL (several hosts
// share one database, so a file on one host would be wrong on the others) production refuses instead.
// Sandbox: its own keys, generated and kept in `settings` (one row per generation), so emulated chips
// never share key material with physical ones. Keys the database keeps (sandbox rows, the generated
// file) are rotated and retired by the `master` commands; keys from the environment by the operator.
import { claimSetting, deleteSetting, insertSetting, settingsStartingWith } from '../db/settings.js';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Db, Executor } from '../db/database.js';
import type { Mode } from '../db/schema.js';
import type { Kernel } from '../kernel.js';
import { KeyMaterialError } from '../secrets/index.js';

/** What resolving a master needs. */
export type MasterContext = Pick<Kernel, 'db' | 'config' | 'clock'>;

/** The master key of a mode is missing, retired or not one of the database's generations. */
export class MasterKeyError extends KeyMaterialError {}

export const PRODUCTION_KEY_FILE = 'tapproof-production-master.key';
export const SET_IT = 'set TAPPROOF_MASTER_KEY (or TAPPROOF_MASTER_KEY_FILE) to the same 64 hex characters on every host';

/** The keys one process holds for a mode. */
export interface HeldKeys {
  /**
   * What this process takes for the current key: the one recorded as generation 1 on first use,
   * and for production the one TAPPROOF_MASTER_KEY names. Null: none (sandbox after a rotation
   * keeps every key in the database and has no key of its own).
   */
  own: Buffer | null;
  /** Every key this process holds for the mode, `own` included (the generated file: every line, oldest first). */
  all: Buffer[];
  /** Set when the keys come from the generated production file (every process using it warns). */
  generatedFile?: { path: string; generated: boolean };
}

/** The settings row of a sandbox generation's key; generation 1 keeps the name it had before generations. */
export const sandboxSetting = (generation: number): string => (generation === 1 ? 'sandbox_master_key' : `sandbox_master_key_${generation}`);

async function sandboxKeys(db: Db, generate: boolean): Promise<HeldKeys> {
  // Several processes may start together: the first insert wins, everyone reads the winner.
  if (generate) {
    await claimSetting(db.kysely, sandboxSetting(1), randomBytes(32).toString('hex'));
  }
  // LIKE's `_` matches any character: the names are checked exactly below.
  const rows = (await settingsStartingWith(db.kysely, 'sandbox_master_key')).filter((r) => /^sandbox_master_key(_\d+)?$/.test(r.name));
  const first = rows.find((r) => r.name === sandboxSetting(1));
  return { own: first ? Buffer.from(first.value, 'hex') : null, all: rows.map((r) => Buffer.from(r.value, 'hex')) };
}

/** Where a generated production master is kept: beside the SQLite file, else in the data directory. */
export function productionKeyPath({ config }: Pick<Kernel, 'config'>): string {
  const dir = config.database.kind === 'sqlite' && config.database.path !== ':memory:' ? dirname(config.database.path) : config.dataDir;
  return join(dir, PRODUCTION_KEY_FILE);
}

function readKeyFile(path: string, generate: boolean): Buffer[] | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT' && !generate) return null;
    throw new MasterKeyError(`cannot read the production master key file ${path} (${(error as { code?: string }).code}); set TAPPROOF_MASTER_KEY`);
  }
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  if (lines.length === 0 || lines.some((l) => !/^[0-9a-fA-F]{64}$/.test(l)))
    throw new MasterKeyError(`${path} does not hold 64-hex-character master keys, one a line; set TAPPROOF_MASTER_KEY`);
  return lines.map((l) => Buffer.from(l, 'hex'));
}

function productionKeys(ctx: MasterContext, generate: boolean): HeldKeys {
  const previous = ctx.config.previousMasterKeys.map((k) => Buffer.from(k, 'hex'));
  if (ctx.config.masterKey) {
    const own = Buffer.from(ctx.config.masterKey, 'hex');
    return { own, all: [own, ...previous] };
  }
  if (ctx.config.database.kind === 'postgres') {
    if (!generate) return { own: null, all: previous };
    throw new MasterKeyError(
      `production chip keys on PostgreSQL need TAPPROOF_MASTER_KEY or TAPPROOF_MASTER_KEY_FILE: ${SET_IT} (new deployment: openssl rand -hex 32)`,
    );
  }
  const path = productionKeyPath(ctx);
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
  const keys = readKeyFile(path, generate);
  if (keys === null) return { own: null, all: previous };
  return { own: keys[0]!, all: [...keys, ...previous], generatedFile: { path, generated } };
}

/** The keys this process holds for `mode`; `generate` makes the first one where the mode has none yet. */
export async function heldKeys(ctx: MasterContext, mode: Mode, generate: boolean): Promise<HeldKeys> {
  return mode === 'sandbox' ? sandboxKeys(ctx.db, generate) : productionKeys(ctx, generate);
}

/** Where this process's current master of `mode` comes from, as an operator would change it. */
export function sourceOf(ctx: MasterContext, mode: Mode): string {
  if (mode === 'sandbox') return `the sandbox master key in the database's settings`;
  return ctx.config.masterKeySource ?? `the production master key file ${productionKeyPath(ctx)}`;
}

/** Where a key this process lacks would go, as one instruction. */
export function whereToPut(ctx: MasterContext, mode: Mode, current: boolean): string {
  if (mode === 'sandbox') return `restore the settings table from the same backup as the rest of the database`;
  if (current)
    return ctx.config.database.kind === 'postgres' || ctx.config.masterKey ? SET_IT : `set TAPPROOF_MASTER_KEY, or restore ${productionKeyPath(ctx)}`;
  return 'add it to TAPPROOF_PREVIOUS_MASTER_KEYS (or TAPPROOF_PREVIOUS_MASTER_KEYS_FILE), comma-separated, on every host';
}

/** Whether rotating `mode` makes its own new key (sandbox, the generated production file) rather than taking the configured one. */
export const generatesKeys = (ctx: MasterContext, mode: Mode): boolean =>
  mode === 'sandbox' || (!ctx.config.masterKey && ctx.config.database.kind === 'sqlite');

/**
 * Keeps a new key made by a rotation before it is recorded: a sandbox settings row (in the rotation's
 * transaction), or a line appended to the generated file (a key there that no generation names is harmless;
 * a recorded generation whose key was never kept would not be).
 */
export async function keepNewKey(ctx: MasterContext, executor: Executor, mode: Mode, generation: number, key: Buffer): Promise<void> {
  if (mode === 'sandbox') {
    await insertSetting(executor, sandboxSetting(generation), key.toString('hex'));
    return;
  }
  const path = productionKeyPath(ctx);
  rewriteKeyFile(path, [...(readKeyFile(path, false) ?? []), key]);
}

/** Forgets a retired generation's key where the database keeps it; keys from the environment are the operator's to remove. */
export async function forgetKey(ctx: MasterContext, executor: Executor, mode: Mode, generation: number, key: Buffer | undefined): Promise<void> {
  if (mode === 'sandbox') {
    await deleteSetting(executor, sandboxSetting(generation));
    return;
  }
  if (!generatesKeys(ctx, mode) || key === undefined) return;
  const path = productionKeyPath(ctx);
  const kept = (readKeyFile(path, false) ?? []).filter((k) => !k.equals(key));
  if (kept.length > 0) rewriteKeyFile(path, kept);
}

/** Replaces the generated key file whole (a reader sees the old content or the new, never half). */
function rewriteKeyFile(path: string, keys: Buffer[]): void {
  const next = `${path}.next`;
  writeFileSync(next, keys.map((k) => k.toString('hex')).join('\n') + '\n', { mode: 0o600 });
  renameSync(next, path);
}

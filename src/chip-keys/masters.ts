// The per-deployment master keys every chip key descends from (DESIGN §4).
// Production: TAPPROOF_MASTER_KEY; without it a key is generated once and kept
// in a file beside the database, with a loud warning (a deployment sets it, so
// that several hosts and a restored backup agree). Sandbox: its own master,
// generated on first use and kept in `settings`, so emulated chips never share
// key material with physical ones.
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { AppContext } from '../context.js';
import type { Db } from '../db/database.js';
import type { Mode } from '../db/schema.js';

const SANDBOX_SETTING = 'sandbox_master_key';
export const PRODUCTION_KEY_FILE = 'tapproof-production-master.key';

const cache = new WeakMap<Db, Map<Mode, Promise<Buffer>>>();

async function sandboxMaster(db: Db): Promise<Buffer> {
  // Several processes may start together: the first insert wins, everyone reads the winner.
  await db.kysely
    .insertInto('settings')
    .values({ name: SANDBOX_SETTING, value: randomBytes(32).toString('hex') })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db.kysely.selectFrom('settings').select('value').where('name', '=', SANDBOX_SETTING).executeTakeFirstOrThrow();
  return Buffer.from(row.value, 'hex');
}

/** Where a generated production master is kept: beside the SQLite file, else in the data directory. */
export function productionKeyPath({ config }: Pick<AppContext, 'config'>): string {
  const dir = config.database.kind === 'sqlite' && config.database.path !== ':memory:' ? dirname(config.database.path) : config.dataDir;
  return join(dir, PRODUCTION_KEY_FILE);
}

function productionMaster(ctx: AppContext): Buffer {
  if (ctx.config.masterKey) return Buffer.from(ctx.config.masterKey, 'hex');
  const path = productionKeyPath(ctx);
  const read = () => {
    const text = readFileSync(path, 'utf8').trim();
    if (!/^[0-9a-fA-F]{64}$/.test(text)) throw new Error(`${path} does not hold a 64-hex-character master key`);
    return Buffer.from(text, 'hex');
  };
  let generated = false;
  try {
    // 'wx': exactly one process creates the file; the others read what it wrote.
    writeFileSync(path, randomBytes(32).toString('hex') + '\n', { flag: 'wx', mode: 0o600 });
    generated = true;
  } catch (error) {
    if ((error as { code?: string }).code !== 'EEXIST') throw error;
  }
  process.stderr.write(
    `tapproof: WARNING: TAPPROOF_MASTER_KEY is not set; production chip keys descend from the master key ${generated ? 'just generated in' : 'kept in'} ${path}. ` +
      'Losing that file makes every production chip unverifiable. Set TAPPROOF_MASTER_KEY to its content (or your own 64 hex characters before any chip is written).\n',
  );
  return read();
}

/** The 32-byte master key of a world's mode. */
export function modeMaster(ctx: AppContext, mode: Mode): Promise<Buffer> {
  let perDb = cache.get(ctx.db);
  if (!perDb) cache.set(ctx.db, (perDb = new Map()));
  let key = perDb.get(mode);
  if (!key) {
    key = mode === 'sandbox' ? sandboxMaster(ctx.db) : Promise.resolve().then(() => productionMaster(ctx));
    key.catch(() => perDb!.delete(mode));
    perDb.set(mode, key);
  }
  return key;
}

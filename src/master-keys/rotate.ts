// `tapproof master rotate`: a new current generation. Production takes the key TAPPROOF_MASTER_KEY
// (or _FILE) names; the sandbox and the generated SQLite production file make one. From then on new
// chips and secrets use it; everything older keeps working under its own generation until a rewrap
// (sealed values) and rekeys (written chips) move it, and a retirement forgets it.
import { randomBytes } from 'node:crypto';
import type { Mode } from '../db/schema.js';
import type { Actor } from '../world.js';
import { recordAudit } from '../audit/index.js';
import { CliError } from '../cli-kit.js';
import { checkValue, currentOf, listGenerations, notifyGenerations, recordGeneration, touchGenerations } from './generations.js';
import type { MastersState } from './masters.js';
import { generatesKeys, keepNewKey, SET_IT, type MasterContext } from './sources.js';

export interface Rotation {
  generation: number;
  check_value: string;
  /** false: the configured key already was the current generation (nothing changed). */
  rotated: boolean;
}

export async function rotate(ctx: MasterContext & MastersState, mode: Mode, actor: Actor): Promise<Rotation> {
  const { db, clock } = ctx;
  const makes = generatesKeys(ctx, mode);
  let generations = await listGenerations(db.kysely, mode);
  if (generations.length === 0) {
    // The first use of a mode records its key as generation 1, as any command would.
    const first = await ctx.masters.current(mode);
    if (!makes) return { generation: first.generation, check_value: checkValue(first.key), rotated: true };
    generations = await listGenerations(db.kysely, mode);
  }
  if (!makes && !ctx.config.masterKey) throw new CliError(`a production rotation takes its new key from TAPPROOF_MASTER_KEY: ${SET_IT} (openssl rand -hex 32)`);
  const key = makes ? randomBytes(32) : Buffer.from(ctx.config.masterKey!, 'hex');
  const check = checkValue(key);
  const current = currentOf(generations)!;
  if (current.checkValue === check) return { generation: current.generation, check_value: check, rotated: false };
  const known = generations.find((g) => g.checkValue === check);
  if (known) {
    throw new CliError(
      `${ctx.config.masterKeySource} is the ${mode} master key generation ${known.generation}${known.retired ? ' (retired)' : ''}, not a new key: a rotation needs a key no generation has had (openssl rand -hex 32)`,
    );
  }
  const generation = Math.max(...generations.map((g) => g.generation)) + 1;
  if (makes && mode === 'production') await keepNewKey(ctx, db.kysely, mode, generation, key);
  const recorded = await db.kysely.transaction().execute(async (trx) => {
    const at = clock.nowMicros();
    if (!(await recordGeneration(trx, mode, generation, key, at))) return false;
    if (mode === 'sandbox') await keepNewKey(ctx, trx, mode, generation, key);
    await recordAudit(trx, { teamId: null, mode, actor }, at, [
      { operation: 'master.rotate', resourceId: String(generation), changes: { generation, check_value: check } },
    ]);
    await notifyGenerations(db, trx, mode);
    return true;
  });
  if (!recorded) throw new CliError(`another rotation recorded ${mode} master key generation ${generation} first: see tapproof master status --mode ${mode}`);
  touchGenerations(db, clock.nowMicros());
  return { generation, check_value: check, rotated: true };
}

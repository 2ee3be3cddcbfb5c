// `tapproof master retire`: a generation nothing depends on any more is forgotten. Refused for the
// current generation and while a chip or a sealed value still depends on it (checked again inside the
// transaction, which new chips and secrets, all on the current generation, cannot change). Afterwards no
// process uses its key: running ones hear of it (src/master-keys/masters.ts), a key the database kept
// (sandbox, the generated production file) is deleted, and a process whose TAPPROOF_MASTER_KEY is that
// key refuses to start.
import type { Mode } from '../db/schema.js';
import type { Actor } from '../world.js';
import { recordAudit } from '../audit/index.js';
import { CliError } from '../cli-kit.js';
import { currentOf, listGenerations, markRetired, notifyGenerations, touchGenerations } from './generations.js';
import type { MastersState } from './masters.js';
import { dependents, dependsOn } from './sealed.js';
import { forgetKey, heldKeys, type MasterContext } from './sources.js';
import { checkValue } from './generations.js';

export interface Retirement {
  generation: number;
  check_value: string;
  /** false: it already was retired. */
  retired: boolean;
}

export async function retire(ctx: MasterContext & MastersState, mode: Mode, generation: number, actor: Actor): Promise<Retirement> {
  const { db, clock } = ctx;
  // Read before the transaction: on SQLite a read through the database itself while the transaction holds its
  // one connection would wait for ever (the sandbox keys are rows of the database).
  const held = await heldKeys(ctx, mode, false);
  const found = await db.kysely.transaction().execute(async (trx) => {
    const generations = await listGenerations(trx, mode);
    const g = generations.find((x) => x.generation === generation);
    if (!g) throw new CliError(`no ${mode} master key generation ${generation} (tapproof master status --mode ${mode} lists them)`);
    if (g.retired) return { g, retired: false };
    if (g === currentOf(generations)) throw new CliError(`${mode} master key generation ${generation} is the current one: rotate to a new one first`);
    const d = (await dependents(trx, mode, generations)).get(generation);
    if (dependsOn(d)) {
      throw new CliError(
        `${mode} master key generation ${generation} still has ${d!.chips} chips and ${d!.sealed} sealed values depending on it: ` +
          `run tapproof master rewrap --mode ${mode}, rekey its chips (tapproof writer --rekey), and retire once tapproof master status shows none`,
      );
    }
    const at = clock.nowMicros();
    await markRetired(trx, mode, generation, at);
    await recordAudit(trx, { teamId: null, mode, actor }, at, [
      { operation: 'master.retire', resourceId: String(generation), changes: { generation, check_value: g.checkValue } },
    ]);
    const key = held.all.find((k) => checkValue(k) === g.checkValue);
    await forgetKey(ctx, trx, mode, generation, key);
    await notifyGenerations(db, trx, mode);
    return { g, retired: true };
  });
  if (found.retired) touchGenerations(db, clock.nowMicros());
  return { generation, check_value: found.g.checkValue, retired: found.retired };
}

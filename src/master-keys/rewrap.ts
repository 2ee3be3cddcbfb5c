// `tapproof master rewrap`: every value sealed under an older generation of a mode (imported chip keys,
// webhook secrets, writer sessions) sealed again under the current one, while servers run. Each table
// is walked in key order in batches of one transaction each; every row is written only if it still
// holds what was read, so a concurrent change (a webhook secret rotated meanwhile) wins and is picked
// up by the next run. Killed at any point, the committed batches stand and a second run finds only what
// is left; a run with nothing left changes nothing. A running write keeps its generation until it ends
// (its state is re-sealed at every round trip): the rewrap waits for it.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Mode } from '../db/schema.js';
import type { Actor } from '../world.js';
import { recordAudit } from '../audit/index.js';
import { sealer, type Sealer } from '../secrets/index.js';
import { KeyMaterialError } from '../secrets/index.js';
import { keyIdsOf, notifyGenerations, touchGenerations } from './generations.js';
import type { MastersState } from './masters.js';
import * as mastersRepo from './repository.js';
import { SEALED_TABLES, type SealedColumn, type SealedTable } from './repository.js';
import type { MasterContext } from './sources.js';

export interface RewrapOptions {
  /** Rows per transaction. */
  batch: number;
  /** Milliseconds between batches, to spare a busy database. */
  pauseMs: number;
  /** Told after every committed batch. */
  progress?: (table: string, rewrapped: number) => void;
}

export interface RewrapResult {
  generation: number;
  /** Rows re-sealed, per table. */
  rewrapped: Record<string, number>;
  /** Values no live generation this process holds could open (left as they are). */
  unreadable: { table: string; id: string; reason: string }[];
}

function reseal(column: SealedColumn, value: string, open: Sealer, seal: Sealer): string {
  if (column.prefix === '') return seal.seal(open.open(value));
  // A writer session's state: the sealed machine is a member of a JSON object.
  const stored = JSON.parse(value) as { sealed: string };
  return JSON.stringify({ ...stored, sealed: seal.seal(open.open(stored.sealed)) });
}

export async function rewrap(ctx: MasterContext & MastersState, mode: Mode, actor: Actor, options: RewrapOptions): Promise<RewrapResult> {
  const { db, clock } = ctx;
  const { generation, key } = await ctx.masters.current(mode);
  const kids = keyIdsOf(key);
  const result: RewrapResult = { generation, rewrapped: {}, unreadable: [] };

  const pass = async (table: SealedTable): Promise<void> => {
    const seal = new Map(table.columns.map((c) => [c.column, sealer(key, c.purpose)]));
    const open = new Map<string, Sealer>();
    for (const c of table.columns) open.set(c.column, await ctx.masters.sealer(mode, c.purpose));
    let after = '';
    for (;;) {
      const rows = await mastersRepo.staleSealedRows(db.kysely, table, mode, kids, clock.nowMicros(), after, options.batch);
      if (rows.length === 0) return;
      after = rows.at(-1)!.id!;
      const changed = await db.kysely.transaction().execute(async (trx) => {
        let n = 0;
        for (const row of rows) {
          const set: Record<string, string> = {};
          try {
            for (const c of table.columns) {
              const value = row[c.column];
              if (value && !value.startsWith(`${c.prefix}v1.${kids[c.purpose]}.`) && value.startsWith(`${c.prefix}v1.`))
                set[c.column] = reseal(c, value, open.get(c.column)!, seal.get(c.column)!);
            }
          } catch (error) {
            if (!(error instanceof KeyMaterialError)) throw error;
            result.unreadable.push({ table: table.table, id: row.id!, reason: error.message });
            continue;
          }
          // An imported chip's keys now come from the current generation.
          n += await mastersRepo.resealIfUnchanged(trx, table, row, set, generation);
        }
        return n;
      });
      result.rewrapped[table.table] = (result.rewrapped[table.table] ?? 0) + changed;
      options.progress?.(table.table, result.rewrapped[table.table]!);
      if (options.pauseMs > 0) await sleep(options.pauseMs);
    }
  };

  for (const table of SEALED_TABLES) await pass(table);
  // Writes that were running under an older generation: once each ends (or passes its deadline), its state follows.
  const sessions = SEALED_TABLES.find((t) => t.table === 'writer_sessions')!;
  const column = sessions.columns[0]!;
  const live = () => mastersRepo.liveSessionsSealedUnderOther(db.kysely, mode, column, kids[column.purpose]!, clock.nowMicros());
  if ((await live()) > 0) {
    while ((await live()) > 0) await sleep(1_000);
    await pass(sessions);
  }
  // Other processes drop what they cached of the rows (src/master-keys/masters.ts). A rewrap commits
  // batch by batch; its record, with what it moved, is written with this last step.
  await db.kysely.transaction().execute(async (trx) => {
    await notifyGenerations(db, trx, mode);
    await recordAudit(trx, { teamId: null, mode, actor }, clock.nowMicros(), [
      {
        operation: 'master.rewrap',
        resourceId: String(generation),
        changes: { generation, rewrapped: result.rewrapped, unreadable: result.unreadable.length },
      },
    ]);
  });
  touchGenerations(db, clock.nowMicros());
  return result;
}

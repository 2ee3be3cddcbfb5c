// The master key generations a database records per mode (table master_generations): numbered
// from 1, each named by its check value; the highest one not retired is current. Every change
// (rotate, rewrap, retire) is announced to the other processes (src/db/change-feed.ts) so that
// they follow it without a restart.
import { createHmac } from 'node:crypto';
import { feedFile, notifyInTransaction, touchAfterCommit, type FeedAddress } from '../db/change-feed.js';
import type { Db, Executor } from '../db/database.js';
import type { Mode } from '../db/schema.js';
import { sealerKeyId } from '../secrets/index.js';
import * as mastersRepo from './repository.js';

export interface Generation {
  generation: number;
  checkValue: string;
  /** Sealing purpose → key id of the values sealed under this generation; null until recorded by a process holding the key. */
  keyIds: Record<string, string> | null;
  retired: boolean;
}

/** The purposes values are sealed for under a mode's master (src/tag-chips/keys.ts, src/webhooks/service.ts, src/writer/service.ts). */
export const SEALING_PURPOSES = ['chip-keys', 'webhook-secret', 'writer-session'] as const;

/** Names a master key without revealing it (a key check value). */
export function checkValue(master: Buffer): string {
  return createHmac('sha256', master).update('tapproof master key check v1').digest('hex').slice(0, 16);
}

export const keyIdsOf = (master: Buffer): Record<string, string> => Object.fromEntries(SEALING_PURPOSES.map((p) => [p, sealerKeyId(master, p)]));

/** A mode's generations, oldest first. */
export async function listGenerations(db: Executor, mode: Mode): Promise<Generation[]> {
  return (await mastersRepo.listGenerationRows(db, mode)).map((r) => ({
    generation: r.generation,
    checkValue: r.check_value,
    keyIds: r.key_ids === null ? null : (JSON.parse(r.key_ids) as Record<string, string>),
    retired: r.retired_at !== null,
  }));
}

/** The current generation: the highest one not retired (a retired generation is never the highest live one). */
export const currentOf = (generations: Generation[]): Generation | undefined => generations.filter((g) => !g.retired).at(-1);

/** Records `master` as generation `generation` of `mode`; false when another process recorded that number first. */
export async function recordGeneration(db: Executor, mode: Mode, generation: number, master: Buffer, at: number): Promise<boolean> {
  return mastersRepo.insertGeneration(db, {
    mode,
    generation,
    check_value: checkValue(master),
    key_ids: JSON.stringify(keyIdsOf(master)),
    created_at: at,
    retired_at: null,
  });
}

/** A generation carried over from the check values learns its key ids from the first process holding its key. */
export async function recordKeyIds(db: Executor, mode: Mode, generation: number, master: Buffer): Promise<void> {
  await mastersRepo.setKeyIds(db, mode, generation, JSON.stringify(keyIdsOf(master)));
}

export async function markRetired(db: Executor, mode: Mode, generation: number, at: number): Promise<void> {
  await mastersRepo.setRetired(db, mode, generation, at);
}

const CHANNEL = 'tapproof_masters';

/** Where processes hear of a change of the generations (or of what is sealed under them). */
export const generationsFeed = (db: Db): FeedAddress => ({ channel: CHANNEL, file: feedFile(db, 'masters') });

/** Tells every process that `mode`'s generations changed (PostgreSQL half): inside the change's transaction. */
export const notifyGenerations = (db: Db, trx: Executor, mode: Mode): Promise<void> => notifyInTransaction(db, trx, generationsFeed(db), mode);

/** The SQLite half: after the change committed. */
export const touchGenerations = (db: Db, stamp: number): void => touchAfterCommit(db, generationsFeed(db), stamp);

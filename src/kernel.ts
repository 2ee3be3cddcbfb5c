// The bottom of the building: what every feature is built from. The kernel holds
// the open database, the validated config, the clock, the metrics and the group
// commit, and imports no feature: features build themselves from it (their
// create functions) and the composition root (src/context.ts) assembles them.
import type { Config } from './config.js';
import type { Db } from './db/database.js';
import { GroupCommit, type CreateWriteKinds } from './db/group-commit.js';
import { Metrics } from './metrics.js';
import pino, { type Logger } from 'pino';
import type { Clock } from './time.js';

export interface Kernel {
  db: Db;
  config: Config;
  clock: Clock;
  metrics: Metrics;
  /** Durable writes of scans and extension writes, batched (src/db/group-commit.ts). */
  commits: GroupCommit;
  /** The process's log for work outside a request (background jobs); a request logs through Fastify's. */
  log: Logger;
}

/** The kinds of writes the group commit batches: built here, and by the SQLite commit thread from `module`. */
export interface WriteKindsModule {
  /** A module exporting `createWriteKinds` (src/write-kinds.ts), which the commit thread imports. */
  module: URL;
  createWriteKinds: CreateWriteKinds;
}

/** `log`: the process's log; pino's JSON lines on stdout unless the caller gives another (the CLI's, on stderr). */
export function createKernel(db: Db, config: Config, clock: Clock, writes: WriteKindsModule, log?: Logger): Kernel {
  const metrics = new Metrics();
  const commits = new GroupCommit(db, writes.createWriteKinds(db.dialect), { writers: writes.module, thread: config.scanCommitThread, metrics });
  return { db, config, clock, metrics, commits, log: log ?? pino({ level: config.logLevel }) };
}

// The kinds of writes the group commit batches (src/db/group-commit.ts), for the
// serving process and for the SQLite writer thread, which imports this module.
import type { Dialect } from './db/database.js';
import { batchWriterOf, type CreateBatchWriter } from './db/group-commit.js';
import { extensionWrites } from './extension/writes.js';
import { scanWrites } from './verifications/scan-commit.js';

export const BATCH_WRITERS = new URL(import.meta.url);

export const createBatchWriter: CreateBatchWriter = (dialect: Dialect) => batchWriterOf([scanWrites(dialect), extensionWrites]);

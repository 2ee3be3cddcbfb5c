// The kinds of writes the group commit batches (src/db/group-commit.ts), for the
// serving process and for the SQLite commit thread, which imports this module.
import type { Dialect } from './db/database.js';
import { writeKindsOf, type CreateWriteKinds } from './db/group-commit.js';
import { extensionWrites } from './extension/writes.js';
import { scanWrites } from './verifications/scan-commit.js';

export const WRITE_KINDS = new URL(import.meta.url);

export const createWriteKinds: CreateWriteKinds = (dialect: Dialect) => writeKindsOf([scanWrites(dialect), extensionWrites]);

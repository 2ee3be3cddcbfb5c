// Part of the composition root: the kinds of writes the features hand to the group
// commit (src/db/group-commit.ts), for the serving process and for the SQLite commit
// thread, which imports this module by its URL.
import type { Dialect } from './db/database.js';
import { writeKindsOf, type CreateWriteKinds } from './db/group-commit.js';
import { openOrJoinCases } from './cases/feature.js';
import { extensionWrites } from './extension/feature.js';
import { scanWrites } from './verifications/feature.js';

export const WRITE_KINDS = new URL(import.meta.url);

export const createWriteKinds: CreateWriteKinds = (dialect: Dialect) => writeKindsOf([scanWrites(dialect, openOrJoinCases), extensionWrites]);

// One shard of the integration tier: the files test/kit/tiers.ts deals to this file's number.
import { runFiles, shardOf } from '../kit/tiers.js';

await runFiles(shardOf(import.meta.filename));

// The tiers of the suite, found by name: `*.unit.test.ts` need no server, database or other
// service; `*.solo.test.ts` need a process of their own (the SQL snapshot records what a fresh
// process compiles); every other `*.test.ts` is an integration test. The unit and integration
// tiers run their files in a few processes rather than one each: the suite's time on a 2-core
// machine was mostly start-up (tsx and the modules a test imports, paid again by every file).
import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = join(import.meta.dirname, '..');

const tierOf = (file: string) => (file.endsWith('.unit.test.ts') ? 'unit' : file.endsWith('.solo.test.ts') ? 'solo' : 'integration');

export function testFiles(tier: 'unit' | 'integration'): string[] {
  return readdirSync(ROOT, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.ts') && tierOf(file) === tier)
    .sort();
}

/** Imports the files of a tier in this process, in name order. */
export async function runFiles(files: string[]): Promise<void> {
  for (const file of files) await import(pathToFileURL(join(ROOT, file)).href);
}

/** The integration files of one shard (test/shards/N.ts, N of SHARDS), dealt in name order. */
export function shardOf(shardFile: string): string[] {
  const index = Number(basename(shardFile, '.ts'));
  const count = readdirSync(join(ROOT, 'shards')).filter((f) => /^\d+\.ts$/.test(f)).length;
  return testFiles('integration').filter((_, i) => i % count === index - 1);
}

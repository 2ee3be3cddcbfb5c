// The tiers of the suite, found by name: `*.unit.test.ts` need no server, database or other
// service; `*.solo.test.ts` need a process of their own (the SQL snapshot records what a fresh
// process compiles); every other `*.test.ts` is an integration test. The unit and integration
// tiers run their files in a few processes rather than one each: the suite's time on a 2-core
// machine was mostly start-up (tsx and the modules a test imports, paid again by every file).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
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

/**
 * The integration files of one shard (test/shards/N.ts, N of SHARDS). Files are dealt longest first, each
 * to the shard with the least time so far, by the durations test/kit/durations.mjs recorded; a file not
 * recorded yet counts as the median. Balanced shards end together: the suite's time is its CPU time
 * over the cores, not that plus one long shard running alone at the end.
 */
export function shardOf(shardFile: string): string[] {
  const index = Number(basename(shardFile, '.ts'));
  const count = readdirSync(join(ROOT, 'shards')).filter((f) => /^\d+\.ts$/.test(f)).length;
  return dealt(testFiles('integration'), count)[index - 1]!;
}

function dealt(files: string[], count: number): string[][] {
  const recorded = join(ROOT, 'shards', 'durations.json');
  const durations: Record<string, number> = existsSync(recorded) ? JSON.parse(readFileSync(recorded, 'utf8')) : {};
  const known = files
    .map((f) => durations[f])
    .filter((d): d is number => d !== undefined)
    .sort((a, b) => a - b);
  const median = known.length > 0 ? known[Math.floor(known.length / 2)]! : 1;
  const weightOf = (file: string) => durations[file] ?? median;
  const shards = Array.from({ length: count }, () => ({ files: [] as string[], load: 0 }));
  const units = unitsOf(files).map((unit) => ({ files: unit, weight: unit.reduce((sum, f) => sum + weightOf(f), 0) }));
  // Name order breaks ties, so that every shard process deals the same hand.
  for (const unit of units.sort((a, b) => b.weight - a.weight || (a.files[0]! < b.files[0]! ? -1 : 1))) {
    const lightest = shards.reduce((min, shard) => (shard.load < min.load ? shard : min));
    lightest.files.push(...unit.files);
    lightest.load += unit.weight;
  }
  return shards.map((shard) => shard.files.sort());
}

/**
 * The files dealt together: those that drive the same pcscd reader (a vsmartcard-vpcd slot, named by the
 * default of their `TAPPROOF_TEST_…VPCD_PORT`) go to one shard, which runs its files one after another. The
 * reader holds one card and one connection; two shards using it at once fail with a PC/SC sharing violation.
 */
function unitsOf(files: string[]): string[][] {
  const byReader = new Map<string, string[]>();
  const alone: string[][] = [];
  for (const file of files) {
    const port = readerOf(file);
    if (port === undefined) alone.push([file]);
    else byReader.set(port, [...(byReader.get(port) ?? []), file]);
  }
  return [...alone, ...byReader.values()];
}

/** The vpcd port a test file drives (the default of its `TAPPROOF_TEST_…VPCD_PORT`), or undefined. */
export function readerOf(file: string): string | undefined {
  return /TAPPROOF_TEST_\w*VPCD_PORT\s*\?\?\s*(\d+)/.exec(readFileSync(join(ROOT, file), 'utf8'))?.[1];
}

// A test reporter that writes how long each integration file's tests took (test/shards/durations.json),
// which test/kit/tiers.ts deals the shards by. `npm run test:durations` runs the suite with it; run it
// again when files have grown, and commit the file. `npm run test:durations:files -- FILE…` times only the
// files named, one after another, and keeps every other file's time: a new file is timed in minutes, not in
// the suite's twenty (test/house/durations.unit.test.ts names the files that have no time yet). Files that
// no longer exist are dropped. Seconds, rounded to one decimal.
// Plain JavaScript: node loads reporters before the tsx hooks that would compile TypeScript.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(import.meta.dirname, '..');

/** @param {AsyncIterable<{ type: string, data: { file?: string, nesting: number, details?: { duration_ms?: number } } }>} source */
export default async function* durations(source) {
  /** @type {Map<string, number>} */
  const seconds = new Map();
  for await (const { type, data } of source) {
    // A shard's file-level tests are at nesting 0 and name the test file they come from.
    if ((type !== 'test:pass' && type !== 'test:fail') || data.nesting !== 0 || !data.file) continue;
    const file = relative(ROOT, data.file);
    if (file.startsWith('..') || file.endsWith('.unit.test.ts') || file.endsWith('.solo.test.ts')) continue;
    seconds.set(file, (seconds.get(file) ?? 0) + (data.details?.duration_ms ?? 0) / 1000);
  }
  const recorded = join(ROOT, 'shards', 'durations.json');
  const kept = existsSync(recorded) ? Object.entries(JSON.parse(readFileSync(recorded, 'utf8'))) : [];
  const merged = new Map([...kept.filter(([file]) => existsSync(join(ROOT, file))), ...seconds.entries()]);
  const sorted = Object.fromEntries([...merged.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([file, s]) => [file, Math.round(s * 10) / 10]));
  writeFileSync(recorded, JSON.stringify(sorted, null, 2) + '\n');
  yield `durations of ${seconds.size} files written to test/shards/durations.json\n`;
}

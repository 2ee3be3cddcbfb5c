// The shards are dealt by the time each integration file took (test/kit/tiers.ts): a file with no time
// counts as the median, so a long new file can leave one shard running alone at the end of `npm test`.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { readerOf, shardOf, testFiles } from '../kit/tiers.js';

const RECORDED = join(import.meta.dirname, '..', 'shards', 'durations.json');

test('test/shards/durations.json has a time for every integration file and for no other', () => {
  const files = testFiles('integration');
  const recorded = Object.keys(JSON.parse(readFileSync(RECORDED, 'utf8')) as Record<string, number>);
  const missing = files.filter((file) => !recorded.includes(file)).map((file) => `test/${file}`);
  const gone = recorded.filter((file) => !files.includes(file)).map((file) => `test/${file}`);
  assert.ok(
    missing.length === 0,
    `test/shards/durations.json has no time for ${missing.length} integration file(s). Time them, one after another ` +
      `(each alone on the cores), and commit test/shards/durations.json:\n\n  npm run test:durations:files -- ${missing.join(' ')}\n`,
  );
  assert.ok(
    gone.length === 0,
    `test/shards/durations.json names ${gone.length} file(s) that are not integration tests (any more): ${gone.join(', ')}. ` +
      `Delete their entries (any run of npm run test:durations:files drops them).`,
  );
});

test('the files that drive one pcscd reader are dealt to one shard, and every file to exactly one', () => {
  const count = readdirSync(join(import.meta.dirname, '..', 'shards')).filter((f) => /^\d+\.ts$/.test(f)).length;
  const shards = Array.from({ length: count }, (_, i) => shardOf(join(import.meta.dirname, '..', 'shards', `${i + 1}.ts`)));
  const dealt = shards.flat();
  assert.deepEqual([...dealt].sort(), testFiles('integration'));
  const readers = new Map<string, Set<number>>();
  shards.forEach((files, shard) => {
    for (const file of files) {
      const port = readerOf(file);
      if (port !== undefined) readers.set(port, (readers.get(port) ?? new Set()).add(shard));
    }
  });
  // Both vpcd slots are driven by two files each (the writer's and its rekey's; the chip link's and the sandbox story's).
  assert.deepEqual([...readers.keys()].sort(), ['35963', '35964']);
  for (const [port, inShards] of readers)
    assert.equal(inShards.size, 1, `the files on vpcd port ${port} run in shards ${[...inShards].map((s) => s + 1).join(', ')}`);
});

// The shards are dealt by the time each integration file took (test/kit/tiers.ts): a file with no time
// counts as the median, so a long new file can leave one shard running alone at the end of `npm test`.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { testFiles } from '../kit/tiers.js';

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

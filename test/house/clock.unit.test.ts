// Time that the platform stores or compares (created_at, expiry, event timestamps,
// secrets' overlap) comes from the clock a service is given (ctx.clock), so a
// test moves time forward instead of sleeping and every stamp of one change can
// be the same instant. Only the modules below read the process clock, each for a
// reason that is not the data's time.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';

const SRC = join(import.meta.dirname, '../../src');
const ALLOWED: Record<string, string> = {
  'time.ts': 'defines nowMicros and systemClock, the clock the server gives its context',
  'keys/cache.ts': 'the principal cache takes its clock as a field (Date.now by default); tests set it',
  'signals/thresholds.ts': 'the thresholds cache takes its clock as a field (Date.now by default), like the principal cache',
  'master-keys/masters.ts': 'how long the generations read are trusted without the change feed: a field (Date.now by default), like the principal cache',
  'http/rate-limit.ts': 'a backoff from a failed Redis must pass in real time, whatever a test did to the service clock',
  'db/database.ts': 'throttles a log line about lost PostgreSQL connections',
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

test('only the listed modules read the process clock (nowMicros, Date.now, new Date())', () => {
  const readers = sources(SRC)
    .filter((file) => /\bnowMicros\(\)|\bDate\.now\b|new Date\(\)/.test(readFileSync(file, 'utf8').replace(/\bclock\.nowMicros\(\)/g, '')))
    .map((file) => relative(SRC, file))
    .sort();
  assert.deepEqual(readers, Object.keys(ALLOWED).sort());
});

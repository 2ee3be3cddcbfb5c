// The server's heap policy (src/heap-policy.ts): a heap is let grow to 1.5× what its last full
// collection kept, not V8's own factor of up to 4×, unless the operator passed the node flag.
// Measured on one allocation pattern in child processes, with and without the policy: the old
// generation's peak size, with the collector on the main thread only (concurrent marking would
// let the overshoot past each limit depend on how the threads are scheduled) and a fixed 1 MiB
// young generation (one that grows would let the pattern's garbage die young in some runs).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const SCRIPT = fileURLToPath(new URL('../fixtures/heap/growth.ts', import.meta.url));
const run = (nodeArgs: string[], mode: 'server' | 'plain') =>
  JSON.parse(
    execFileSync(
      process.execPath,
      ['--single-threaded-gc', '--min-semi-space-size=1', '--max-semi-space-size=1', ...nodeArgs, '--import', 'tsx', SCRIPT, mode],
      { encoding: 'utf8' },
    ),
  ) as {
    peak: number;
    applied: boolean;
  };

test('the server policy keeps the heap well below what V8 lets it reach by default', () => {
  const plain = run([], 'plain');
  const server = run([], 'server');
  assert.equal(server.applied, true);
  assert.ok(server.peak < plain.peak * 0.6, `peak ${(server.peak / 1e6).toFixed(1)} MB with the policy, ${(plain.peak / 1e6).toFixed(1)} MB without`);
});

test("an operator's own --heap-growing-percent wins over the policy, in either spelling", () => {
  assert.equal(run(['--heap-growing-percent=300'], 'server').applied, false);
  assert.equal(run(['--heap_growing_percent=300'], 'server').applied, false);
  assert.equal(run(['--max-old-space-size=512'], 'server').applied, true);
});

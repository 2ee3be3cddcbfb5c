// The server's heap policy (src/heap-policy.ts): a heap is let grow to 1.5× what its last full
// collection kept, not V8's own factor of up to 4×, unless the operator passed the node flag.
// Measured on the same allocation pattern in child processes, with and without the policy.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const SCRIPT = fileURLToPath(new URL('../fixtures/heap/growth.ts', import.meta.url));
const peakOf = (nodeArgs: string[], mode: 'server' | 'plain') =>
  (JSON.parse(execFileSync(process.execPath, [...nodeArgs, '--import', 'tsx', SCRIPT, mode], { encoding: 'utf8' })) as { peak: number }).peak;

test('the server policy keeps the heap well below what V8 lets it reach by default', () => {
  const plain = peakOf([], 'plain');
  const server = peakOf([], 'server');
  assert.ok(server < plain * 0.75, `peak ${(server / 1e6).toFixed(1)} MB with the policy, ${(plain / 1e6).toFixed(1)} MB without`);
});

test("an operator's own --heap-growing-percent wins over the policy", () => {
  const server = peakOf([], 'server');
  const operator = peakOf(['--heap-growing-percent=300'], 'server');
  assert.ok(operator > server * 1.3, `peak ${(operator / 1e6).toFixed(1)} MB with the operator's 300 %, ${(server / 1e6).toFixed(1)} MB with the policy`);
});

// The id limit ±1 on every extension path that takes a verification id
// (VRF_ + 6 and 128 characters are well formed, + 5 and 129 are not), on both
// bases. The other limits are beside their endpoints: resource_url 2048/2049 and
// note 280/281 in claims.test.ts, GET ids in lookup.test.ts.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { DATABASES, sharedServer } from '../kit/harness.js';
import { ext } from './helpers.js';

const id = (length: number) => 'VRF_' + 'aB3'.repeat(43).slice(0, length);
const FORMAT = { error: 'Invalid verification ID format' };
const NOT_FOUND = { error: 'Verification not found' };

for (const kind of DATABASES) {
  describe(`extension id limits (${kind})`, () => {
    const suite = sharedServer(kind);

    test('GET, challenge and proof paths: VRF_ + 5 / 129 → 400 Invalid verification ID format; + 6 / 128 → 404 Verification not found', async () => {
      const { server } = suite;
      const proof = { session_id: randomUUID(), address: '0x' + '1'.repeat(40), signature: '0x00' };
      const calls: [string, (path: string) => string, { body?: unknown }][] = [
        ['GET', (p) => p, {}],
        ['POST', (p) => `${p}/challenge`, {}],
        ['POST', (p) => `${p}/challenge`, { body: {} }],
        ['POST', (p) => `${p}/proof`, { body: proof }],
      ];
      for (const mode of ['production', 'sandbox'] as const) {
        for (const [method, path, options] of calls) {
          for (const [length, expected] of [
            [5, FORMAT],
            [6, NOT_FOUND],
            [128, NOT_FOUND],
            [129, FORMAT],
          ] as const) {
            const r = await ext(server, method, path(`/verifications/${id(length)}`), { ...options, mode });
            const label = `${mode} ${method} ${path('…')} VRF_+${length}`;
            assert.equal(r.status, expected === FORMAT ? 400 : 404, label);
            assert.deepEqual(r.body, expected, label);
          }
        }
      }
    });
  });
}

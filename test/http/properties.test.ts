// Property-based checks (fast-check) over every route of the platform API
// (docs/hardening.md#property-based-suite), against the real HTTP server on both databases. Bodies are built
// from the attribute rules and valid more often than not, the rest malformed in
// one way or another. For every request: never a 5xx, and every 4xx is a JSON:API
// error document (one error with status and title; 422: one per pointer with
// detail and source.pointer). Whatever a route creates reads back exactly as its
// create answered, with the values that were sent.
//
// Routes: every platform route of test/http/routes.ts that the properties drive; the
// extension's /ext routes have their own tests. Each property runs RUNS cases per
// database (seeded, so a failure replays): 350 per write route and per GET by id,
// and more requests to the GET routes that every create reads back through. The
// count is bounded by what one process can run within the suite's time on a 2-core
// machine; PROPERTY_SCALE=3 runs about three times as many where time allows. The
// counts per route and status are printed as test diagnostics.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DATABASES } from '../kit/harness.js';
import { caseProperties } from './properties/cases.js';
import { catalogProperties } from './properties/catalog.js';
import { keyAndUserProperties } from './properties/keys-and-users.js';
import { propertySuite } from './properties/kit.js';
import { readProperties } from './properties/reads.js';
import { tagProperties } from './properties/tags.js';
import { verificationProperties } from './properties/verifications.js';
import { webhookProperties } from './properties/webhooks.js';
import { writerProperties } from './properties/writer.js';
import { ROUTES } from './routes.js';

for (const [dbIndex, kind] of DATABASES.entries()) {
  describe(`platform API properties (${kind})`, () => {
    const p = propertySuite(kind, dbIndex);
    // In this order: later groups read the pools (tags, urls) the earlier ones grew.
    for (const group of [
      tagProperties,
      readProperties,
      verificationProperties,
      caseProperties,
      webhookProperties,
      writerProperties,
      keyAndUserProperties,
      catalogProperties,
    ])
      group(p);

    test('every route of the route table was exercised', () => {
      assert.deepEqual([...p.tally.keys()].sort(), ROUTES.map((r) => `${r.method} ${r.pattern}`).sort());
    });
  });
}

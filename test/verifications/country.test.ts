// The country of a scan: from client_ip, or from the request's address only behind a
// trusted proxy; null for addresses no country owns. Stored with the verification.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { call, DATABASES, sharedServer } from '../kit/harness.js';
import { emulated, tapUrl, verify } from './helpers.js';

for (const kind of DATABASES) {
  describe(`the country of a scan (${kind})`, () => {
    const direct = sharedServer(kind);
    const proxied = sharedServer(kind, { TAPPROOF_TRUST_PROXY: '1' });

    test('client_ip decides the country, stored and read back; private, reserved and absent addresses have none', async () => {
      const { server, world } = direct;
      const cases: [string | undefined, string | null][] = [
        ['8.8.8.8', 'US'],
        ['2001:4860:4860::8888', 'US'],
        ['10.1.2.3', null],
        ['192.0.2.10', null],
        ['::1', null],
        [undefined, null],
      ];
      for (const [clientIp, country] of cases) {
        const tag = await emulated(server, world.teamId, 'ntag_424_dna');
        const scanned = await verify(server, world.sandbox.key, await tapUrl(server, tag.id), clientIp === undefined ? {} : { client_ip: clientIp });
        assert.equal(scanned.status, 201, scanned.text);
        assert.equal(scanned.body.data.attributes.country, country, `client_ip ${clientIp}`);
        const read = await call(server, 'GET', `/verifications/${scanned.body.data.id}`, { key: world.sandbox.key });
        assert.equal(read.body.data.attributes.country, country);
        const row = await server.ctx.db.kysely.selectFrom('verifications').select('country').where('id', '=', scanned.body.data.id).executeTakeFirstOrThrow();
        assert.equal(row.country, country);
      }
    });

    test('without a trusted proxy a forwarded address is ignored; behind one, it gives the country when client_ip is absent', async () => {
      for (const [suite, expected] of [
        [direct, null],
        [proxied, 'US'],
      ] as const) {
        const tag = await emulated(suite.server, suite.world.teamId, 'ntag_424_dna');
        const url = await tapUrl(suite.server, tag.id);
        const scanned = await call(suite.server, 'POST', '/verifications', {
          key: suite.world.sandbox.key,
          headers: { 'x-forwarded-for': '8.8.8.8' },
          body: { data: { type: 'verifications', attributes: { url } } },
        });
        assert.equal(scanned.status, 201, scanned.text);
        assert.equal(scanned.body.data.attributes.country, expected);
      }
      // client_ip wins over the forwarded address.
      const tag = await emulated(proxied.server, proxied.world.teamId, 'ntag_424_dna');
      const scanned = await call(proxied.server, 'POST', '/verifications', {
        key: proxied.world.sandbox.key,
        headers: { 'x-forwarded-for': '8.8.8.8' },
        body: { data: { type: 'verifications', attributes: { url: await tapUrl(proxied.server, tag.id), client_ip: '10.0.0.7' } } },
      });
      assert.equal(scanned.body.data.attributes.country, null);
    });
  });
}

// A counterfeiting campaign played out in time against the real API: a genuine chip tapped for days
// in one country, ten URLs harvested from it and used abroad, the genuine chip tapped again, the
// rest of the harvest replayed; beside it, a thousand ordinary scans. Every scan's signals are exact.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DATABASES, call, startServer, type SeededTeam, type TestServer } from '../kit/harness.js';
import { emulated, tapUrl, verify } from '../verifications/helpers.js';

const US = '8.8.8.8';
const DE = '5.9.0.1';
const GB = '81.2.69.142';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

for (const kind of DATABASES) {
  describe(`a counterfeiting campaign (${kind})`, () => {
    let server: TestServer;
    let world: SeededTeam;

    before(async () => {
      server = await startServer(kind);
      world = await server.seedTeam();
    });
    after(() => server.close());

    const flaggedIds = new Set<string>();
    async function scan(url: string, clientIp: string, afterMs: number): Promise<[string, string[]]> {
      server.clock.advance(afterMs);
      const response = await verify(server, world.sandbox.key, url, { client_ip: clientIp });
      assert.equal(response.status, 201, response.text);
      const { reason, signals } = response.body.data.attributes;
      if (signals.length > 0) flaggedIds.add(response.body.data.id);
      return [reason, signals];
    }

    test('1,000 ordinary scans of 20 tags in one country over days carry no signal at all', async () => {
      const tags = await Promise.all(Array.from({ length: 20 }, () => emulated(server, world.teamId, 'ntag_424_dna')));
      const seen: string[] = [];
      for (let i = 0; i < 1000; i++) {
        const [reason, signals] = await scan(await tapUrl(server, tags[i % 20]!.id), US, 7 * MINUTE);
        assert.equal(reason, 'ok');
        seen.push(...signals);
      }
      assert.deepEqual(seen, []);
      const flagged = await call(server, 'GET', '/verifications?flagged=true', { key: world.sandbox.key });
      assert.deepEqual(flagged.body.data, []);
    });

    test('the harvest: counter_gap on the genuine tap after it, country_jump where countries alternate, replay_burst on the leftovers', async () => {
      const genuine = await emulated(server, world.teamId, 'ntag_424_dna');
      const tapGenuine = async (afterMs: number) => scan(await tapUrl(server, genuine.id), US, afterMs);
      const timeline: [string, [string, string[]], [string, string[]]][] = [];
      const expect = (what: string, got: [string, string[]], expected: [string, string[]]) => timeline.push([what, got, expected]);

      // Five days of the genuine item in its country.
      for (let day = 0; day < 5; day++) expect(`day ${day + 1}`, await tapGenuine(24 * HOUR), ['ok', []]);
      // A day later ten URLs are read from it and never sent; copies carry them abroad.
      server.clock.advance(24 * HOUR);
      const harvested: string[] = [];
      for (let i = 0; i < 10; i++) harvested.push(await tapUrl(server, genuine.id));
      expect('copy 1 in DE, a day after the last genuine scan', await scan(harvested[0]!, DE, HOUR), ['ok', []]);
      expect('copy 2 in GB, half an hour later', await scan(harvested[1]!, GB, 30 * MINUTE), ['ok', ['country_jump']]);
      expect('copy 3 in DE', await scan(harvested[2]!, DE, 30 * MINUTE), ['ok', ['country_jump']]);
      // The genuine item is tapped at home: 8 reads since the last genuine one, from another country an hour later.
      expect('the genuine item at home', await tapGenuine(HOUR), ['ok', ['counter_gap', 'country_jump']]);
      expect('copy 4 in DE', await scan(harvested[3]!, DE, 10 * MINUTE), ['replayed', []]);
      expect('copy 5 in DE', await scan(harvested[4]!, DE, 10 * MINUTE), ['replayed', []]);
      expect('copy 6 in DE', await scan(harvested[5]!, DE, 10 * MINUTE), ['replayed', ['replay_burst']]);
      expect('copy 10 in GB', await scan(harvested[9]!, GB, 10 * MINUTE), ['replayed', ['replay_burst']]);
      expect('the genuine item at home again', await tapGenuine(HOUR), ['ok', []]);
      assert.deepEqual(
        timeline.map(([what, got]) => [what, ...got]),
        timeline.map(([what, , expected]) => [what, ...expected]),
      );

      // What the operator sees: exactly these scans flagged, counted per signal.
      const listed = await call(server, 'GET', '/verifications?flagged=true&page_size=100', { key: world.sandbox.key });
      assert.deepEqual(new Set(listed.body.data.map((v: { id: string }) => v.id)), flaggedIds);
      assert.equal(flaggedIds.size, 5);
      const since = new Date(server.clock.nowMicros() / 1000 - 30 * 24 * HOUR).toISOString().slice(0, 10);
      const stats = await call(server, 'GET', `/verifications/stats?since=${since}`, { key: world.sandbox.key });
      assert.equal(stats.status, 200, stats.text);
      assert.deepEqual(
        { flagged: stats.body.meta.totals.flagged, ...stats.body.meta.totals.by_signal },
        { flagged: 5, counter_gap: 1, country_jump: 3, replay_burst: 2, tamper_opened: 0, tamper_open: 0 },
      );
      // And what the process counted for Prometheus.
      const counted = (await server.ctx.metrics.signals.get()).values.map((v) => [v.labels.signal, v.value]);
      assert.deepEqual(Object.fromEntries(counted), { counter_gap: 1, country_jump: 3, replay_burst: 2 });
    });
  });
}

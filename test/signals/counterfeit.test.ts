// Counterfeit signals (docs/signals.md) through the real API: each signal at its threshold and one
// step short of it, out-of-order arrival, the thresholds of a team and mode, the list filters, the
// statistics and the opt-in verification.flagged event. A signal never changes the verdict.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DATABASES, call, startServer, type SeededTeam, type TestServer } from '../kit/harness.js';
import { assertError, assertJsonApi, assertValidation } from '../kit/assertions.js';
import { FAST_WEBHOOKS, startDelivery, type Receiver } from '../webhooks/receiver.js';
import { emulated, flipHexDigit, tamper, tapUrl, verify } from '../verifications/helpers.js';
import { backfill } from '../../src/db/migrations/0021_signals.js';
import { FLAG_WINDOW_SECONDS, announceHeldScans } from '../../src/verifications/flagged-events.js';

const US = '8.8.8.8';
const DE = '5.9.0.1';
const GB = '81.2.69.142';
const PRIVATE = '10.0.0.1';
const HOUR = 3_600_000;
const DEFAULTS = { counter_gap: 5, country_jump_window: 21_600, replay_burst: 3 };

for (const kind of DATABASES) {
  describe(`counterfeit signals (${kind})`, () => {
    let server: TestServer;
    let delivery: Awaited<ReturnType<typeof startDelivery>>;
    let receiver: Receiver;

    before(async () => {
      server = await startServer(kind, FAST_WEBHOOKS);
      delivery = await startDelivery(server.ctx);
      receiver = delivery.receiver;
    });
    after(async () => {
      await delivery.stop();
      await server.close();
    });

    /** A fresh team: thresholds and counts are per team and mode. */
    const team = () => server.seedTeam();

    async function scan(world: SeededTeam, url: string, clientIp?: string) {
      const response = await verify(server, world.sandbox.key, url, clientIp === undefined ? {} : { client_ip: clientIp });
      assert.equal(response.status, 201, response.text);
      return response.body.data as { id: string; attributes: { genuine: boolean; reason: string; signals: string[]; country: string | null } };
    }
    /** A fresh tap of the tag, verified. */
    const tapAndScan = async (world: SeededTeam, tagId: string, clientIp?: string) => scan(world, await tapUrl(server, tagId), clientIp);
    /** URLs read from the chip and never sent (a harvest). */
    async function harvest(tagId: string, count: number): Promise<string[]> {
      const urls = [];
      for (let i = 0; i < count; i++) urls.push(await tapUrl(server, tagId));
      return urls;
    }
    const patchThresholds = (world: SeededTeam, thresholds: Record<string, unknown>, key = world.sandbox.key) =>
      call(server, 'PATCH', '/teams/current', { key, body: { data: { type: 'teams', attributes: { signal_thresholds: thresholds } } } });

    test('an ordinary genuine scan carries signals: [] and is genuine, reason ok', async () => {
      const world = await team();
      const tag = await emulated(server, world.teamId, 'ntag_424_dna');
      const first = await tapAndScan(world, tag.id, US);
      assert.deepEqual([first.attributes.genuine, first.attributes.reason, first.attributes.signals], [true, 'ok', []]);
      const read = await call(server, 'GET', `/verifications/${first.id}`, { key: world.sandbox.key });
      assert.deepEqual(read.body.data.attributes.signals, []);
      const row = await server.ctx.db.kysely.selectFrom('verifications').select('signals').where('id', '=', first.id).executeTakeFirstOrThrow();
      assert.equal(row.signals, null);
    });

    test('counter_gap: more than the threshold of unverified reads between two genuine scans; the threshold itself is quiet', async () => {
      const world = await team();
      const tag = await emulated(server, world.teamId, 'ntag_424_dna');
      // The first genuine scan has no earlier counter to compare with, however many reads came before.
      await harvest(tag.id, 9);
      assert.deepEqual((await tapAndScan(world, tag.id)).attributes.signals, []);
      await harvest(tag.id, 4); // counter 5 above the last genuine one: at the threshold
      assert.deepEqual((await tapAndScan(world, tag.id)).attributes.signals, []);
      await harvest(tag.id, 5); // 6 above
      const gap = await tapAndScan(world, tag.id);
      assert.deepEqual([gap.attributes.genuine, gap.attributes.reason, gap.attributes.signals], [true, 'ok', ['counter_gap']]);
      assert.deepEqual((await tapAndScan(world, tag.id)).attributes.signals, []);

      assert.equal((await patchThresholds(world, { counter_gap: 2 })).status, 200);
      await harvest(tag.id, 1); // 2 above
      assert.deepEqual((await tapAndScan(world, tag.id)).attributes.signals, []);
      await harvest(tag.id, 2); // 3 above
      assert.deepEqual((await tapAndScan(world, tag.id)).attributes.signals, ['counter_gap']);
    });

    test('country_jump: another country less than the window after the previous genuine scan; unknown countries never jump', async () => {
      const world = await team();
      const tag = await emulated(server, world.teamId, 'ntag_424_dna');
      const scanAfter = async (ms: number, ip: string) => {
        server.clock.advance(ms);
        return (await tapAndScan(world, tag.id, ip)).attributes;
      };
      assert.deepEqual((await scanAfter(1, US)).signals, []);
      const jumped = await scanAfter(HOUR, DE);
      assert.deepEqual([jumped.genuine, jumped.country, jumped.signals], [true, 'DE', ['country_jump']]);
      assert.deepEqual((await scanAfter(6 * HOUR, US)).signals, [], 'exactly the window after: not less than it');
      assert.deepEqual((await scanAfter(6 * HOUR - 1_000, GB)).signals, ['country_jump'], 'a second short of the window');
      assert.deepEqual((await scanAfter(60_000, GB)).signals, [], 'the same country');
      assert.deepEqual((await scanAfter(60_000, PRIVATE)).signals, [], 'an unknown country');
      assert.deepEqual((await scanAfter(60_000, DE)).signals, [], 'after an unknown country');

      assert.equal((await patchThresholds(world, { country_jump_window: 0 })).status, 200);
      assert.deepEqual((await scanAfter(1_000, US)).signals, [], 'a window of 0 turns it off');
    });

    test('replay_burst: the threshold-th refused scan of a tag within an hour, whatever the reasons; reloads and genuine scans never count', async () => {
      const world = await team();
      const tag = await emulated(server, world.teamId, 'ntag_424_dna');
      const [older, newer] = await harvest(tag.id, 2);
      assert.deepEqual((await scan(world, newer!)).attributes.signals, []);
      const refused = async (url: string) => {
        const v = (await scan(world, url)).attributes;
        assert.equal(v.genuine, false);
        return [v.reason, v.signals];
      };
      assert.deepEqual(await refused(older!), ['replayed', []]);
      const reload = await verify(server, world.sandbox.key, newer);
      assert.equal(reload.body.meta.repeat, true, 'a reload answers the original and is no refusal');
      assert.deepEqual(await refused(flipHexDigit(newer!)), ['bad_cmac', []]);
      assert.deepEqual(await refused(older!), ['replayed', ['replay_burst']]);
      assert.deepEqual(await refused(flipHexDigit(older!)), ['bad_cmac', ['replay_burst']]);
      // A genuine scan in the middle of a burst is not part of it.
      assert.deepEqual((await tapAndScan(world, tag.id)).attributes.signals, []);
      // An hour later the earlier refusals have left the window.
      server.clock.advance(HOUR + 1_000);
      assert.deepEqual(await refused(older!), ['replayed', []]);
      assert.deepEqual(await refused(older!), ['replayed', []]);
      assert.deepEqual(await refused(older!), ['replayed', ['replay_burst']]);

      assert.equal((await patchThresholds(world, { replay_burst: 1 })).status, 200);
      server.clock.advance(HOUR + 1_000);
      assert.deepEqual(await refused(older!), ['replayed', ['replay_burst']], 'a threshold of 1 flags every refusal');
    });

    test('tamper_opened on the first genuine scan that reports the loop open, tamper_open on every later one', async () => {
      const world = await team();
      const tag = await emulated(server, world.teamId, 'ntag_424_dna_tag_tamper');
      const closed = await tapAndScan(world, tag.id);
      assert.deepEqual(closed.attributes.signals, []);
      await tamper(server, tag.id, 'open');
      const opened = (await call(server, 'GET', `/verifications/${(await tapAndScan(world, tag.id)).id}`, { key: world.sandbox.key })).body.data.attributes;
      assert.deepEqual([opened.genuine, opened.reason, opened.tamper, opened.signals], [true, 'ok', { permanent: 'open', current: 'open' }, ['tamper_opened']]);
      assert.deepEqual((await tapAndScan(world, tag.id)).attributes.signals, ['tamper_open']);
      await tamper(server, tag.id, 'closed'); // the loop closed again: the permanent status stays open
      assert.deepEqual((await tapAndScan(world, tag.id)).attributes.signals, ['tamper_open']);
      const plain = await emulated(server, world.teamId, 'ntag_424_dna');
      assert.deepEqual((await tapAndScan(world, plain.id)).attributes.signals, []);
    });

    test('out of order: a harvest sent newest first flags the gap once; the older URLs are replays that make a burst', async () => {
      const world = await team();
      const tag = await emulated(server, world.teamId, 'ntag_424_dna_tag_tamper');
      await tapAndScan(world, tag.id);
      const urls = await harvest(tag.id, 7);
      const newest = await scan(world, urls[6]!);
      assert.deepEqual([newest.attributes.genuine, newest.attributes.signals], [true, ['counter_gap']]);
      const rest = [];
      for (const url of [urls[2]!, urls[0]!, urls[5]!]) rest.push((await scan(world, url)).attributes);
      assert.deepEqual(
        rest.map((v) => [v.reason, v.signals]),
        [
          ['replayed', []],
          ['replayed', []],
          ['replayed', ['replay_burst']],
        ],
      );
      // Signals are several at once, in one order.
      await tamper(server, tag.id, 'open');
      await harvest(tag.id, 6);
      server.clock.advance(1_000);
      const both = await tapAndScan(world, tag.id, US);
      assert.deepEqual(both.attributes.signals, ['counter_gap', 'tamper_opened']);
    });

    test('GET /verifications?flagged and ?signal list exactly the flagged scans, newest first, paged; stats count them per day', async () => {
      const world = await team();
      const tag = await emulated(server, world.teamId, 'ntag_424_dna');
      const other = await emulated(server, world.teamId, 'ntag_424_dna');
      const made: { id: string; signals: string[]; tag: string }[] = [];
      const keep = (tagId: string, v: Awaited<ReturnType<typeof scan>>) => made.push({ id: v.id, signals: v.attributes.signals, tag: tagId });
      keep(tag.id, await tapAndScan(world, tag.id, US));
      await harvest(tag.id, 6);
      keep(tag.id, await tapAndScan(world, tag.id, DE)); // counter_gap, country_jump
      keep(other.id, await tapAndScan(world, other.id, US));
      await harvest(other.id, 6);
      keep(other.id, await tapAndScan(world, other.id, US)); // counter_gap
      keep(tag.id, await tapAndScan(world, tag.id, DE));
      const stale = await tapUrl(server, tag.id);
      keep(tag.id, await tapAndScan(world, tag.id, DE));
      for (let i = 0; i < 3; i++) keep(tag.id, await scan(world, stale)); // replayed ×3, the third replay_burst
      assert.deepEqual(
        made.map((m) => m.signals),
        [[], ['counter_gap', 'country_jump'], [], ['counter_gap'], [], [], [], [], ['replay_burst']],
      );
      const newestFirst = (pick: (m: (typeof made)[number]) => boolean) =>
        made
          .filter(pick)
          .map((m) => m.id)
          .reverse();
      const walk = async (query: string) => {
        const ids: string[] = [];
        let next: string | null = `/verifications?page_size=1&${query}`;
        while (next) {
          const page = await call(server, 'GET', next.replace(/^\/api\/v1/, ''), { key: world.sandbox.key });
          assert.equal(page.status, 200, page.text);
          ids.push(...page.body.data.map((d: { id: string }) => d.id));
          next = page.body.links.next;
        }
        return ids;
      };
      assert.deepEqual(
        await walk('flagged=true'),
        newestFirst((m) => m.signals.length > 0),
      );
      assert.deepEqual(
        await walk('flagged=false'),
        newestFirst((m) => m.signals.length === 0),
      );
      for (const signal of ['counter_gap', 'country_jump', 'replay_burst', 'tamper_opened', 'tamper_open'])
        assert.deepEqual(
          await walk(`signal=${signal}`),
          newestFirst((m) => m.signals.includes(signal)),
          signal,
        );
      assert.deepEqual(
        await walk(`signal=counter_gap&tag_id=${other.id}`),
        newestFirst((m) => m.tag === other.id && m.signals.includes('counter_gap')),
      );
      assert.deepEqual(
        await walk('flagged=true&genuine=false'),
        newestFirst((m) => m.signals.includes('replay_burst')),
      );
      assert.deepEqual(
        await walk('flagged=true&reason=ok'),
        newestFirst((m) => m.signals.includes('counter_gap')),
      );
      // Another team's key sees none of them.
      const stranger = await team();
      const theirs = await call(server, 'GET', '/verifications?flagged=true', { key: stranger.sandbox.key });
      assert.deepEqual(theirs.body, { data: [], links: { next: null } });

      const today = new Date(server.ctx.clock.nowMicros() / 1000).toISOString().slice(0, 10);
      const stats = await call(server, 'GET', `/verifications/stats?since=${today}&until=${today}`, { key: world.sandbox.key });
      assert.equal(stats.status, 200, stats.text);
      const expected = { flagged: 3, by_signal: { counter_gap: 2, country_jump: 1, replay_burst: 1, tamper_opened: 0, tamper_open: 0 } };
      const { totals, days } = stats.body.meta;
      assert.deepEqual({ flagged: totals.flagged, by_signal: totals.by_signal }, expected);
      assert.deepEqual({ flagged: days[0].flagged, by_signal: days[0].by_signal }, expected);
      assert.equal(totals.count, made.length);
      // Per country, of its scans the flagged ones: the jump and a gap, the replays' burst of no known address.
      assert.deepEqual(totals.by_country, [
        { country: null, count: 3, flagged: 1 },
        { country: 'DE', count: 3, flagged: 1 },
        { country: 'US', count: 3, flagged: 1 },
      ]);
      assert.deepEqual(days[0].by_country, totals.by_country);
    });

    test('bad filters are 400 naming the parameter', async () => {
      const world = await team();
      for (const [query, parameter] of [
        ['signal=counterfeit', 'signal'],
        ['signal=', 'signal'],
        ['signal=counter_gap&signal=country_jump', 'signal'],
        ['flagged=yes', 'flagged'],
        ['flagged=TRUE', 'flagged'],
        ['flagged=false&signal=counter_gap', 'flagged'],
      ]) {
        const response = await call(server, 'GET', `/verifications?${query}`, { key: world.sandbox.key });
        assert.equal(response.status, 400, query);
        assert.equal(response.body.errors.length, 1);
        assert.deepEqual(response.body.errors[0].source, { parameter }, query);
      }
    });

    test("GET /teams/current shows the thresholds of the key's mode; PATCH changes any of them for that team and mode only", async () => {
      const world = await team();
      const bystander = await team();
      const current = async (key: string) => {
        const response = await call(server, 'GET', '/teams/current', { key });
        assert.equal(response.status, 200, response.text);
        return response.body.data.attributes.signal_thresholds;
      };
      assert.deepEqual(await current(world.sandbox.key), DEFAULTS);
      const patched = await patchThresholds(world, { counter_gap: 10 });
      assert.equal(patched.status, 200, patched.text);
      assertJsonApi(patched);
      assert.deepEqual(patched.body.data.attributes.signal_thresholds, { ...DEFAULTS, counter_gap: 10 });
      assert.equal(patched.body.data.id, world.teamId);
      assert.deepEqual((await patchThresholds(world, { replay_burst: 7, country_jump_window: 60 })).body.data.attributes.signal_thresholds, {
        counter_gap: 10,
        country_jump_window: 60,
        replay_burst: 7,
      });
      assert.deepEqual(await current(world.sandbox.key), { counter_gap: 10, country_jump_window: 60, replay_burst: 7 });
      const byId = await call(server, 'GET', `/teams/${world.teamId}`, { key: world.sandbox.key });
      assert.deepEqual(byId.body.data.attributes.signal_thresholds, { counter_gap: 10, country_jump_window: 60, replay_burst: 7 });
      // Two changes of different thresholds at once: both stay.
      const both = await Promise.all([patchThresholds(world, { counter_gap: 8 }), patchThresholds(world, { replay_burst: 9 })]);
      assert.deepEqual(
        both.map((r) => r.status),
        [200, 200],
      );
      assert.deepEqual(await current(world.sandbox.key), { counter_gap: 8, country_jump_window: 60, replay_burst: 9 });
      await patchThresholds(world, { counter_gap: 10, replay_burst: 7 });
      // The other mode and another team keep theirs.
      assert.deepEqual(await current(world.production.key), DEFAULTS);
      assert.deepEqual(await current(bystander.sandbox.key), DEFAULTS);
      // No attributes, or an id that is the team's: nothing changes.
      const empty = await call(server, 'PATCH', '/teams/current', {
        key: world.sandbox.key,
        body: { data: { type: 'teams', id: world.teamId, attributes: {} } },
      });
      assert.equal(empty.status, 200, empty.text);
      assert.deepEqual(empty.body.data.attributes.signal_thresholds, { counter_gap: 10, country_jump_window: 60, replay_burst: 7 });
    });

    test('PATCH /teams/current: each bad threshold is a 422 at its path, limits ±1; bad documents are 400; nothing changes', async () => {
      const world = await team();
      const pointer = (name: string) => `/data/attributes/signal_thresholds/${name}`;
      const accepted: [string, number][] = [
        ['counter_gap', 1],
        ['counter_gap', 16_777_215],
        ['country_jump_window', 0],
        ['country_jump_window', 2_592_000],
        ['replay_burst', 1],
        ['replay_burst', 10_000],
      ];
      for (const [name, value] of accepted) assert.equal((await patchThresholds(world, { [name]: value })).status, 200, `${name} ${value}`);
      assert.equal((await patchThresholds(world, DEFAULTS)).status, 200);
      const refusals: [Record<string, unknown>, string[]][] = [
        [{ counter_gap: 0 }, [pointer('counter_gap')]],
        [{ counter_gap: 16_777_216 }, [pointer('counter_gap')]],
        [{ country_jump_window: -1 }, [pointer('country_jump_window')]],
        [{ country_jump_window: 2_592_001 }, [pointer('country_jump_window')]],
        [{ replay_burst: 0 }, [pointer('replay_burst')]],
        [{ replay_burst: 10_001 }, [pointer('replay_burst')]],
        [{ counter_gap: 2.5 }, [pointer('counter_gap')]],
        [{ counter_gap: '5' }, [pointer('counter_gap')]],
        [{ counter_gap: null }, [pointer('counter_gap')]],
        [{ counter_gap: 0, replay_burst: 0, flagged: 1 }, [pointer('counter_gap'), pointer('replay_burst'), pointer('flagged')]],
      ];
      for (const [thresholds, pointers] of refusals) {
        const response = await patchThresholds(world, thresholds);
        assertValidation(response, pointers);
      }
      for (const value of [5, 'x', [], null]) assertValidation(await patchThresholds(world, value as never), ['/data/attributes/signal_thresholds']);
      const named = await patchThresholds(world, { replay_burst: 0 });
      assert.equal(named.body.errors[0].detail, 'replay_burst must be an integer from 1 to 10000');
      for (const attributes of [{ name: 'Renamed' }, { parent_id: null }, { created_at: '2026-01-01T00:00:00Z' }, { colour: 'red' }]) {
        const response = await call(server, 'PATCH', '/teams/current', { key: world.sandbox.key, body: { data: { type: 'teams', attributes } } });
        assertValidation(response, [`/data/attributes/${Object.keys(attributes)[0]}`]);
      }
      for (const body of [
        {},
        { data: null },
        { data: { type: 'tags', attributes: { signal_thresholds: { counter_gap: 9 } } } },
        { data: { type: 'teams' } },
        { data: { type: 'teams', attributes: [] } },
        { data: { type: 'teams', id: 'team_someoneelse0000000000', attributes: { signal_thresholds: { counter_gap: 9 } } } },
      ])
        assertError(await call(server, 'PATCH', '/teams/current', { key: world.sandbox.key, body }), 400);
      assertError(await call(server, 'PATCH', '/teams/current', { key: world.sandbox.key, body: '{"data":' }), 400);
      assertError(await call(server, 'PATCH', '/teams/current', { body: { data: { type: 'teams', attributes: {} } } }), 401);
      const stored = await server.ctx.db.kysely.selectFrom('signal_thresholds').selectAll().where('team_id', '=', world.teamId).execute();
      assert.deepEqual(
        stored.map(({ mode, counter_gap, country_jump_window, replay_burst }) => ({ mode, counter_gap, country_jump_window, replay_burst })),
        [{ mode: 'sandbox', ...DEFAULTS }],
      );
    });

    test("migration 0021 gives existing chips the memory the verify path keeps: the previous genuine scan's country and time, an opened seal", async () => {
      const world = await team();
      const plain = await emulated(server, world.teamId, 'ntag_424_dna');
      const sealed = await emulated(server, world.teamId, 'ntag_424_dna_tag_tamper');
      const unscanned = await emulated(server, world.teamId, 'ntag_424_dna');
      await tapAndScan(world, plain.id, US);
      await tapAndScan(world, plain.id, DE);
      await scan(world, flipHexDigit(await tapUrl(server, plain.id)), GB); // refused: not the previous genuine scan
      await tamper(server, sealed.id, 'open');
      await tapAndScan(world, sealed.id, PRIVATE);
      await tamper(server, sealed.id, 'closed');
      await tapAndScan(world, sealed.id);
      const db = server.ctx.db.kysely;
      const ids = [plain.id, sealed.id, unscanned.id];
      const memory = () =>
        db.selectFrom('chips').select(['tag_id', 'last_country', 'last_genuine_at', 'tamper_opened']).where('tag_id', 'in', ids).orderBy('tag_id').execute();
      const live = await memory();
      assert.deepEqual(
        live.map((c) => [c.tag_id, c.last_country, c.last_genuine_at === null, c.tamper_opened]),
        [
          [plain.id, 'DE', false, 0],
          [sealed.id, null, false, 1],
          [unscanned.id, null, true, 0],
        ].sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1)),
      );
      await db.updateTable('chips').set({ last_country: null, last_genuine_at: null, tamper_opened: 0 }).where('tag_id', 'in', ids).execute();
      await backfill(db);
      assert.deepEqual(await memory(), live);
    });

    test('verification.flagged is coalesced per tag and signal: 100 forged scans make one event at once and one summary when the window ends', async () => {
      const world = await team();
      const [a, b] = [await emulated(server, world.teamId, 'ntag_424_dna'), await emulated(server, world.teamId, 'ntag_424_dna')];
      const forge = async (tagId: string, n: number) => {
        const url = flipHexDigit(await tapUrl(server, tagId));
        const out = [];
        // The same forged URL from many visitors: refused every time, flagged as a burst.
        for (let i = 0; i < n; i++) out.push(await scan(world, url));
        return out;
      };
      const flaggedOf = (scans: Awaited<ReturnType<typeof forge>>) => scans.filter((v) => v.attributes.signals.length > 0);
      const eventsOf = async () =>
        (
          await server.ctx.db.kysely
            .selectFrom('events')
            .select(['payload'])
            .where('team_id', '=', world.teamId)
            .where('type', '=', 'verification.flagged')
            .orderBy('seq')
            .execute()
        ).map((e) => JSON.parse(e.payload));
      const onA = flaggedOf(await forge(a.id, 100));
      const onB = flaggedOf(await forge(b.id, 5));
      assert.ok(onA.length > 90 && onB.length >= 1, `${onA.length} and ${onB.length} flagged`);
      assert.ok([...onA, ...onB].every((v) => v.attributes.signals.join() === 'replay_burst'));
      // At once: the first flagged scan of each tag, each standing for itself.
      const first = await eventsOf();
      assert.deepEqual(
        first.map((e) => [e.data.id, e.tag.id, e.scans]),
        [
          [onA[0]!.id, a.id, { replay_burst: 1 }],
          [onB[0]!.id, b.id, { replay_burst: 1 }],
        ],
      );
      // Nothing more while the windows are open; once they have ended, one summary per tag with the last held scan.
      await announceHeldScans(server.ctx);
      assert.equal((await eventsOf()).length, 2);
      server.clock.advance(FLAG_WINDOW_SECONDS * 1000);
      await announceHeldScans(server.ctx);
      const all = await eventsOf();
      assert.equal(all.length, onB.length > 1 ? 4 : 3);
      const summaries = all.slice(2).sort((x, y) => (x.tag.id === a.id ? -1 : y.tag.id === a.id ? 1 : 0));
      assert.deepEqual(
        summaries.map((e) => [e.data.id, e.tag.id, e.signals, e.scans]),
        [
          [onA.at(-1)!.id, a.id, ['replay_burst'], { replay_burst: onA.length - 1 }],
          ...(onB.length > 1 ? [[onB.at(-1)!.id, b.id, ['replay_burst'], { replay_burst: onB.length - 1 }]] : []),
        ],
      );
      // Sent once: a second look finds nothing held back.
      await announceHeldScans(server.ctx);
      assert.equal((await eventsOf()).length, all.length);
      // The next flagged scan after the window opens a new one: announced at once, standing for itself.
      const later = flaggedOf(await forge(a.id, 3));
      const last = (await eventsOf()).at(-1)!;
      assert.deepEqual([last.data.id, last.scans], [later[0]!.id, { replay_burst: 1 }]);
    });

    test("verification.flagged: one event in the scan's commit, delivered only to the webhooks that list it", async () => {
      const world = await team();
      const hook = async (path: string, events?: string[]) => {
        const created = await call(server, 'POST', '/webhooks', {
          key: world.sandbox.key,
          body: { data: { type: 'webhooks', attributes: { url: receiver.url(path), ...(events ? { events } : {}) } } },
        });
        assert.equal(created.status, 201, created.text);
        return created.body.data;
      };
      const listed = await hook(`/flagged-${kind}`, ['verification.flagged']);
      const defaulted = await hook(`/default-${kind}`);
      assert.deepEqual(listed.attributes.events, ['verification.flagged']);
      assert.deepEqual(defaulted.attributes.events, ['tag.created', 'tag.configured', 'tag.configuration_failed', 'tag.deleted']);
      const tag = await emulated(server, world.teamId, 'ntag_424_dna');
      await tapAndScan(world, tag.id);
      await harvest(tag.id, 6);
      const flagged = await tapAndScan(world, tag.id);
      // Written with the verification: there before any delivery.
      const events = await server.ctx.db.kysely
        .selectFrom('events')
        .selectAll()
        .where('team_id', '=', world.teamId)
        .where('type', '=', 'verification.flagged')
        .execute();
      assert.equal(events.length, 1);
      const payload = JSON.parse(events[0]!.payload);
      assert.equal(payload.type, 'verification.flagged');
      assert.equal(payload.data.id, flagged.id);
      assert.deepEqual(payload.data.attributes.signals, ['counter_gap']);
      assert.deepEqual(payload.signals, ['counter_gap']);
      assert.equal(payload.tag.id, tag.id);
      assert.equal(payload.tag.attributes.status, 'configured');
      await receiver.until((r) => r.some((x) => x.path === `/flagged-${kind}`));
      const arrived = receiver.on(`/flagged-${kind}`);
      assert.equal(arrived.length, 1);
      assert.equal(arrived[0]!.headers['webhook-id'], events[0]!.id);
      assert.deepEqual(JSON.parse(arrived[0]!.body), payload);
      const deliveries = await server.ctx.db.kysely.selectFrom('deliveries').select('webhook_id').where('event_id', '=', events[0]!.id).execute();
      assert.deepEqual(
        deliveries.map((d) => d.webhook_id),
        [listed.id],
      );
      assert.equal(receiver.on(`/default-${kind}`).filter((r) => JSON.parse(r.body).type === 'verification.flagged').length, 0);
    });
  });
}

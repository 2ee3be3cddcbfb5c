// The read API through @tapproof/sdk, against the real server and delivery worker on both engines:
// verifications walked by keyset page with every filter, their daily counts, counterfeit signals (the
// flagged and signal filters, their counts, the team's thresholds, the verification.flagged event),
// webhooks and their deliveries (a redelivery included), keys and the caller's team; refusals as
// TapproofError; and another team's key sees none of it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Tapproof, TapproofError, verifyWebhook, type Delivery, type Verification, type VerificationSignal } from '@tapproof/sdk';
import { DATABASES, startServer, type SeededTeam, type TestServer } from '../kit/harness.js';
import { emulated, flipHexDigit, tamper, tapUrl } from '../verifications/helpers.js';
import { FAST_WEBHOOKS, startDelivery, type Receiver } from '../webhooks/receiver.js';
import { createdTag, newCard, writeTag } from '../writer/helpers.js';

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** The error a promise (or the first step of an iterator) was refused with. */
async function refusal(work: Promise<unknown> | AsyncIterable<unknown>): Promise<TapproofError> {
  const error = await (Symbol.asyncIterator in work ? all(work) : work).then(
    () => assert.fail('not refused'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof TapproofError, String(error));
  return error;
}

const fields = (e: TapproofError) => ({ status: e.status, code: e.code, title: e.title, pointer: e.pointer, parameter: e.parameter });

const DEFAULT_THRESHOLDS = { counter_gap: 5, country_jump_window: 21_600, replay_burst: 3 };
const US = '8.8.8.8';
const DE = '5.9.0.1';

for (const kind of DATABASES) {
  describe(`@tapproof/sdk read API (${kind})`, () => {
    let server: TestServer;
    let receiver: Receiver;
    let stop: () => Promise<void>;
    let world: SeededTeam;
    let other: SeededTeam;
    /** Every GET the client sent, as path and query. */
    const requests: string[] = [];
    const client = (key = world.sandbox.key) =>
      new Tapproof({
        baseUrl: server.origin,
        key,
        fetch: (input, init) => {
          if (init?.method === 'GET') requests.push((input as string).slice(server.base.length));
          return fetch(input, init);
        },
      });

    before(async () => {
      server = await startServer(kind, FAST_WEBHOOKS);
      ({ receiver, stop } = await startDelivery(server.ctx));
      world = await server.seedTeam({ name: 'reader' });
      other = await server.seedTeam({ name: 'outsider' });
    });
    after(async () => {
      await stop();
      await server.close();
    });

    test("a tag's chip, writes and links; another team's key gets 404 for each", async () => {
      const tagId = (await createdTag(server, world.sandbox.key)).id;
      assert.equal((await writeTag(server, world.sandbox.key, tagId, newCard())).status, 'configured');
      const sdk = client();
      const chip = await sdk.tags.chip(tagId);
      assert.deepEqual([chip.type, chip.id, chip.attributes.protocol, chip.attributes.write_generation], ['chips', tagId, 'ntag_424_dna', 1]);
      assert.match(chip.attributes.uid, /^[0-9A-F]{14}$/);
      const writes = await sdk.tags.writes(tagId);
      assert.deepEqual(
        writes.map((w) => [w.type, w.attributes.tag_id, w.attributes.status, w.attributes.reason]),
        [['writes', tagId, 'configured', null]],
      );
      assert.deepEqual(await sdk.tags.links(tagId), { type: 'tag-links', id: tagId, attributes: { product: null, token: null, updated_at: null } });
      const outsider = client(other.sandbox.key);
      for (const read of [() => outsider.tags.chip(tagId), () => outsider.tags.writes(tagId), () => outsider.tags.links(tagId)])
        await assert.rejects(read(), (e: TapproofError) => e.status === 404 && e.title === 'Not Found');
    });

    describe('verifications', () => {
      /** In the order verified: a: ok, ok, replayed; b: ok, bad_cmac, ok, ok. */
      const made: Verification[] = [];
      let a: string;
      let b: string;
      before(async () => {
        const sdk = client();
        a = (await emulated(server, world.teamId, 'ntag_424_dna')).id;
        b = (await emulated(server, world.teamId, 'ntag_424_dna')).id;
        const [a1, a2, a3] = [await tapUrl(server, a), await tapUrl(server, a), await tapUrl(server, a)];
        for (const url of [a2, a3, a1]) made.push(await sdk.verifications.verify(url));
        const b1 = await tapUrl(server, b);
        made.push(await sdk.verifications.verify(b1));
        made.push(await sdk.verifications.verify(flipHexDigit(await tapUrl(server, b))));
        for (let i = 0; i < 2; i++) made.push(await sdk.verifications.verify(await tapUrl(server, b)));
        assert.deepEqual(
          made.map((v) => v.attributes.reason),
          ['ok', 'ok', 'replayed', 'ok', 'bad_cmac', 'ok', 'ok'],
        );
      });
      const newestFirst = (pick: (v: Verification) => boolean = () => true) =>
        made
          .filter(pick)
          .reverse()
          .map((v) => v.id);
      const ids = async (items: AsyncIterable<Verification>) => (await all(items)).map((v) => v.id);

      test('list walks every page through links.next: 7 verifications at 2 a page are 4 requests', async () => {
        requests.length = 0;
        const listed = await all(client().verifications.list({ page_size: 2 }));
        assert.deepEqual(
          listed.map((v) => v.id),
          newestFirst(),
        );
        // The listing shows each verification as the verify answer did.
        assert.deepEqual(listed, [...made].reverse());
        assert.equal(requests.length, 4);
        assert.equal(requests[0], '/verifications?page_size=2');
        for (const next of requests.slice(1)) assert.match(next, /^\/verifications\?page_size=2&cursor=[A-Za-z0-9_-]+$/);
        // The default page holds them all: one request.
        requests.length = 0;
        assert.deepEqual(await ids(client().verifications.list()), newestFirst());
        assert.deepEqual(requests, ['/verifications']);
      });

      test('filters: tag_id, genuine, reason, since (inclusive) and until (exclusive), combined', async () => {
        const sdk = client();
        assert.deepEqual(
          await ids(sdk.verifications.list({ tag_id: a })),
          newestFirst((v) => v.attributes.tag_id === a),
        );
        assert.deepEqual(await ids(sdk.verifications.list({ genuine: false })), [made[4]!.id, made[2]!.id]);
        assert.deepEqual(await ids(sdk.verifications.list({ genuine: true, tag_id: b, page_size: 1 })), [made[6]!.id, made[5]!.id, made[3]!.id]);
        assert.deepEqual(await ids(sdk.verifications.list({ reason: 'bad_cmac' })), [made[4]!.id]);
        assert.deepEqual(await ids(sdk.verifications.list({ reason: 'uid_mismatch' })), []);
        const at = (i: number) => made[i]!.attributes.scanned_at;
        assert.deepEqual(await ids(sdk.verifications.list({ since: at(2), until: at(5) })), [made[4]!.id, made[3]!.id, made[2]!.id]);
        assert.deepEqual(await ids(sdk.verifications.list({ since: at(2), until: at(5), tag_id: a })), [made[2]!.id]);
        // A Date is sent as ISO 8601.
        assert.deepEqual(
          await ids(sdk.verifications.list({ since: new Date(Date.parse(at(0)) - 60_000), until: new Date(Date.parse(at(6)) + 60_000) })),
          newestFirst(),
        );
        assert.deepEqual(await ids(sdk.verifications.list({ until: at(0) })), []);
      });

      test('stats: the counts of the window, by reason and country', async () => {
        const first = made[0]!.attributes.scanned_at.slice(0, 10);
        const last = made[6]!.attributes.scanned_at.slice(0, 10);
        const stats = await client().verifications.stats({ since: first, until: last });
        assert.deepEqual([stats.since, stats.until], [first, last]);
        assert.deepEqual(stats.totals, {
          count: 7,
          flagged: 0,
          by_reason: { ok: 5, replayed: 1, bad_cmac: 1, bad_picc_data: 0, uid_mismatch: 0 },
          by_signal: { counter_gap: 0, country_jump: 0, replay_burst: 0, tamper_opened: 0, tamper_open: 0 },
          by_country: [{ country: null, count: 7, flagged: 0 }],
        });
        assert.equal(
          stats.days.reduce((sum, day) => sum + day.count, 0),
          7,
        );
        // A Date names its UTC day; the default window is the 30 days up to today.
        assert.deepEqual(
          (await client().verifications.stats({ since: new Date(made[0]!.attributes.scanned_at), until: new Date(made[6]!.attributes.scanned_at) })).totals
            .count,
          7,
        );
        const defaults = await client().verifications.stats();
        assert.equal(defaults.days.length, 30);
        assert.equal(defaults.totals.count, 7);
      });

      test('refusals are TapproofErrors naming the parameter', async () => {
        const sdk = client();
        for (const [params, parameter] of [
          [{ page_size: 0 }, 'page_size'],
          [{ page_size: 101 }, 'page_size'],
          [{ since: 'yesterday' }, 'since'],
          [{ since: '2026-02-01', until: '2026-01-01' }, 'until'],
          [{ tag_id: '' }, 'tag_id'],
        ] as const) {
          const error = await refusal(sdk.verifications.list(params));
          assert.deepEqual(fields(error), { status: 400, code: 'bad_request', title: 'Invalid query parameter', pointer: undefined, parameter }, error.message);
          assert.ok(error.detail!.includes(parameter), error.detail);
        }
        const stats = await refusal(sdk.verifications.stats({ since: '2026-01-01', until: '2027-12-31' }));
        assert.deepEqual([stats.status, stats.code], [400, 'bad_request']);
        const unauthorized = await refusal(client('tp_sandbox_nope').verifications.list());
        assert.deepEqual(fields(unauthorized), {
          status: 401,
          code: 'unauthorized',
          title: 'Missing, invalid, revoked or expired API key',
          pointer: undefined,
          parameter: undefined,
        });
      });

      test("another team's key, and the other mode's, see none of them", async () => {
        for (const key of [other.sandbox.key, world.production.key]) {
          const sdk = client(key);
          assert.deepEqual(await all(sdk.verifications.list()), []);
          assert.deepEqual(await all(sdk.verifications.list({ tag_id: a })), []);
          assert.equal((await sdk.verifications.stats()).totals.count, 0);
          assert.equal((await refusal(sdk.verifications.get(made[0]!.id))).status, 404);
        }
      });
    });

    describe('counterfeit signals', () => {
      /** A team of its own: its thresholds change, and its counts are only these scans'. */
      let flaggedTeam: SeededTeam;
      const sdk = () => client(flaggedTeam.sandbox.key);
      /** In the order verified, with the signals each must carry. */
      const made: Verification[] = [];
      let sealed: string;
      let plain: string;
      let hookSecret: string;
      before(async () => {
        flaggedTeam = await server.seedTeam({ name: 'flagged' });
        hookSecret = (await sdk().webhooks.create({ url: receiver.url(`/flagged-${kind}`), events: ['verification.flagged'] })).attributes.secret!;
        sealed = (await emulated(server, flaggedTeam.teamId, 'ntag_424_dna_tag_tamper')).id;
        plain = (await emulated(server, flaggedTeam.teamId, 'ntag_424_dna')).id;
        const verify = async (tagId: string, clientIp?: string) => made.push(await sdk().verifications.verify(await tapUrl(server, tagId), { clientIp }));
        await verify(sealed, US);
        for (let i = 0; i < 6; i++) await tapUrl(server, sealed); // read and never sent
        await verify(sealed, DE);
        await tamper(server, sealed, 'open');
        await verify(sealed, DE);
        await verify(sealed, DE);
        await verify(plain, US);
        const stale = await tapUrl(server, plain);
        await verify(plain, US);
        for (let i = 0; i < 3; i++) made.push(await sdk().verifications.verify(stale));
        assert.deepEqual(
          made.map((v) => [v.attributes.reason, v.attributes.signals]),
          [
            ['ok', []],
            ['ok', ['counter_gap', 'country_jump']],
            ['ok', ['tamper_opened']],
            ['ok', ['tamper_open']],
            ['ok', []],
            ['ok', []],
            ['replayed', []],
            ['replayed', []],
            ['replayed', ['replay_burst']],
          ],
        );
      });
      const newestFirst = (pick: (v: Verification) => boolean) =>
        made
          .filter(pick)
          .reverse()
          .map((v) => v.id);
      const ids = async (items: AsyncIterable<Verification>) => (await all(items)).map((v) => v.id);
      const carries = (signal: VerificationSignal) => (v: Verification) => v.attributes.signals.includes(signal);

      test('list: flagged (a boolean), signal, and either combined with the other filters', async () => {
        requests.length = 0;
        const flagged = await all(sdk().verifications.list({ flagged: true, page_size: 2 }));
        assert.deepEqual(
          flagged.map((v) => v.id),
          newestFirst((v) => v.attributes.signals.length > 0),
        );
        // 4 flagged scans at 2 a page: 2 requests.
        assert.equal(requests.length, 2);
        assert.equal(requests[0], '/verifications?page_size=2&flagged=true');
        // The listing shows each verification, its signals included, as the verify answer did.
        assert.deepEqual(flagged, made.filter((v) => v.attributes.signals.length > 0).reverse());
        requests.length = 0;
        assert.deepEqual(
          await ids(sdk().verifications.list({ flagged: false })),
          newestFirst((v) => v.attributes.signals.length === 0),
        );
        assert.deepEqual(requests, ['/verifications?flagged=false']);
        for (const signal of ['counter_gap', 'country_jump', 'replay_burst', 'tamper_opened', 'tamper_open'] as const)
          assert.deepEqual(await ids(sdk().verifications.list({ signal })), newestFirst(carries(signal)), signal);
        assert.deepEqual(await ids(sdk().verifications.list({ signal: 'tamper_open', tag_id: plain })), []);
        assert.deepEqual(await ids(sdk().verifications.list({ flagged: true, tag_id: plain })), [made[8]!.id]);
        assert.deepEqual(await ids(sdk().verifications.list({ flagged: true, genuine: true })), [made[3]!.id, made[2]!.id, made[1]!.id]);
        assert.deepEqual(await ids(sdk().verifications.list({ flagged: true, reason: 'replayed' })), [made[8]!.id]);
        assert.deepEqual(await ids(sdk().verifications.list({ signal: 'counter_gap', since: made[2]!.attributes.scanned_at })), []);
        // Another team's key and the other mode's see none of them.
        assert.deepEqual(await all(client(world.sandbox.key).verifications.list({ flagged: true })), []);
        assert.deepEqual(await all(client(flaggedTeam.production.key).verifications.list({ signal: 'counter_gap' })), []);
      });

      test('list refusals name the parameter: an unknown signal, flagged=false with a signal', async () => {
        const unknown = await refusal(sdk().verifications.list({ signal: 'counterfeit' as VerificationSignal }));
        assert.deepEqual([unknown.status, unknown.code, unknown.parameter], [400, 'bad_request', 'signal']);
        const both = await refusal(sdk().verifications.list({ flagged: false, signal: 'counter_gap' }));
        assert.deepEqual([both.status, both.code, both.parameter], [400, 'bad_request', 'flagged']);
      });

      test('stats: flagged and by_signal in the totals and the day', async () => {
        const day = made[0]!.attributes.scanned_at.slice(0, 10);
        const stats = await sdk().verifications.stats({ since: day, until: day });
        // 5 signals on 4 scans: the counter_gap is a country_jump too.
        const expected = { flagged: 4, by_signal: { counter_gap: 1, country_jump: 1, replay_burst: 1, tamper_opened: 1, tamper_open: 1 } };
        assert.deepEqual({ count: stats.totals.count, flagged: stats.totals.flagged, by_signal: stats.totals.by_signal }, { count: 9, ...expected });
        assert.deepEqual(
          stats.days.map(({ day, count, flagged, by_signal }) => ({ day, count, flagged, by_signal })),
          [{ day, count: 9, ...expected }],
        );
        const none = (await client(flaggedTeam.production.key).verifications.stats()).totals;
        assert.deepEqual([none.flagged, none.by_signal], [0, { counter_gap: 0, country_jump: 0, replay_burst: 0, tamper_opened: 0, tamper_open: 0 }]);
      });

      test('verification.flagged: each flagged scan is delivered to the webhook that lists it, and verifyWebhook types it', async () => {
        const path = `/flagged-${kind}`;
        await receiver.until((r) => r.filter((x) => x.path === path).length >= 4);
        const events = [];
        for (const delivery of receiver.on(path)) {
          const now = Number(delivery.headers['webhook-timestamp']) * 1000;
          const event = await verifyWebhook({ secret: hookSecret, headers: delivery.headers, body: delivery.body, now });
          assert.equal(event.type, 'verification.flagged');
          if (event.type !== 'verification.flagged') continue;
          assert.deepEqual(event.signals, event.data.attributes.signals);
          assert.equal(event.tag.id, event.data.attributes.tag_id);
          events.push(event);
        }
        // Delivered one by one, in any order: each flagged verification once, as the API shows it.
        assert.deepEqual(
          events.map((e) => e.data).sort((a, b) => (a.id < b.id ? -1 : 1)),
          made.filter((v) => v.attributes.signals.length > 0).sort((a, b) => (a.id < b.id ? -1 : 1)),
        );
      });

      test('teams.updateThresholds changes any of them for the key’s team and mode; teams.current shows them', async () => {
        assert.deepEqual((await sdk().teams.current()).attributes.signal_thresholds, DEFAULT_THRESHOLDS);
        const changed = await sdk().teams.updateThresholds({ counter_gap: 10 });
        assert.deepEqual([changed.type, changed.id, changed.attributes.name], ['teams', flaggedTeam.teamId, 'flagged']);
        assert.deepEqual(changed.attributes.signal_thresholds, { counter_gap: 10, country_jump_window: 21_600, replay_burst: 3 });
        const both = await sdk().teams.updateThresholds({ replay_burst: 7, country_jump_window: 60 });
        assert.deepEqual(both.attributes.signal_thresholds, { counter_gap: 10, country_jump_window: 60, replay_burst: 7 });
        assert.deepEqual(await sdk().teams.current(), both);
        assert.deepEqual((await sdk().teams.updateThresholds({})).attributes.signal_thresholds, { counter_gap: 10, country_jump_window: 60, replay_burst: 7 });
        // The other mode and another team keep the defaults.
        assert.deepEqual((await client(flaggedTeam.production.key).teams.current()).attributes.signal_thresholds, DEFAULT_THRESHOLDS);
        assert.deepEqual((await client(other.sandbox.key).teams.current()).attributes.signal_thresholds, DEFAULT_THRESHOLDS);

        // A refusal is a 422 at the threshold's pointer, and changes nothing.
        const refused = await refusal(sdk().teams.updateThresholds({ counter_gap: 0, replay_burst: 10_001 }));
        assert.deepEqual(fields(refused), {
          status: 422,
          code: 'validation_failed',
          title: 'Validation failed',
          pointer: '/data/attributes/signal_thresholds/counter_gap',
          parameter: undefined,
        });
        assert.deepEqual(
          refused.errors.map((e) => [e.source?.pointer, e.detail]),
          [
            ['/data/attributes/signal_thresholds/counter_gap', 'counter_gap must be an integer from 1 to 16777215'],
            ['/data/attributes/signal_thresholds/replay_burst', 'replay_burst must be an integer from 1 to 10000'],
          ],
        );
        assert.deepEqual((await sdk().teams.current()).attributes.signal_thresholds, { counter_gap: 10, country_jump_window: 60, replay_burst: 7 });

        // This server applies a change at once: two unverified reads are a gap above a threshold of 1.
        await sdk().teams.updateThresholds({ counter_gap: 1 });
        await tapUrl(server, plain);
        await tapUrl(server, plain);
        const gap = await sdk().verifications.verify(await tapUrl(server, plain));
        assert.deepEqual([gap.attributes.genuine, gap.attributes.signals], [true, ['counter_gap']]);
        await sdk().teams.updateThresholds(DEFAULT_THRESHOLDS);
        assert.deepEqual((await sdk().teams.current()).attributes.signal_thresholds, DEFAULT_THRESHOLDS);
      });
    });

    describe('webhooks and deliveries', () => {
      let webhookId: string;
      let tags: string[];
      before(async () => {
        // The endpoint refuses every other request. Each event is delivered before the next
        // is made, so every event's first attempt is refused and its second taken.
        receiver.respond = (path, nth) => (path === '/sdk' && nth % 2 === 1 ? 500 : 200);
        const sdk = client();
        webhookId = (await sdk.webhooks.create({ url: receiver.url('/sdk'), events: ['tag.created'] })).id;
        await sdk.webhooks.create({ url: receiver.url('/elsewhere'), events: ['tag.deleted'] });
        tags = [];
        for (let i = 1; i <= 3; i++) {
          tags.push(...(await sdk.tags.create([{ protocol: 'ntag_424_dna', url: `https://example.com/sdk/${i}` }])).map((t) => t.id));
          await settled((d) => d.length === i && d.every((one) => one.attributes.status === 'delivered'));
        }
      });
      async function settled(done: (deliveries: Delivery[]) => boolean): Promise<Delivery[]> {
        for (let i = 0; i < 400; i++) {
          const deliveries = await all(client().webhooks.deliveries(webhookId));
          if (done(deliveries)) return deliveries;
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        throw new Error('the deliveries did not settle');
      }

      test('list shows the webhooks newest first without a secret; get reads one', async () => {
        const sdk = client();
        const listed = await sdk.webhooks.list();
        assert.deepEqual(
          listed.map((w) => [w.attributes.url, w.attributes.events]),
          [
            [receiver.url('/elsewhere'), ['tag.deleted']],
            [receiver.url('/sdk'), ['tag.created']],
          ],
        );
        assert.ok(listed.every((w) => !('secret' in w.attributes)));
        assert.deepEqual(await sdk.webhooks.get(webhookId), listed[1]);
      });

      test('deliveries: newest first, every attempt, keyset pages, status filter', async () => {
        requests.length = 0;
        const deliveries = await all(client().webhooks.deliveries(webhookId, { page_size: 2 }));
        assert.equal(requests.length, 2);
        assert.deepEqual(
          deliveries.map((d) => d.attributes.tag_id),
          [...tags].reverse(),
        );
        for (const delivery of deliveries) {
          assert.match(delivery.id, /^evt_/);
          const { attempts, created_at, ...rest } = delivery.attributes;
          assert.equal(typeof created_at, 'string');
          assert.deepEqual(rest, { webhook_id: webhookId, event_type: 'tag.created', tag_id: rest.tag_id, status: 'delivered', next_attempt_at: null });
          assert.deepEqual(
            attempts.map((x) => [x.attempt, x.status_code, x.error]),
            [
              [1, 500, 'HTTP 500'],
              [2, 200, null],
            ],
          );
        }
        assert.equal((await all(client().webhooks.deliveries(webhookId, { status: 'delivered' }))).length, 3);
        assert.deepEqual(await all(client().webhooks.deliveries(webhookId, { status: 'failed' })), []);
      });

      test('redeliver sends the event again on a fresh schedule; its attempt numbers go on at 3', async () => {
        const sdk = client();
        const [newest] = await all(sdk.webhooks.deliveries(webhookId));
        const again = await sdk.webhooks.redeliver(webhookId, newest!.id);
        assert.deepEqual([again.id, again.attributes.webhook_id, again.attributes.attempts.length], [newest!.id, webhookId, 2]);
        // The endpoint refuses the redelivery's first attempt too: the retry is attempt 4.
        const [resent] = await settled(([first]) => first!.attributes.status === 'delivered' && first!.attributes.attempts.length === 4);
        assert.deepEqual(
          resent!.attributes.attempts.map((x) => [x.attempt, x.status_code]),
          [
            [1, 500],
            [2, 200],
            [3, 500],
            [4, 200],
          ],
        );
      });

      test('refusals: unknown event and webhook 404, a disabled webhook 409, a bad status 400', async () => {
        const sdk = client();
        const [delivery] = await all(sdk.webhooks.deliveries(webhookId));
        assert.deepEqual(fields(await refusal(sdk.webhooks.redeliver(webhookId, 'evt_0000000000000000000000'))), {
          status: 404,
          code: 'not_found',
          title: 'Not Found',
          pointer: undefined,
          parameter: undefined,
        });
        assert.equal((await refusal(sdk.webhooks.deliveries('whk_0000000000000000000000'))).status, 404);
        const badStatus = await refusal(sdk.webhooks.deliveries(webhookId, { status: 'sent' as 'failed' }));
        assert.deepEqual([badStatus.status, badStatus.parameter], [400, 'status']);
        const disabled = (await sdk.webhooks.create({ url: receiver.url('/disabled'), events: ['tag.created'] })).id;
        await sdk.webhooks.update(disabled, { enabled: false });
        // A webhook that never had the event: 404, disabled or not.
        const never = await refusal(sdk.webhooks.redeliver(disabled, delivery!.id));
        assert.deepEqual([never.status, never.code], [404, 'not_found']);
        await sdk.webhooks.update(webhookId, { enabled: false });
        const off = await refusal(sdk.webhooks.redeliver(webhookId, delivery!.id));
        assert.deepEqual([off.status, off.code, off.title], [409, 'conflict', 'The webhook is disabled: enable it first']);
        await sdk.webhooks.update(webhookId, { enabled: true });
        await sdk.webhooks.delete(disabled);
      });

      test("another team's key, and the other mode's, see none of them", async () => {
        for (const key of [other.sandbox.key, world.production.key]) {
          const sdk = client(key);
          assert.deepEqual(await sdk.webhooks.list(), []);
          assert.equal((await refusal(sdk.webhooks.get(webhookId))).status, 404);
          assert.equal((await refusal(sdk.webhooks.deliveries(webhookId))).code, 'not_found');
          const [delivery] = await all(client().webhooks.deliveries(webhookId));
          assert.equal((await refusal(sdk.webhooks.redeliver(webhookId, delivery!.id))).status, 404);
        }
      });
    });

    describe('keys and team', () => {
      test("keys.list shows the team's keys of the caller's mode, never a key's text", async () => {
        // The uses of the tests before are written now rather than within the second.
        await server.ctx.keyUses.flush();
        const sandbox = await client().keys.list();
        assert.equal(sandbox.length, 1);
        const [key] = sandbox;
        assert.match(key!.attributes.last_used_at!, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
        assert.deepEqual(
          { ...key!, attributes: { ...key!.attributes, created_at: undefined, last_used_at: undefined } },
          {
            type: 'keys',
            id: world.sandbox.id,
            attributes: {
              team_id: world.teamId,
              mode: 'sandbox',
              role: 'admin',
              name: null,
              created_at: undefined,
              expires_at: null,
              revoked_at: null,
              replaced_by: null,
              last_used_at: undefined,
            },
          },
        );
        assert.deepEqual(await client().keys.get(world.sandbox.id), key);
        assert.deepEqual(
          (await client(world.production.key).keys.list()).map((k) => [k.id, k.attributes.mode]),
          [[world.production.id, 'production']],
        );
        assert.equal((await refusal(client().keys.get(world.production.id))).status, 404);
        assert.deepEqual(
          (await client(other.sandbox.key).keys.list()).map((k) => k.id),
          [other.sandbox.id],
        );
        assert.equal((await refusal(client(other.sandbox.key).keys.get(world.sandbox.id))).code, 'not_found');
      });

      test('keys.create, current, roll and revoke; a role that does not allow a call is a forbidden TapproofError', async () => {
        const admin = client();
        const reader = await admin.keys.create({ role: 'read', name: 'sdk reader' });
        assert.match(reader.attributes.key, /^tp_sandbox_[0-9A-Za-z]{32}$/);
        assert.deepEqual([reader.attributes.role, reader.attributes.name], ['read', 'sdk reader']);
        const self = await client(reader.attributes.key).keys.current();
        assert.deepEqual([self.id, self.attributes.role, 'key' in self.attributes], [reader.id, 'read', false]);
        const refused = await refusal(client(reader.attributes.key).webhooks.create({ url: 'https://hooks.example.com/x' }));
        assert.deepEqual(
          [refused.status, refused.code, refused.detail],
          [403, 'forbidden', "this key's role is read; this request needs a key of role admin or write"],
        );
        assert.equal((await refusal(client(reader.attributes.key).keys.list())).code, 'forbidden');
        const rolled = await admin.keys.roll(reader.id, { expiresIn: 600 });
        assert.deepEqual([rolled.attributes.role, rolled.attributes.name], ['read', 'sdk reader']);
        assert.equal((await admin.keys.get(reader.id)).attributes.replaced_by, rolled.id);
        const again = await refusal(admin.keys.roll(reader.id));
        assert.deepEqual([again.code, again.detail], ['conflict', `the key was already rolled to ${rolled.id}`]);
        await admin.keys.revoke(rolled.id);
        await admin.keys.revoke(rolled.id);
        assert.equal((await refusal(client(rolled.attributes.key).keys.current())).code, 'unauthorized');
        const invalid = await refusal(admin.keys.create({ role: 'owner' as never }));
        assert.deepEqual([invalid.status, invalid.pointer], [422, '/data/attributes/role']);
      });

      test("teams.current is the key's own team", async () => {
        const team = await client().teams.current();
        assert.deepEqual(
          { ...team, attributes: { ...team.attributes, created_at: undefined } },
          {
            type: 'teams',
            id: world.teamId,
            attributes: { name: 'reader', parent_id: null, created_at: undefined, signal_thresholds: DEFAULT_THRESHOLDS },
          },
        );
        assert.equal((await client(world.production.key).teams.current()).id, world.teamId);
        assert.deepEqual((await client(other.sandbox.key).teams.current()).attributes.name, 'outsider');
        assert.equal((await refusal(client('tp_live_nope').teams.current())).status, 401);
      });
    });
  });
}

// @tapproof/sdk, as built by `npm ci`, against the real server on both engines:
// tags in any number (chunks of 500, order kept), paging, a failing chunk, the
// error fields, verifications and sessions, webhooks, and waiting out the rate limit.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Tapproof, TapproofBatchError, TapproofError, type Tag } from '@tapproof/sdk';
import { DATABASES, sharedServer, startServer } from '../kit/harness.js';
import { emulated, tapUrl } from '../verifications/helpers.js';

const entries = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => ({ protocol: 'ntag_424_dna' as const, url: `https://example.com/${prefix}/${i}` }));

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

for (const kind of DATABASES) {
  describe(`@tapproof/sdk (${kind})`, () => {
    const suite = sharedServer(kind);
    const client = (key = suite.world.sandbox.key) => new Tapproof({ baseUrl: suite.server.origin, key });

    test('1,234 tags are created in order and listed; 600 deleted leave 634', async () => {
      const sdk = new Tapproof({ baseUrl: suite.server.origin, key: suite.world.production.key });
      const created = await sdk.tags.create(entries(1234, 'many'));
      assert.equal(created.length, 1234);
      assert.deepEqual(
        created.map((tag) => tag.attributes.url),
        entries(1234, 'many').map((e) => e.url),
      );
      assert.equal(new Set(created.map((tag) => tag.id)).size, 1234);

      const listed = await all(sdk.tags.list());
      assert.equal(listed.length, 1234);
      assert.deepEqual(new Set(listed.map((tag) => tag.id)), new Set(created.map((tag) => tag.id)));

      const doomed = created.slice(0, 600).map((tag) => tag.id);
      const outcome = await sdk.tags.delete(doomed);
      assert.deepEqual(outcome, { deleted: doomed, kept: [] });
      const left = await all(sdk.tags.list({ 'order_by[]': ['url'] }));
      assert.equal(left.length, 634);
      assert.deepEqual(new Set(left.map((tag) => tag.id)), new Set(created.slice(600).map((tag) => tag.id)));
    });

    test('a failing chunk stops the run and says which entries were created', async () => {
      const sdk = client();
      const input = entries(1100, 'chunks').map((entry) => ({ ...entry, comment: 'chunk run' }));
      input[700] = { ...input[700]!, url: '' };
      const error = await sdk.tags.create(input).then(
        () => assert.fail('created'),
        (e: unknown) => e,
      );
      assert.ok(error instanceof TapproofBatchError);
      assert.equal(error.failedChunkStart, 500, error.message);
      assert.deepEqual(
        (error.created as Tag[]).map((tag) => tag.attributes.url),
        input.slice(0, 500).map((e) => e.url),
      );
      assert.ok(error.cause instanceof TapproofError);
      assert.deepEqual([error.cause.status, error.cause.code, error.cause.pointer], [422, 'validation_failed', '/data/200/attributes/url']);
      // The failing chunk recorded nothing, and the one after it was never sent.
      const urls = new Set((await all(sdk.tags.list({ q: 'chunk run' }))).map((tag) => tag.attributes.url));
      assert.equal(urls.size, 500);
      assert.ok(!urls.has(input[1000]!.url) && !urls.has(input[699]!.url));
    });

    test('TapproofError carries status, code, title, detail and pointer', async () => {
      const sdk = client();
      const notFound = await sdk.tags.get('tag_0000000000000000000000').catch((e: unknown) => e);
      assert.ok(notFound instanceof TapproofError);
      assert.deepEqual(
        [notFound.status, notFound.code, notFound.title, notFound.detail, notFound.pointer],
        [404, 'not_found', 'Not Found', undefined, undefined],
      );

      const unauthorized = await client('tp_sandbox_nope')
        .tags.get('tag_x')
        .catch((e: unknown) => e);
      assert.ok(unauthorized instanceof TapproofError);
      assert.deepEqual([unauthorized.status, unauthorized.code, unauthorized.title], [401, 'unauthorized', 'Missing, invalid, revoked or expired API key']);

      const [tag] = await sdk.tags.create(entries(1, 'errors'));
      const invalid = await sdk.tags.update([{ id: tag!.id, comment: 'x'.repeat(51), session_duration: 0 }]).catch((e: unknown) => e);
      assert.ok(invalid instanceof TapproofBatchError);
      const cause = invalid.cause;
      assert.deepEqual([cause.status, cause.code, cause.title], [422, 'validation_failed', 'Validation failed']);
      assert.deepEqual(
        cause.errors.map((e) => e.source?.pointer),
        ['/data/0/attributes/comment', '/data/0/attributes/session_duration'],
      );
      assert.deepEqual([cause.detail, cause.pointer], ['comment must be at most 50 characters', '/data/0/attributes/comment']);
    });

    test('get and update tags; the base URL may or may not end in /api/v1', async () => {
      const withPath = new Tapproof({ baseUrl: `${suite.server.base}/`, key: suite.world.sandbox.key });
      const [tag] = await client().tags.create([{ protocol: 'ntag_223_dna', url: 'https://example.com/one', comment: 'first' }]);
      assert.deepEqual((await withPath.tags.get(tag!.id)).attributes.comment, 'first');
      const [updated] = await withPath.tags.update([{ id: tag!.id, comment: null, session_duration: 30 }]);
      assert.deepEqual([updated!.attributes.comment, updated!.attributes.session_duration], [null, 30]);
    });

    test('a tap verified (genuine, then replayed), its verification and session read back', async () => {
      const sdk = client();
      const chip = await emulated(suite.server, suite.world.teamId, 'ntag_424_dna');
      const older = await tapUrl(suite.server, chip.id);
      const url = await tapUrl(suite.server, chip.id);
      const first = await sdk.verifications.verify(url, { clientIp: '203.0.113.7' });
      assert.deepEqual([first.attributes.genuine, first.attributes.reason, first.attributes.tag_id], [true, 'ok', chip.id]);
      // The same URL again within the session is a reload: the original verification answers.
      assert.deepEqual(await sdk.verifications.verify(url), first);
      const replayed = await sdk.verifications.verify(older);
      assert.deepEqual([replayed.attributes.genuine, replayed.attributes.reason], [false, 'replayed']);
      assert.deepEqual(await sdk.verifications.get(first.id), first);
      const session = await sdk.sessions.get(first.attributes.session_id!);
      assert.equal(session.id, first.attributes.session_id);
      const refused = await sdk.verifications.verify(url, { clientIp: 'not-an-ip' }).catch((e: unknown) => e);
      assert.ok(refused instanceof TapproofError);
      assert.deepEqual([refused.status, refused.pointer], [422, '/data/attributes/client_ip']);
    });

    test('webhooks: create (secret once), get, update with a rotation, delete', async () => {
      const sdk = client();
      const created = await sdk.webhooks.create({ url: 'https://example.com/hooks', events: ['tag.created'] });
      assert.match(created.attributes.secret!, /^whsec_/);
      const read = await sdk.webhooks.get(created.id);
      assert.deepEqual([read.attributes.url, read.attributes.events, 'secret' in read.attributes], ['https://example.com/hooks', ['tag.created'], false]);
      const rotated = await sdk.webhooks.update(created.id, { rotate_secret: true, enabled: false });
      assert.notEqual(rotated.attributes.secret, created.attributes.secret);
      assert.equal(rotated.attributes.enabled, false);
      assert.notEqual(rotated.attributes.previous_secret_expires_at, null);
      await sdk.webhooks.delete(created.id);
      const gone = await sdk.webhooks.get(created.id).catch((e: unknown) => e);
      assert.ok(gone instanceof TapproofError && gone.status === 404);
    });
  });
}

describe(`@tapproof/sdk over the rate limit (${DATABASES[0]})`, () => {
  // The limiter's window is a fixed minute and its 429 carries no hint, so the client backs off
  // until the window turns: this test waits up to a minute. The limiter is the same on both engines.
  test('26 calls at 20 per minute all succeed', async () => {
    const server = await startServer(DATABASES[0]!, { TAPPROOF_RATE_LIMIT: '20' });
    try {
      const world = await server.seedTeam();
      const sdk = new Tapproof({ baseUrl: server.origin, key: world.sandbox.key });
      const results: Tag[][] = [];
      for (let i = 0; i < 26; i++) results.push(await sdk.tags.create(entries(1, `limit-${i}`)));
      assert.equal(results.flat().length, 26);
      assert.equal((await all(sdk.tags.list())).length, 26);
    } finally {
      await server.close();
    }
  });
});

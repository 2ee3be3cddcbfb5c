// GET and POST {ext}/claims: the exact bodies (docs/extension.md#claims), limits ±1, bodies that
// are not objects, unknown fields and wrong types (never a 500), genuine scans
// only, oldest first, and each mode's claims under its own base URL.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DATABASES, sharedServer } from '../kit/harness.js';
import { catalog, ext, genuineScan, replayedScan } from './helpers.js';

const url = (length: number) => {
  const head = 'https://landing.example/item?x=';
  return head + 'a'.repeat(length - head.length);
};

for (const kind of DATABASES) {
  describe(`extension claims (${kind})`, () => {
    const suite = sharedServer(kind);

    test('a claim on a genuine scan → 201 {id, verification_id}; listed oldest first with the verification fields', async () => {
      const { server, world } = suite;
      const links = await catalog(server, world);
      const first = await genuineScan(server, world, 'production', links);
      const second = await genuineScan(server, world);
      const resource = `https://landing.example/${Math.random().toString(36).slice(2)}`;
      const a = await ext(server, 'POST', '/claims', { body: { resource_url: resource, verification_id: first.publicId, note: 'bought in Lyon' } });
      assert.equal(a.status, 201, a.text);
      assert.deepEqual(Object.keys(a.body).sort(), ['id', 'verification_id']);
      assert.match(a.body.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.equal(a.body.verification_id, first.publicId);
      const b = await ext(server, 'POST', '/claims', { body: { resource_url: resource, verification_id: second.publicId } });
      assert.equal(b.status, 201);
      const list = await ext(server, 'GET', `/claims?resource_url=${encodeURIComponent(resource)}`);
      assert.equal(list.status, 200);
      assert.deepEqual(
        list.body.claims.map((c: any) => c.id),
        [a.body.id, b.body.id],
      );
      const [oldest, newest] = list.body.claims;
      assert.equal(newest.verification_id, second.publicId);
      assert.equal(newest.note, null);
      assert.equal(newest.product, null);
      assert.equal(oldest.resource_url, resource);
      assert.equal(oldest.note, 'bought in Lyon');
      assert.equal(oldest.product.id, links.product);
      assert.equal(oldest.token.blockchain_type, 'cardano');
      assert.equal(oldest.ownership, null);
      assert.ok(oldest.created_at > oldest.verified_at);
      // Exact string: another URL (even differing only in a trailing slash) has no claims.
      assert.deepEqual((await ext(server, 'GET', `/claims?resource_url=${encodeURIComponent(resource + '/')}`)).body, { claims: [] });
    });

    test('GET /claims without resource_url → 400 resource_url is required; a bad one → Invalid resource_url format', async () => {
      const { server } = suite;
      for (const query of ['', '?resource_url=', '?other=1']) {
        const r = await ext(server, 'GET', `/claims${query}`);
        assert.equal(r.status, 400, query);
        assert.deepEqual(r.body, { error: 'resource_url is required' });
      }
      for (const bad of ['not a url', 'ftp://x.example/a', '/relative', 'javascript:alert(1)', 'https://', url(2049)]) {
        const r = await ext(server, 'GET', `/claims?resource_url=${encodeURIComponent(bad)}`);
        assert.equal(r.status, 400, bad);
        assert.deepEqual(r.body, { error: 'Invalid resource_url format' });
      }
      const repeated = await ext(server, 'GET', '/claims?resource_url=https://a.example/&resource_url=https://b.example/');
      assert.deepEqual(repeated.body, { error: 'Invalid resource_url format' });
      assert.deepEqual((await ext(server, 'GET', `/claims?resource_url=${encodeURIComponent(url(2048))}`)).body, { claims: [] });
    });

    test('limits ±1: resource_url 2048 / 2049 and note 280 / 281 characters', async () => {
      const { server, world } = suite;
      const scanned = await genuineScan(server, world);
      const ok = await ext(server, 'POST', '/claims', { body: { resource_url: url(2048), verification_id: scanned.publicId, note: 'é'.repeat(280) } });
      assert.equal(ok.status, 201, ok.text);
      const listed = await ext(server, 'GET', `/claims?resource_url=${encodeURIComponent(url(2048))}`);
      assert.equal(listed.body.claims[0].note, 'é'.repeat(280));
      const long = await ext(server, 'POST', '/claims', { body: { resource_url: url(2049), verification_id: scanned.publicId, note: 'x'.repeat(281) } });
      assert.equal(long.status, 400);
      assert.deepEqual(long.body, {
        error: 'Validation failed',
        details: [
          { field: 'resource_url', message: 'must be at most 2048 characters' },
          { field: 'note', message: 'must be at most 280 characters' },
        ],
      });
    });

    test('resource_url limits count code points: 2048 and 2049 with astral characters (emoji are 2 UTF-16 units each)', async () => {
      const { server, world } = suite;
      const head = 'https://claims.example/';
      const emoji = (points: number) => head + '\u{1F600}'.repeat(points - head.length);
      const scanned = await genuineScan(server, world);
      const ok = await ext(server, 'POST', '/claims', { body: { resource_url: emoji(2048), verification_id: scanned.publicId } });
      assert.equal(ok.status, 201, ok.text);
      const stored = await server.ctx.db.kysely.selectFrom('claims').select('resource_url').where('id', '=', ok.body.id).executeTakeFirstOrThrow();
      assert.equal(stored.resource_url, emoji(2048));
      // Listable: its query is 24,4xx bytes, past Node's default 16 kB request head, with a browser's usual headers beside it.
      const query = `/claims?resource_url=${encodeURIComponent(emoji(2048))}`;
      assert.ok(query.length > 24_000, String(query.length));
      const headers = { 'user-agent': 'Mozilla/5.0 '.padEnd(200, 'x'), accept: '*/*', 'accept-language': 'en-US,en;q=0.9', cookie: 'c='.padEnd(4000, 'x') };
      const listed = await ext(server, 'GET', query, { headers });
      assert.equal(listed.status, 200, listed.text.slice(0, 200));
      assert.deepEqual(
        listed.body.claims.map((c: any) => c.verification_id),
        [scanned.publicId],
      );
      // The same query for a URL that has no claim, one code point longer than allowed: refused as a URL, not as a head.
      const over = await ext(server, 'GET', `/claims?resource_url=${encodeURIComponent(emoji(2049))}`, { headers });
      assert.deepEqual([over.status, over.body], [400, { error: 'Invalid resource_url format' }]);
      const long = await ext(server, 'POST', '/claims', { body: { resource_url: emoji(2049), verification_id: scanned.publicId } });
      assert.equal(long.status, 400);
      assert.deepEqual(long.body, { error: 'Validation failed', details: [{ field: 'resource_url', message: 'must be at most 2048 characters' }] });
    });

    test('a lone UTF-16 surrogate in resource_url or note → 400 Validation failed, nothing stored', async () => {
      const { server, world } = suite;
      const scanned = await genuineScan(server, world);
      const page = `https://landing.example/${scanned.publicId}`;
      const WELL_FORMED = 'must be well-formed Unicode (no lone UTF-16 surrogates)';
      for (const [body, field] of [
        [{ resource_url: page, note: 'lone \ud800 high' }, 'note'],
        [{ resource_url: page, note: 'lone \udc00 low' }, 'note'],
        [{ resource_url: `${page}/\ud83d`, note: null }, 'resource_url'],
      ] as const) {
        const r = await ext(server, 'POST', '/claims', { body: { ...body, verification_id: scanned.publicId } });
        assert.equal(r.status, 400, JSON.stringify(body));
        assert.deepEqual(r.body, { error: 'Validation failed', details: [{ field, message: WELL_FORMED }] });
      }
      assert.deepEqual((await ext(server, 'GET', `/claims?resource_url=${encodeURIComponent(page)}`)).body, { claims: [] });
    });

    test('a note follows the text rule and refuses what steers how it is drawn: C0 and C1 controls, DEL, bidirectional overrides and isolates; nothing stored', async () => {
      const { server, world } = suite;
      const scanned = await genuineScan(server, world);
      const page = `https://landing.example/notes/${scanned.publicId}`;
      const message =
        'must not contain control characters (U+0000 to U+001F, U+007F to U+009F) or bidirectional formatting characters (U+202A to U+202E, U+2066 to U+2069)';
      for (const note of [
        'bell \u0007',
        '\u001b[31mred',
        'tab\there',
        'line\nbreak',
        'nul \u0000',
        'del \u007f',
        'c1 \u0085',
        'c1 \u009f',
        'evil\u202etxt.exe',
        'embed \u202a',
        'isolate \u2066x\u2069',
      ]) {
        const r = await ext(server, 'POST', '/claims', { body: { resource_url: page, verification_id: scanned.publicId, note } });
        assert.equal(r.status, 400, JSON.stringify(note));
        assert.deepEqual(r.body, { error: 'Validation failed', details: [{ field: 'note', message }] }, JSON.stringify(note));
      }
      assert.deepEqual((await ext(server, 'GET', `/claims?resource_url=${encodeURIComponent(page)}`)).body, { claims: [] });
      // Just outside each range, and right-to-left text itself, are notes like any other.
      const fine = 'a\u00a0b \u2029 \u202f \u206a \u05e9\u05dc\u05d5\u05dd 😀';
      const ok = await ext(server, 'POST', '/claims', { body: { resource_url: page, verification_id: scanned.publicId, note: fine } });
      assert.equal(ok.status, 201, ok.text);
      assert.equal((await ext(server, 'GET', `/claims?resource_url=${encodeURIComponent(page)}`)).body.claims[0].note, fine);
    });

    test('verification_id limits: VRF_ + 6 and 128 characters are well formed (404), + 5 and 129 are not (Validation failed)', async () => {
      const { server } = suite;
      for (const id of ['VRF_abcdef', 'VRF_' + 'b'.repeat(128)]) {
        const r = await ext(server, 'POST', '/claims', { body: { resource_url: 'https://landing.example/', verification_id: id } });
        assert.equal(r.status, 404, id);
        assert.deepEqual(r.body, { error: 'Verification not found in tapproof' });
      }
      for (const id of ['VRF_abcde', 'VRF_' + 'b'.repeat(129), 'vrf_abcdefghijklmnopqrstuv', '123e4567-e89b-42d3-a456-426614174000']) {
        const r = await ext(server, 'POST', '/claims', { body: { resource_url: 'https://landing.example/', verification_id: id } });
        assert.equal(r.status, 400, id);
        assert.deepEqual(r.body, {
          error: 'Validation failed',
          details: [{ field: 'verification_id', message: 'must be VRF_ followed by 6 to 128 letters or digits' }],
        });
      }
    });

    test('bodies that are not objects, bad JSON, unknown fields, wrong types, missing fields → Validation failed, never a 500', async () => {
      const { server, world } = suite;
      const scanned = await genuineScan(server, world);
      const notObject = { error: 'Validation failed', details: [{ field: 'body', message: 'must be a JSON object' }] };
      for (const body of ['[]', '"text"', '42', 'null', 'true', '[{"resource_url":"https://a.example/"}]']) {
        const r = await ext(server, 'POST', '/claims', { body });
        assert.equal(r.status, 400, body);
        assert.deepEqual(r.body, notObject, body);
      }
      const noBody = await ext(server, 'POST', '/claims', { headers: { 'content-type': 'application/json' } });
      assert.deepEqual(noBody.body, notObject);
      for (const body of ['{', '{"resource_url":', "{'a':1}", '\u0000']) {
        const r = await ext(server, 'POST', '/claims', { body });
        assert.equal(r.status, 400, body);
        assert.deepEqual(r.body, { error: 'Validation failed', details: [{ field: 'body', message: 'is not valid JSON' }] });
      }
      const wrong = await ext(server, 'POST', '/claims', { body: { resource_url: 42, verification_id: ['VRF_abcdef'], note: { a: 1 }, extra: true, id: 'x' } });
      assert.equal(wrong.status, 400);
      assert.deepEqual(wrong.body, {
        error: 'Validation failed',
        details: [
          { field: 'extra', message: 'is not a field of a claim' },
          { field: 'id', message: 'is not a field of a claim' },
          { field: 'resource_url', message: 'must be a string' },
          { field: 'verification_id', message: 'must be VRF_ followed by 6 to 128 letters or digits' },
          { field: 'note', message: 'must be a string' },
        ],
      });
      const missing = await ext(server, 'POST', '/claims', { body: {} });
      assert.deepEqual(missing.body, {
        error: 'Validation failed',
        details: [
          { field: 'resource_url', message: 'is required' },
          { field: 'verification_id', message: 'is required' },
        ],
      });
      const badUrl = await ext(server, 'POST', '/claims', { body: { resource_url: 'mailto:a@b.example', verification_id: scanned.publicId } });
      assert.deepEqual(badUrl.body, { error: 'Validation failed', details: [{ field: 'resource_url', message: 'must be an absolute http or https URL' }] });
      // A null note is no note.
      assert.equal(
        (await ext(server, 'POST', '/claims', { body: { resource_url: 'https://a.example/', verification_id: scanned.publicId, note: null } })).status,
        201,
      );
    });

    test('another media type → 415 {error}; no Content-Type is read as JSON; a body over 16 KiB → 413 {error}', async () => {
      const { server, world } = suite;
      const scanned = await genuineScan(server, world);
      const body = JSON.stringify({ resource_url: 'https://a.example/', verification_id: scanned.publicId });
      const form = await ext(server, 'POST', '/claims', { body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      assert.equal(form.status, 415);
      assert.deepEqual(form.body, { error: 'Unsupported Media Type: send application/json' });
      const bare = await fetch(`${server.origin}/ext/claims`, { method: 'POST', body: Buffer.from(body) });
      const created = await bare.text();
      assert.equal(bare.status, 201, created);
      // The same verification and URL again: the claim just made (docs/extension.md, Claims).
      const charset = await ext(server, 'POST', '/claims', { body, headers: { 'content-type': 'application/json; charset=utf-8' } });
      assert.equal(charset.status, 200);
      assert.deepEqual(charset.body, JSON.parse(created));
      const big = await ext(server, 'POST', '/claims', {
        body: JSON.stringify({ resource_url: 'https://a.example/', verification_id: scanned.publicId, note: 'x'.repeat(16 * 1024) }),
      });
      assert.equal(big.status, 413);
      assert.deepEqual(big.body, { error: 'Request body too large' });
    });

    test('a replayed scan → 400 Verification is not valid with details; an unknown one → 404 Verification not found in tapproof', async () => {
      const { server, world } = suite;
      const replayed = await replayedScan(server, world);
      const r = await ext(server, 'POST', '/claims', { body: { resource_url: 'https://landing.example/', verification_id: replayed.publicId } });
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, { error: 'Verification is not valid', details: [{ field: 'verification_id', message: 'the scan was not genuine (replayed)' }] });
      const unknown = await ext(server, 'POST', '/claims', { body: { resource_url: 'https://landing.example/', verification_id: 'VRF_' + 'Z'.repeat(22) } });
      assert.equal(unknown.status, 404);
      assert.deepEqual(unknown.body, { error: 'Verification not found in tapproof' });
    });

    test('sandbox claims live under /ext/sandbox: a sandbox verification is unknown to /ext claims and vice versa', async () => {
      const { server, world } = suite;
      const sandbox = await genuineScan(server, world, 'sandbox');
      const resource = `https://landing.example/s/${Math.random().toString(36).slice(2)}`;
      assert.equal((await ext(server, 'POST', '/claims', { body: { resource_url: resource, verification_id: sandbox.publicId } })).status, 404);
      const made = await ext(server, 'POST', '/claims', { mode: 'sandbox', body: { resource_url: resource, verification_id: sandbox.publicId } });
      assert.equal(made.status, 201);
      assert.deepEqual((await ext(server, 'GET', `/claims?resource_url=${encodeURIComponent(resource)}`)).body, { claims: [] });
      const listed = await ext(server, 'GET', `/claims?resource_url=${encodeURIComponent(resource)}`, { mode: 'sandbox' });
      assert.deepEqual(
        listed.body.claims.map((c: any) => c.id),
        [made.body.id],
      );
    });

    test('CORS: preflight answered with 204 and no credentials; responses and errors carry Access-Control-Allow-Origin *', async () => {
      const { server } = suite;
      const paths = ['/claims', '/verifications/VRF_abcdef', '/verifications/VRF_abcdef/challenge', '/verifications/VRF_abcdef/proof'];
      for (const path of [...paths, ...paths.map((p) => `/sandbox${p}`)]) {
        const pre = await fetch(`${server.origin}/ext${path}`, {
          method: 'OPTIONS',
          headers: { origin: 'https://landing.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
        });
        assert.equal(pre.status, 204, path);
        assert.equal(pre.headers.get('access-control-allow-origin'), '*');
        assert.equal(pre.headers.get('access-control-allow-methods'), 'GET, POST, OPTIONS');
        assert.equal(pre.headers.get('access-control-allow-headers'), 'content-type, x-request-id');
        assert.equal(pre.headers.get('access-control-max-age'), '600');
        assert.equal(await pre.text(), '');
        assert.equal(pre.headers.get('access-control-allow-credentials'), null);
      }
      const ok = await ext(server, 'GET', `/claims?resource_url=${encodeURIComponent('https://a.example/')}`, {
        headers: { origin: 'https://landing.example' },
      });
      assert.equal(ok.headers.get('access-control-allow-origin'), '*');
      const bad = await ext(server, 'GET', '/claims', { headers: { origin: 'https://landing.example' } });
      assert.equal(bad.headers.get('access-control-allow-origin'), '*');
      // The platform API is not opened to browsers.
      const platform = await fetch(`${server.base}/tags`, { headers: { origin: 'https://landing.example' } });
      assert.equal(platform.headers.get('access-control-allow-origin'), null);
    });
  });
}

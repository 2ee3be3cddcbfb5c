// POST /verifications and GET /verifications/:id end to end: emulated chips
// tapped through the real server, on both databases.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DATABASES, call, sharedServer } from '../kit/harness.js';
import { cli, emulated, flipHexDigit, tamper, tapUrl, verify } from './helpers.js';
import { assertError } from '../kit/assertions.js';

const VRF_ID = /^vrf_[0-9A-Za-z]{22}$/;

for (const kind of DATABASES) {
  describe(`POST /verifications (${kind})`, () => {
    const suite = sharedServer(kind);

    test('a tap of an emulated chip made with the CLI is genuine; GET /verifications/:id returns it', async () => {
      const url = `https://example.com/cli/${kind}/${Date.now()}`;
      const created = await cli(suite.server, ['emulator', 'create', '--team', suite.world.teamId, '--url', url, '--protocol', 'ntag_424_dna', '--json']);
      const { id: tagId } = JSON.parse(created.stdout);
      const tag = await call(suite.server, 'GET', `/tags/${tagId}`, { key: suite.world.sandbox.key });
      assert.equal(tag.body.data.attributes.status, 'configured');
      const tapped = JSON.parse((await cli(suite.server, ['emulator', 'tap', tagId, '--json'])).stdout);
      assert.match(tapped.url, new RegExp(`^${url.replace(/[/.]/g, '\\$&')}\\?picc_data=[0-9A-F]{32}&cmac=[0-9A-F]{16}$`));
      const response = await verify(suite.server, suite.world.sandbox.key, tapped.url);
      assert.equal(response.status, 201);
      assert.equal(response.headers.get('content-type'), 'application/vnd.api+json');
      const data = response.body.data;
      assert.equal(data.type, 'verifications');
      assert.match(data.id, VRF_ID);
      assert.deepEqual(Object.keys(data.attributes).sort(), [
        'client_ip',
        'country',
        'genuine',
        'read_counter',
        'reason',
        'scanned_at',
        'session_id',
        'signals',
        'tag_id',
        'tamper',
        'verification_id',
      ]);
      assert.deepEqual(data.attributes.signals, []);
      // The extension API's name for it (docs/extension.md, Ids).
      assert.equal(data.attributes.verification_id, `VRF_${data.id.slice(4)}`);
      assert.equal(data.attributes.genuine, true);
      assert.equal(data.attributes.reason, 'ok');
      assert.equal(data.attributes.tag_id, tagId);
      assert.equal(data.attributes.read_counter, tapped.counter);
      assert.equal(data.attributes.tamper, null);
      assert.equal(data.attributes.client_ip, null, 'none was given');
      assert.equal(data.attributes.country, null);
      assert.match(data.attributes.session_id, /^ses_/);
      const read = await call(suite.server, 'GET', `/verifications/${data.id}`, { key: suite.world.sandbox.key });
      assert.equal(read.status, 200);
      assert.deepEqual(read.body, response.body);
      // The counter persists across processes: the next CLI tap reads one more.
      const next = JSON.parse((await cli(suite.server, ['emulator', 'tap', tagId, '--json'])).stdout);
      assert.equal(next.counter, tapped.counter + 1);
    });

    test('the same URL again within session_duration answers the original verification; an older counter is replayed', async () => {
      const tag = await emulated(suite.server, suite.world.teamId, 'ntag_424_dna');
      const first = await tapUrl(suite.server, tag.id);
      const second = await tapUrl(suite.server, tag.id);
      const a = await verify(suite.server, suite.world.sandbox.key, first);
      const reload = await verify(suite.server, suite.world.sandbox.key, first);
      assert.equal(reload.status, 201);
      assert.equal(a.body.meta, undefined);
      assert.deepEqual(reload.body, { ...a.body, meta: { repeat: true } });
      const b = await verify(suite.server, suite.world.sandbox.key, second);
      assert.equal(b.body.data.attributes.genuine, true);
      assert.equal(b.body.data.attributes.read_counter, 2);
      // A URL never sent before, but with a counter at or below the last accepted one.
      const older = await tapUrl(suite.server, tag.id);
      const newer = await tapUrl(suite.server, tag.id);
      assert.equal((await verify(suite.server, suite.world.sandbox.key, newer)).body.data.attributes.reason, 'ok');
      const replayed = await verify(suite.server, suite.world.sandbox.key, older);
      assert.equal(replayed.status, 201);
      assert.equal(replayed.body.data.attributes.genuine, false);
      assert.equal(replayed.body.data.attributes.reason, 'replayed');
      assert.equal(replayed.body.data.attributes.read_counter, 3);
      assert.equal(replayed.body.data.attributes.session_id, null);
      // Stored like any attempt.
      assert.deepEqual((await call(suite.server, 'GET', `/verifications/${replayed.body.data.id}`, { key: suite.world.sandbox.key })).body, replayed.body);
    });

    test('once a newer counter is accepted, an older URL is replayed within the session; the newest URL still reloads', async () => {
      const tag = await emulated(suite.server, suite.world.teamId, 'ntag_424_dna', { sessionDuration: 3600 });
      const first = await tapUrl(suite.server, tag.id);
      const second = await tapUrl(suite.server, tag.id);
      const a = await verify(suite.server, suite.world.sandbox.key, first);
      const b = await verify(suite.server, suite.world.sandbox.key, second);
      assert.deepEqual([a.body.data.attributes.reason, b.body.data.attributes.reason], ['ok', 'ok']);
      const copied = await verify(suite.server, suite.world.sandbox.key, first);
      assert.equal(copied.status, 201);
      assert.notEqual(copied.body.data.id, a.body.data.id);
      assert.equal(copied.body.data.attributes.genuine, false);
      assert.equal(copied.body.data.attributes.reason, 'replayed');
      assert.equal(copied.body.data.attributes.read_counter, 1);
      assert.equal(copied.body.meta, undefined);
      const reload = await verify(suite.server, suite.world.sandbox.key, second);
      assert.deepEqual(reload.body, { ...b.body, meta: { repeat: true } });
      // Exactly three stored: the two genuine scans and the replay; the reload stores nothing.
      const rows = await suite.server.ctx.db.kysely
        .selectFrom('verifications')
        .select(['reason', 'read_counter'])
        .where('tag_id', '=', tag.id)
        .orderBy('scanned_at')
        .execute();
      assert.deepEqual(rows, [
        { reason: 'ok', read_counter: 1 },
        { reason: 'ok', read_counter: 2 },
        { reason: 'replayed', read_counter: 1 },
      ]);
    });

    test('the same URL after session_duration is replayed', async () => {
      const tag = await emulated(suite.server, suite.world.teamId, 'ntag_424_dna', { sessionDuration: 1 });
      const url = await tapUrl(suite.server, tag.id);
      const first = await verify(suite.server, suite.world.sandbox.key, url);
      assert.equal(first.body.data.attributes.reason, 'ok');
      suite.server.clock.advance(1100);
      const later = await verify(suite.server, suite.world.sandbox.key, url);
      assert.notEqual(later.body.data.id, first.body.data.id);
      assert.equal(later.body.data.attributes.reason, 'replayed');
    });

    test('one flipped hex digit of the MAC → bad_cmac; of the PICCData → bad_picc_data; both stored, neither accepted', async () => {
      const tag = await emulated(suite.server, suite.world.teamId, 'ntag_424_dna');
      const url = await tapUrl(suite.server, tag.id);
      const badMac = await verify(suite.server, suite.world.sandbox.key, flipHexDigit(url));
      assert.equal(badMac.status, 201);
      assert.equal(badMac.body.data.attributes.genuine, false);
      assert.equal(badMac.body.data.attributes.reason, 'bad_cmac');
      assert.equal(badMac.body.data.attributes.read_counter, null);
      const piccAt = url.indexOf('picc_data=') + 'picc_data='.length;
      const badPicc = await verify(suite.server, suite.world.sandbox.key, flipHexDigit(url, url.length - piccAt));
      assert.equal(badPicc.body.data.attributes.genuine, false);
      assert.match(badPicc.body.data.attributes.reason, /^bad_picc_data|bad_cmac|uid_mismatch$/);
      for (const r of [badMac, badPicc])
        assert.equal((await call(suite.server, 'GET', `/verifications/${r.body.data.id}`, { key: suite.world.sandbox.key })).status, 200);
      // The genuine URL still works: failed attempts do not move the counter.
      assert.equal((await verify(suite.server, suite.world.sandbox.key, url)).body.data.attributes.reason, 'ok');
    });

    test('a TagTamper chip reports its loop: closed, then open after `emulator tamper open` (permanent stays open once closed again)', async () => {
      const tag = await emulated(suite.server, suite.world.teamId, 'ntag_424_dna_tag_tamper');
      const closedUrl = await tapUrl(suite.server, tag.id);
      assert.match(closedUrl, /\?picc_data=[0-9A-F]{32}&enc=[0-9A-F]{32}&cmac=[0-9A-F]{16}$/);
      assert.deepEqual((await verify(suite.server, suite.world.sandbox.key, closedUrl)).body.data.attributes.tamper, {
        permanent: 'closed',
        current: 'closed',
      });
      await cli(suite.server, ['emulator', 'tamper', tag.id, 'open']);
      const open = await verify(suite.server, suite.world.sandbox.key, await tapUrl(suite.server, tag.id));
      assert.equal(open.body.data.attributes.genuine, true);
      assert.deepEqual(open.body.data.attributes.tamper, { permanent: 'open', current: 'open' });
      await tamper(suite.server, tag.id, 'closed');
      const reclosed = await verify(suite.server, suite.world.sandbox.key, await tapUrl(suite.server, tag.id));
      assert.deepEqual(reclosed.body.data.attributes.tamper, { permanent: 'open', current: 'closed' });
      // The status is inside the MAC input: a changed enc digit is not genuine.
      const tampered = await verify(suite.server, suite.world.sandbox.key, flipHexDigit(await tapUrl(suite.server, tag.id), 30));
      assert.equal(tampered.body.data.attributes.genuine, false);
    });

    test('an NTAG 223 DNA chip: genuine, reload, replay, flipped digit', async () => {
      const tag = await emulated(suite.server, suite.world.teamId, 'ntag_223_dna');
      const first = await tapUrl(suite.server, tag.id);
      assert.match(first, /\?sun=[0-9A-F]{14}x[0-9A-F]{6}x[0-9A-F]{16}$/);
      const second = await tapUrl(suite.server, tag.id);
      const a = await verify(suite.server, suite.world.sandbox.key, first);
      assert.equal(a.body.data.attributes.reason, 'ok');
      assert.equal(a.body.data.attributes.tamper, null);
      assert.equal((await verify(suite.server, suite.world.sandbox.key, first)).body.data.id, a.body.data.id);
      assert.equal((await verify(suite.server, suite.world.sandbox.key, flipHexDigit(second))).body.data.attributes.reason, 'bad_cmac');
      assert.equal((await verify(suite.server, suite.world.sandbox.key, second)).body.data.attributes.reason, 'ok');
      const third = await tapUrl(suite.server, tag.id);
      await verify(suite.server, suite.world.sandbox.key, await tapUrl(suite.server, tag.id));
      assert.equal((await verify(suite.server, suite.world.sandbox.key, third)).body.data.attributes.reason, 'replayed');
    });

    test('an LRP chip (48-hex PICCData) is genuine; a flipped digit is not', async () => {
      const tag = await emulated(suite.server, suite.world.teamId, 'ntag_424_dna', { crypto: 'lrp' });
      const url = await tapUrl(suite.server, tag.id);
      assert.match(url, /\?picc_data=[0-9A-F]{48}&cmac=[0-9A-F]{16}$/);
      assert.equal((await verify(suite.server, suite.world.sandbox.key, flipHexDigit(url))).body.data.attributes.reason, 'bad_cmac');
      const ok = await verify(suite.server, suite.world.sandbox.key, url);
      assert.equal(ok.body.data.attributes.genuine, true);
      assert.equal(ok.body.data.attributes.read_counter, 1);
    });

    test('a url on an existing tag (query of its own) keeps working: SDM parameters follow with &', async () => {
      const tag = await emulated(suite.server, suite.world.teamId, 'ntag_424_dna', { url: `https://example.com/q?sku=${Date.now()}&lang=en` });
      const url = await tapUrl(suite.server, tag.id);
      assert.ok(url.startsWith(`${tag.url}&picc_data=`));
      assert.equal((await verify(suite.server, suite.world.sandbox.key, url)).body.data.attributes.reason, 'ok');
    });

    test('422 with pointer /data/attributes/url: no SDM parameters, malformed ones, wrong names', async () => {
      const tag = await emulated(suite.server, suite.world.teamId, 'ntag_424_dna');
      const url = await tapUrl(suite.server, tag.id);
      const cases = [
        tag.url,
        'not a url',
        url.replace(/cmac=[0-9A-F]+/, 'cmac=XYZ'),
        url.replace(/cmac=[0-9A-F]+/, 'cmac=00'),
        url.replace(/picc_data=([0-9A-F]+)/, 'picc_data=$1AB'),
        url.replace('picc_data=', 'e='),
        url + '&extra=1',
        url.replace(/&cmac=[0-9A-F]+/, ''),
      ];
      const answers = [];
      for (const bad of cases) {
        const response = await verify(suite.server, suite.world.sandbox.key, bad);
        answers.push([response.status, ...response.body.errors.map((e: { source: { pointer: string }; detail: string }) => [e.source.pointer, e.detail])]);
      }
      const at = (detail: string) => [422, ['/data/attributes/url', detail]];
      const foreign = at("url's SDM parameters are not the ones this tag's chip writes");
      assert.deepEqual(answers, [
        at('url carries no SDM parameters'),
        at('url carries no SDM parameters'),
        at('cmac must be 16 hex characters'),
        at('cmac must be 16 hex characters'),
        at('picc_data must be 32 hex characters'),
        foreign,
        foreign,
        foreign,
      ]);
      for (const url of [42, '', null]) {
        const response = await verify(suite.server, suite.world.sandbox.key, url);
        assert.equal(response.status, 422);
        assert.equal(response.body.errors[0].source.pointer, '/data/attributes/url');
      }
      const ip = await verify(suite.server, suite.world.sandbox.key, url, { client_ip: 'nowhere' });
      assert.equal(ip.status, 422);
      assert.equal(ip.body.errors[0].source.pointer, '/data/attributes/client_ip');
      // Nothing was stored by those: the URL is still fresh.
      assert.equal((await verify(suite.server, suite.world.sandbox.key, url, { client_ip: '203.0.113.9' })).body.data.attributes.reason, 'ok');
    });

    test('400 for a document of the wrong shape, each with its title; nothing stored', async () => {
      const scans = async () => (await suite.server.ctx.db.kysely.selectFrom('verifications').select('id').execute()).length;
      const before = await scans();
      const answers = [];
      for (const body of [
        {},
        { data: [] },
        { data: { type: 'tags', attributes: { url: 'x' } } },
        { data: { type: 'verifications' } },
        { data: { type: 'verifications', attributes: {} } },
      ]) {
        const response = await call(suite.server, 'POST', '/verifications', { key: suite.world.sandbox.key, body });
        assertError(response, 400);
        answers.push(response.body.errors[0].title);
      }
      assert.deepEqual(answers, [...Array(4).fill('Request body is malformed'), 'A required attribute is missing']);
      assert.equal(await scans(), before);
    });

    test('404: no tag under that url, a tag not configured, an unknown verification id', async () => {
      const url = (await tapUrl(suite.server, (await emulated(suite.server, suite.world.teamId, 'ntag_424_dna')).id)).replace(
        'https://example.com/',
        'https://elsewhere.example/',
      );
      const NO_TAG = {
        status: '404',
        title: 'Not Found',
        detail: "no configured tag of this key's team and mode has this url (a sandbox key sees sandbox tags only)",
      };
      assert.deepEqual((await verify(suite.server, suite.world.sandbox.key, url)).body.errors, [NO_TAG]);
      // The right url under the other mode's key: the same answer, naming the mode as the place to look.
      assert.deepEqual(
        (await verify(suite.server, suite.world.production.key, url.replace('https://elsewhere.example/', 'https://example.com/'))).body.errors,
        [NO_TAG],
      );
      const created = await call(suite.server, 'POST', '/tags', {
        key: suite.world.sandbox.key,
        body: { data: [{ type: 'tags', attributes: { protocol: 'ntag_424_dna', url: `https://example.com/unwritten/${Date.now()}` } }] },
      });
      const unwritten = created.body.data[0].attributes.url;
      const notWritten = await verify(suite.server, suite.world.sandbox.key, `${unwritten}?picc_data=${'A'.repeat(32)}&cmac=${'B'.repeat(16)}`);
      assert.equal(notWritten.status, 404);
      assert.deepEqual(notWritten.body.errors, [NO_TAG]);
      for (const id of ['vrf_0000000000000000000000', 'nope'])
        assert.equal((await call(suite.server, 'GET', `/verifications/${id}`, { key: suite.world.sandbox.key })).status, 404);
    });
  });
}

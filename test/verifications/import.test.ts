// `tapproof tags import`: chips written elsewhere, with their own keys,
// parameter names and MAC input, verified like written ones.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { generateSun223, generateSun424, toHex } from '../../src/chips/index.js';
import { DATABASES, call, sharedServer, type TestServer, type SeededTeam } from '../kit/harness.js';
import { cliResult } from '../cli/process.js';
import { cli, flipHexDigit, verify } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'tapproof-import-'));
let files = 0;
function chipsFileText(text: string): string {
  const path = join(dir, `chips-${++files}.json`);
  writeFileSync(path, text);
  return path;
}
const chipsFile = (entries: unknown) => chipsFileText(JSON.stringify(entries));
const hexKey = () => randomBytes(16).toString('hex').toUpperCase();
const uid = () => '04' + randomBytes(6).toString('hex').toUpperCase();
const unique = () => `https://brand.example/i/${randomBytes(6).toString('hex')}`;

async function importFile(server: TestServer, world: SeededTeam, entries: unknown, mode = 'sandbox') {
  return cli(server, ['tags', 'import', '--team', world.teamId, '--mode', mode, '--file', chipsFile(entries), '--json']);
}

for (const kind of DATABASES) {
  describe(`tapproof tags import (${kind})`, () => {
    const suite = sharedServer(kind);

    test('imported tags are configured, fire tag.created then tag.configured, and verify with custom params and mac_input_from', async () => {
      const aes = { url: unique(), uid: uid(), meta: hexKey(), file: hexKey() };
      const plain = { url: unique() + '?ref=shelf', uid: uid(), file: hexKey() };
      const n223 = { url: unique(), uid: uid(), file: hexKey() };
      const tt = { url: unique(), uid: uid(), meta: hexKey(), file: hexKey() };
      const entries = [
        {
          url: aes.url,
          protocol: 'ntag_424_dna',
          uid: aes.uid,
          sdm_meta_read_key: aes.meta,
          sdm_file_read_key: aes.file,
          params: { picc_data: 'e', cmac: 'm' },
          mac_input_from: 'picc_data',
          last_counter: 41,
          comment: 'aes',
          session_duration: 30,
        },
        {
          url: plain.url,
          protocol: 'ntag_424_dna',
          uid: plain.uid,
          sdm_meta_read_key: null,
          sdm_file_read_key: plain.file,
          params: { uid: 'u', ctr: 'c', cmac: 'x' },
          mac_input_from: 'uid',
        },
        { url: n223.url, protocol: 'ntag_223_dna', uid: n223.uid, sdm_file_read_key: n223.file, params: { sun: 'd' } },
        { url: tt.url, protocol: 'ntag_424_dna_tag_tamper', uid: tt.uid, sdm_meta_read_key: tt.meta, sdm_file_read_key: tt.file },
      ];
      const ids: string[] = JSON.parse((await importFile(suite.server, suite.world, entries)).stdout);
      assert.equal(ids.length, 4);
      for (const [i, id] of ids.entries()) {
        const tag = (await call(suite.server, 'GET', `/tags/${id}`, { key: suite.world.sandbox.key })).body.data;
        assert.equal(tag.attributes.status, 'configured');
        assert.equal(tag.attributes.url, entries[i]!.url);
        const events = await suite.server.ctx.db.kysely.selectFrom('events').select('type').where('tag_id', '=', id).orderBy('seq').execute();
        assert.deepEqual(
          events.map((e) => e.type),
          ['tag.created', 'tag.configured'],
        );
      }
      // Keys are sealed at rest: the key hex is nowhere in the chip rows.
      const stored = JSON.stringify(await suite.server.ctx.db.kysely.selectFrom('chips').selectAll().execute());
      for (const key of [aes.meta, aes.file, plain.file, n223.file, tt.meta, tt.file]) assert.ok(!stored.toUpperCase().includes(key));

      // AES with MAC input from the PICCData value: `<picc hex>&m=`.
      const key = (h: string) => Buffer.from(h, 'hex');
      const aesSun = (counter: number) =>
        generateSun424({
          crypto: 'aes',
          uid: key(aes.uid),
          counter,
          sdmMetaReadKey: key(aes.meta),
          sdmFileReadKey: key(aes.file),
          macInput: (v) => `${v.piccData}&m=`,
        });
      const old = aesSun(41);
      const s = aesSun(42);
      assert.equal((await verify(suite.server, suite.world.sandbox.key, `${aes.url}?e=${old.piccData}&m=${old.cmac}`)).body.data.attributes.reason, 'replayed');
      const ok = await verify(suite.server, suite.world.sandbox.key, `${aes.url}?e=${s.piccData}&m=${s.cmac}`);
      assert.equal(ok.body.data.attributes.reason, 'ok');
      assert.equal(ok.body.data.attributes.tag_id, ids[0]);
      assert.equal(ok.body.data.attributes.read_counter, 42);
      // Plain mirroring, tag url with its own query, MAC input from the uid value.
      const p = generateSun424({
        crypto: 'aes',
        uid: key(plain.uid),
        counter: 7,
        sdmMetaReadKey: null,
        sdmFileReadKey: key(plain.file),
        macInput: (v) => `${v.uid}&c=${v.ctr}&x=`,
      });
      const plainUrl = `${plain.url}&u=${p.uid}&c=${p.ctr}&x=${p.cmac}`;
      assert.equal((await verify(suite.server, suite.world.sandbox.key, plainUrl)).body.data.attributes.reason, 'ok');
      const otherUid = uid();
      const forged = generateSun424({
        crypto: 'aes',
        uid: key(otherUid),
        counter: 8,
        sdmMetaReadKey: null,
        sdmFileReadKey: key(plain.file),
        macInput: (v) => `${v.uid}&c=${v.ctr}&x=`,
      });
      assert.equal(
        (await verify(suite.server, suite.world.sandbox.key, `${plain.url}&u=${forged.uid}&c=${forged.ctr}&x=${forged.cmac}`)).body.data.attributes.reason,
        'uid_mismatch',
      );
      // NTAG 223 DNA under parameter `d`.
      const sun = generateSun223({ key: key(n223.file), uid: key(n223.uid), counter: 5 });
      assert.equal((await verify(suite.server, suite.world.sandbox.key, `${n223.url}?d=${sun}`)).body.data.attributes.reason, 'ok');
      assert.equal((await verify(suite.server, suite.world.sandbox.key, `${n223.url}?d=${flipHexDigit(sun)}`)).body.data.attributes.reason, 'bad_cmac');
      // TagTamper with the default layout.
      const t = generateSun424({
        crypto: 'aes',
        uid: key(tt.uid),
        counter: 1,
        sdmMetaReadKey: key(tt.meta),
        sdmFileReadKey: key(tt.file),
        tamper: { permanent: 'open', current: 'closed' },
      });
      const ttResult = await verify(suite.server, suite.world.sandbox.key, `${tt.url}?picc_data=${t.piccData}&enc=${t.enc}&cmac=${t.cmac}`);
      assert.equal(ttResult.body.data.attributes.genuine, true);
      assert.deepEqual(ttResult.body.data.attributes.tamper, { permanent: 'open', current: 'closed' });
      // The production key of the team sees none of the sandbox imports.
      assert.equal((await verify(suite.server, suite.world.production.key, `${aes.url}?e=${s.piccData}&m=${s.cmac}`)).status, 404);
      assert.equal(toHex(key(aes.uid)), aes.uid);
    });

    test('one bad entry → nothing imported, and the message names the entry and the field', async () => {
      const good = { url: unique(), protocol: 'ntag_424_dna', uid: uid(), sdm_meta_read_key: hexKey(), sdm_file_read_key: hexKey() };
      const cases: [unknown, RegExp][] = [
        [{ ...good, url: unique(), uid: '04ABC' }, /entry 2, uid/],
        [{ ...good, url: unique(), uid: uid(), sdm_file_read_key: 'zz' }, /entry 2, sdm_file_read_key/],
        [{ ...good, url: unique(), uid: uid(), protocol: 'ntag_999' }, /entry 2, protocol/],
        [{ ...good, url: unique(), uid: uid(), params: { picc_data: 'p' } }, /entry 2, params\.cmac/],
        [{ ...good, url: unique(), uid: uid(), mac_input_from: 'sun' }, /entry 2, mac_input_from/],
        [{ ...good, url: unique(), uid: uid(), last_counter: -1 }, /entry 2, last_counter/],
        [{ ...good, url: unique(), uid: uid(), colour: 'red' }, /entry 2, colour/],
        [{ ...good, url: unique(), uid: uid(), crypto: 'des' }, /entry 2, crypto/],
        [{ ...good, uid: uid() }, /entry 2, url: is the same as in entry 1/],
        [{ ...good, url: unique() }, /entry 2, uid: is the same as in entry 1/],
        [{ ...good, url: unique(), uid: uid(), protocol: 'ntag_424_dna_tag_tamper', params: { picc_data: 'p', cmac: 'c' } }, /entry 2, params\.enc/],
        // A tamper status outside the MAC input would be unauthenticated.
        [{ ...good, url: unique(), uid: uid(), protocol: 'ntag_424_dna_tag_tamper', mac_input_from: null }, /entry 2, mac_input_from: must not be null/],
      ];
      const before = await suite.server.ctx.db.kysely.selectFrom('tags').select('id').execute();
      for (const [bad, message] of cases) {
        await assert.rejects(importFile(suite.server, suite.world, [good, bad]), (error: { stdout: string; stderr: string; code: number }) => {
          assert.equal(error.code, 1);
          assert.match(error.stderr, message);
          assert.match(error.stderr, /^tapproof: nothing imported: /);
          // The line says how entries are counted: the second entry of the file is entry 2.
          assert.match(error.stderr, / \(entries are counted from 1\)\n$/);
          // --json: the same refusal as a document on stdout, entries counted from 1.
          const document = JSON.parse(error.stdout);
          assert.equal(document.ok, false);
          assert.equal(document.refused, 'nothing imported');
          assert.ok(
            document.errors.length >= 1 && document.errors.every((e: any) => e.entry === 2 && typeof e.field === 'string' && typeof e.detail === 'string'),
            error.stdout,
          );
          return true;
        });
      }
      const afterRows = await suite.server.ctx.db.kysely.selectFrom('tags').select('id').execute();
      assert.equal(afterRows.length, before.length);
      // A url already used in the suite.world is named too.
      const taken = (await importFile(suite.server, suite.world, [good])).stdout;
      assert.equal(JSON.parse(taken).length, 1);
      await assert.rejects(
        importFile(suite.server, suite.world, [
          { ...good, url: unique(), uid: uid() },
          { ...good, uid: uid() },
        ]),
        /entry 2, url: url is already used/,
      );
      // Every refusal leads with the prefix, an unreadable file and a file-wide problem too.
      for (const [entries, message] of [
        ['not json', /^tapproof: nothing imported: cannot read .* as JSON/],
        [[], /^tapproof: nothing imported: the file holds no entries/],
      ] as const) {
        const file = typeof entries === 'string' ? chipsFileText(entries) : chipsFile(entries);
        const failed = await cliResult(suite.server, ['tags', 'import', '--team', suite.world.teamId, '--mode', 'sandbox', '--file', file, '--json']);
        assert.equal(failed.code, 1);
        assert.match(failed.stderr, message);
        assert.ok(!failed.stderr.includes('counted from'), 'a problem of the whole file names no entry');
        assert.deepEqual(
          JSON.parse(failed.stdout).errors.map((e: any) => [e.entry, e.field]),
          [[null, null]],
        );
      }
      // The same url is free in the other mode.
      assert.equal(JSON.parse((await importFile(suite.server, suite.world, [good], 'production')).stdout).length, 1);
    });
  });
}

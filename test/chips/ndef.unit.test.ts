import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ndefCapacityError,
  ndefFileContent,
  ndefUriMessage,
  ndefUrlCapacity,
  NTAG223_WRITE_UNSUPPORTED,
  NTAG424_NDEF_FILE_SIZE,
  parseNdefUriFile,
  sdmConfigProblem,
  sdmFileConfig,
  sdmTemplate,
} from '../../src/chips/index.js';
import { upper } from './vectors.js';

describe('NDEF URI record', () => {
  test('https:// is compressed to prefix code 04 (the AN12196 Table 18 record)', () => {
    const uri = 'https://choose.url.com/ntag424?e=00000000000000000000000000000000&c=0000000000000000';
    assert.equal(
      upper(ndefFileContent(uri)),
      '0051D1014D550463686F6F73652E75726C2E636F6D2F6E7461673432343F653D303030303030303030303030303030303030303030303030303030303030303026633D30303030303030303030303030303030',
    );
    assert.equal(parseNdefUriFile(Buffer.concat([ndefFileContent(uri), Buffer.alloc(20)])), uri);
  });

  test('other prefixes and none; UTF-8 text round-trips', () => {
    for (const [uri, code] of [
      ['http://www.a.b/', 0x01],
      ['https://www.a.b/', 0x02],
      ['http://a.b/', 0x03],
      ['urn:x:é', 0x00],
    ] as const) {
      const msg = ndefUriMessage(uri);
      assert.equal(msg[4], code, uri);
      assert.equal(parseNdefUriFile(ndefFileContent(uri)), uri);
    }
  });

  test('files that do not hold one URI record parse to null', () => {
    assert.equal(parseNdefUriFile(Buffer.alloc(256)), null);
    assert.equal(parseNdefUriFile(Buffer.from('0005D1010155', 'hex')), null);
    const text = Buffer.from('0008D101045402656E41', 'hex'); // a Text record
    assert.equal(parseNdefUriFile(text), null);
    const badPrefix = ndefFileContent('https://a/');
    badPrefix[6] = 0x40;
    assert.equal(parseNdefUriFile(badPrefix), null);
  });
});

describe('SDM template (docs/decisions.md §4) and offsets', () => {
  test('424: ?picc_data=<32>&cmac=<16>, PICCData and MAC offsets point at the placeholders, empty MAC input', () => {
    const t = sdmTemplate('ntag_424_dna', 'https://example.com/t');
    assert.equal(t.uri, `https://example.com/t?picc_data=${'0'.repeat(32)}&cmac=${'0'.repeat(16)}`);
    const text = t.file.toString('latin1');
    assert.equal(text.slice(t.piccDataOffset!, t.piccDataOffset! + 32), '0'.repeat(32));
    assert.equal(text.slice(t.piccDataOffset! - 10, t.piccDataOffset!), 'picc_data=');
    assert.equal(text.slice(t.macOffset! - 5, t.macOffset!), 'cmac=');
    assert.equal(t.macInputOffset, t.macOffset);
    assert.equal(sdmConfigProblem(sdmFileConfig('ntag_424_dna', t).sdm!, NTAG424_NDEF_FILE_SIZE), null);
  });

  test('TT: &enc=<32> before cmac; MAC input from the enc value; TTStatus at the start of the encrypted data', () => {
    const t = sdmTemplate('ntag_424_dna_tag_tamper', 'https://shop.example/p?cmac=1&enc=2');
    assert.equal(t.uri, `https://shop.example/p?cmac=1&enc=2&picc_data=${'0'.repeat(32)}&enc=${'0'.repeat(32)}&cmac=${'0'.repeat(16)}`);
    const text = t.file.toString('latin1');
    assert.equal(text.slice(t.encOffset! - 4, t.encOffset!), 'enc=');
    assert.ok(t.encOffset! > t.piccDataOffset!, 'the url own enc= is not ours');
    assert.equal(text.slice(t.macInputOffset!, t.macOffset!), `${'0'.repeat(32)}&cmac=`);
    const cfg = sdmFileConfig('ntag_424_dna_tag_tamper', t);
    assert.equal(cfg.sdm!.ttStatusOffset, t.encOffset);
    assert.equal(cfg.sdm!.encLength, 32);
    assert.equal(sdmConfigProblem(cfg.sdm!, NTAG424_NDEF_FILE_SIZE), null);
  });

  test('offsets count UTF-8 bytes, not characters', () => {
    const t = sdmTemplate('ntag_424_dna', 'https://exämple.com/ü');
    assert.equal(t.file.subarray(t.piccDataOffset! - 10, t.piccDataOffset!).toString('latin1'), 'picc_data=');
  });
});

describe('capacity: a url too long for the chip fails before any APDU, saying how many bytes fit', () => {
  for (const protocol of ['ntag_424_dna', 'ntag_424_dna_tag_tamper'] as const) {
    test(`${protocol}: the longest url that fits is written; one byte more is refused with the number`, () => {
      const base = 'https://example.com/';
      const max = ndefUrlCapacity(protocol, base);
      const fits = base + 'a'.repeat(max - base.length);
      assert.equal(Buffer.byteLength(fits), max);
      assert.equal(ndefCapacityError(protocol, fits), null);
      const t = sdmTemplate(protocol, fits);
      assert.equal(t.file.length, NTAG424_NDEF_FILE_SIZE, 'the file is exactly full');
      const over = fits + 'a';
      assert.equal(
        ndefCapacityError(protocol, over),
        `url is ${max + 1} bytes but ${protocol === 'ntag_424_dna' ? 'an NTAG 424 DNA' : 'an NTAG 424 DNA TagTamper'} has room for ${max} bytes of url (the NDEF memory also holds the record header and the SUN parameters)`,
      );
      assert.throws(() => sdmTemplate(protocol, over), RangeError);
    });
  }

  test('the numbers: 424 holds 192 bytes of an https:// url, TT 155; uncompressed schemes hold less', () => {
    assert.equal(ndefUrlCapacity('ntag_424_dna', 'https://x'), 192);
    assert.equal(ndefUrlCapacity('ntag_424_dna_tag_tamper', 'https://x'), 155);
    assert.equal(ndefUrlCapacity('ntag_424_dna', 'ftp://x'), 184);
    assert.equal(ndefUrlCapacity('ntag_424_dna', 'https://x', 'lrp'), 176, 'LRP PICCData is 48 hex');
    assert.equal(ndefUrlCapacity('ntag_424_dna_tag_tamper', 'https://x', 'lrp'), 139);
    const lrpMax = 'https://x/' + 'a'.repeat(176 - 10);
    assert.equal(sdmTemplate('ntag_424_dna', lrpMax, { crypto: 'lrp' }).file.length, NTAG424_NDEF_FILE_SIZE);
    assert.throws(() => sdmTemplate('ntag_424_dna', lrpMax + 'a', { crypto: 'lrp' }), /has room for 176 bytes/);
  });

  test('NTAG 223 DNA: capacity from its 144-byte user memory; writing is refused with a clear message', () => {
    assert.equal(ndefUrlCapacity('ntag_223_dna', 'https://x'), 144 - 12 - 43 + 8);
    assert.match(ndefCapacityError('ntag_223_dna', 'https://x/' + 'a'.repeat(100))!, /an NTAG 223 DNA has room for 97 bytes/);
    assert.throws(() => sdmTemplate('ntag_223_dna', 'https://x/'), { message: NTAG223_WRITE_UNSUPPORTED });
  });
});

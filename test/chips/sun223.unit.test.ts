import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateSun223, parseSun223, sun223Mac, verifySun223 } from '../../src/chips/index.js';
import { hex, loadVectors, upper } from './vectors.js';

const file = loadVectors('ntag22x_sun_an12998.json');
const ZERO_KEY = Buffer.alloc(16);

describe('NTAG 223 DNA SUN vectors (AN12998)', () => {
  for (const t of file.vectors as any[]) {
    test(`${t.id}: ${t.mirror} verifies, UID ${t.expected.uid}, counter ${t.expected.counter}`, () => {
      const r = verifySun223({ key: hex(t.key), sun: t.mirror });
      assert.equal(r.ok, t.expected.cmac_valid);
      assert.deepEqual(r, { ok: true, uid: t.expected.uid, counter: t.expected.counter, tamper: null, fileData: null });
    });

    test(`${t.id}: MAC input is UID || CTR as mirrored (MSB first), no session key`, () => {
      const parts = parseSun223(t.mirror)!;
      assert.equal(upper(parts.macInput), t.expected.mac_input_hex);
      assert.equal(upper(parts.cmac), t.mirror.split('x')[2]);
      assert.equal(upper(sun223Mac(hex(t.key), parts.macInput)), upper(parts.cmac));
    });

    test(`${t.id}: the emulator produces exactly the published mirror`, () => {
      const sun = generateSun223({ key: hex(t.key), uid: hex(t.expected.uid), counter: t.expected.counter });
      assert.equal(sun, t.mirror);
    });
  }
});

// Real NTAG 223 DNA StatusDetect captures published in RfidResearchGroup/proxmark3
// client/pyscripts/ntag22x_libsuncmac.py (self-test), covering the tamper field the AN12998 vectors lack.
describe('NTAG 223 DNA StatusDetect captures (proxmark3)', () => {
  test('"CO" status maps to nibbles 3/F in the MAC input and reads as permanent closed, current open', () => {
    const sun = '046910EA841390x000000xCO00000000x146F1F74FFB89569';
    assert.equal(upper(parseSun223(sun)!.macInput), '046910EA841390000000' + '3F00000000');
    assert.deepEqual(verifySun223({ key: ZERO_KEY, sun }), {
      ok: true,
      uid: '046910EA841390',
      counter: 0,
      tamper: { permanent: 'closed', current: 'open' },
      fileData: null,
    });
  });

  test('a TT field of zeros (status not mirrored) verifies with tamper null; counter 0 is valid', () => {
    assert.deepEqual(verifySun223({ key: ZERO_KEY, sun: '046910EA841390x000000x0000000000x887DBC0298EF2755' }), {
      ok: true,
      uid: '046910EA841390',
      counter: 0,
      tamper: null,
      fileData: null,
    });
    const key = hex('2b7e151628aed2a6abf7158809cf4f3c');
    assert.equal(verifySun223({ key, sun: '046910EA841390x000000x0000000000x17B5B634CAAA9BB8' }).ok, true);
    assert.equal(verifySun223({ key, sun: '048A0FEA841390x000000x0000000000x1A797B9096B03021' }).ok, true);
  });
});

describe('verifySun223 refuses what is not genuine', () => {
  const good = '04AA2BD2335780x000001xB188AC6F69140B92';
  const tt = '046910EA841390x000000xCO00000000x146F1F74FFB89569';

  test('every single flipped hex digit makes the mirror not genuine', () => {
    for (const sun of [good, tt]) {
      for (let i = 0; i < sun.length; i++) {
        const ch = sun[i]!;
        if (!/[0-9A-F]/.test(ch) || (sun === tt && (i === 22 || i === 23))) continue;
        const flipped = sun.slice(0, i) + (parseInt(ch, 16) ^ 0x4).toString(16).toUpperCase() + sun.slice(i + 1);
        assert.equal(verifySun223({ key: ZERO_KEY, sun: flipped }).ok, false, `position ${i}`);
      }
    }
  });

  test('changing a status letter (C/O/I) is bad_cmac: the status is authenticated', () => {
    for (const status of ['CC', 'OO', 'OC', 'IO', 'CI']) {
      const r = verifySun223({ key: ZERO_KEY, sun: tt.replace('xCO', `x${status}`) });
      assert.equal(r.ok, false);
      assert.equal(!r.ok && r.reason, 'bad_cmac');
    }
  });

  test('status digits that alias the letters ("3F" for "CO") are refused, so the status cannot be hidden', () => {
    assert.deepEqual(verifySun223({ key: ZERO_KEY, sun: tt.replace('xCO', 'x3F') }), { ok: false, reason: 'bad_picc_data' });
    assert.deepEqual(verifySun223({ key: ZERO_KEY, sun: tt.replace('xCO', 'xC0') }), { ok: false, reason: 'bad_picc_data' });
    assert.deepEqual(verifySun223({ key: ZERO_KEY, sun: tt.replace('xCO', 'xco') }), { ok: false, reason: 'bad_picc_data' });
  });

  test('wrong lengths, non-hex characters and wrong separators are bad_picc_data', () => {
    const malformed = [
      '',
      'x',
      good.slice(1),
      good + '0',
      good.replace('x000001', 'x00001'),
      good.replace('x000001', 'x0000001'),
      good.replace('04AA', 'G4AA'),
      good.replace('xB188', 'XB188'),
      good.replace('x000001x', 'x000001-'),
      tt.replace('00000000x', '0000000x'),
      tt.replace('CO00000000', 'CO0000000Z'),
    ];
    for (const sun of malformed) assert.deepEqual(verifySun223({ key: ZERO_KEY, sun }), { ok: false, reason: 'bad_picc_data' }, sun);
  });

  test('lower-case hex is accepted', () => {
    assert.equal(verifySun223({ key: ZERO_KEY, sun: good.toLowerCase() }).ok, true);
  });

  test('a wrong key is bad_cmac and still reports UID and counter', () => {
    assert.deepEqual(verifySun223({ key: hex('00000000000000000000000000000001'), sun: good }), {
      ok: false,
      reason: 'bad_cmac',
      uid: '04AA2BD2335780',
      counter: 1,
    });
  });

  test('never throws on junk, whatever its type', () => {
    for (const sun of [undefined, null, 42, {}, 'ä'.repeat(39), '\u0000'.repeat(39)]) {
      assert.deepEqual(verifySun223({ key: ZERO_KEY, sun: sun as string }), { ok: false, reason: 'bad_picc_data' });
    }
  });
});

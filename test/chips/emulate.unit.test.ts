import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import {
  decryptPiccData,
  generateSun223,
  generateSun424,
  verifySun223,
  verifySun424,
  type Sun424Emulation,
  type Sun424Input,
  type Sun424Params,
  type TamperState,
} from '../../src/chips/index.js';
import { hex, upper } from './vectors.js';

const ZERO_KEY = Buffer.alloc(16);
const STATES: TamperState[] = ['closed', 'open', 'not_enabled'];

/** A random source that hands out the given bytes by request size (PICCData padding 5, PICCRand 8). */
function fixedRandom(bySize: Record<number, string>): (n: number) => Uint8Array {
  return (n) => hex(bySize[n]!);
}

type Kind = { name: string; crypto: 'aes' | 'lrp'; plain: boolean; tt: boolean };
const KINDS: Kind[] = [];
for (const crypto of ['aes', 'lrp'] as const) {
  KINDS.push({ name: `424 DNA ${crypto}, encrypted PICCData`, crypto, plain: false, tt: false });
  KINDS.push({ name: `424 DNA ${crypto}, plain UID/counter`, crypto, plain: true, tt: false });
  KINDS.push({ name: `424 DNA TT ${crypto}, encrypted PICCData + enc`, crypto, plain: false, tt: true });
}

function chip(kind: Kind, counter: number, tamper = { permanent: 'closed', current: 'closed' } as const) {
  const emulation: Sun424Emulation = {
    crypto: kind.crypto,
    uid: hex('04112233445566'),
    counter,
    sdmMetaReadKey: kind.plain ? null : randomBytes(16),
    sdmFileReadKey: randomBytes(16),
    ...(kind.tt ? { tamper } : {}),
  };
  return emulation;
}

function verifierInput(e: Sun424Emulation, p: Sun424Params): Sun424Input {
  return {
    crypto: e.crypto,
    sdmMetaReadKey: e.sdmMetaReadKey,
    sdmFileReadKey: e.sdmFileReadKey,
    piccData: p.piccData,
    uid: p.uid,
    ctr: p.ctr,
    enc: p.enc,
    cmac: p.cmac,
    macInput: p.macInput,
    expectTamper: e.tamper !== undefined,
  };
}

function flipDigit(s: string, i: number): string {
  return s.slice(0, i) + (parseInt(s[i]!, 16) ^ 0x8).toString(16).toUpperCase() + s.slice(i + 1);
}

describe('generate -> verify round trip (chip emulator)', () => {
  for (const kind of KINDS) {
    test(`${kind.name}: a generated tap verifies as genuine with its UID and counter`, () => {
      for (const counter of [0, 1, 61, 0xffff, 0xffffff]) {
        const e = chip(kind, counter);
        const p = generateSun424(e);
        const r = verifySun424(verifierInput(e, p));
        assert.ok(r.ok, `counter ${counter}`);
        assert.equal(r.uid, '04112233445566');
        assert.equal(r.counter, counter);
        assert.deepEqual(r.tamper, kind.tt ? { permanent: 'closed', current: 'closed' } : null);
      }
    });

    test(`${kind.name}: parameter shapes are what the URL carries`, () => {
      const p = generateSun424(chip(kind, 5));
      assert.match(p.cmac, /^[0-9A-F]{16}$/);
      if (kind.plain) {
        assert.equal(p.uid, '04112233445566');
        assert.equal(p.ctr, '000005');
        assert.equal(p.piccData, undefined);
      } else {
        assert.match(p.piccData!, kind.crypto === 'aes' ? /^[0-9A-F]{32}$/ : /^[0-9A-F]{48}$/);
      }
      if (kind.tt) {
        assert.match(p.enc!, /^[0-9A-F]{32}$/);
        assert.equal(p.macInput, `${p.enc}&cmac=`);
      } else {
        assert.equal(p.macInput, '');
      }
    });

    test(`${kind.name}: any single flipped hex digit in any parameter is not genuine`, () => {
      const e = chip(kind, 1234);
      const p = generateSun424(e);
      const input = verifierInput(e, p);
      for (const role of ['piccData', 'uid', 'ctr', 'enc', 'cmac'] as const) {
        const value = input[role];
        if (value === undefined) continue;
        for (let i = 0; i < value.length; i++) {
          const flipped = flipDigit(value, i);
          const macInput = role === 'enc' ? `${flipped}&cmac=` : input.macInput;
          assert.equal(verifySun424({ ...input, [role]: flipped, macInput }).ok, false, `${role}[${i}]`);
        }
      }
    });
  }

  for (const crypto of ['aes', 'lrp'] as const) {
    test(`424 DNA TT ${crypto}: all nine tamper combinations round-trip`, () => {
      const kind = { name: '', crypto, plain: false, tt: true };
      for (const permanent of STATES) {
        for (const current of STATES) {
          const e = { ...chip(kind, 7), tamper: { permanent, current } };
          const r = verifySun424(verifierInput(e, generateSun424(e)));
          assert.ok(r.ok);
          assert.deepEqual(r.tamper, { permanent, current });
          assert.equal(Buffer.from(r.fileData!).toString('latin1', 0, 2), `${'COI'[STATES.indexOf(permanent)]}${'COI'[STATES.indexOf(current)]}`);
        }
      }
    });
  }

  test('a custom MAC input function (MAC from picc_data) round-trips', () => {
    const e: Sun424Emulation = {
      ...chip(KINDS[0]!, 9),
      fileData: Buffer.from('0123456789ABCDEF'),
      macInput: (v) => `${v.piccData}&enc=${v.enc}&cmac=`,
    };
    const p = generateSun424(e);
    assert.equal(p.macInput, `${p.piccData}&enc=${p.enc}&cmac=`);
    const r = verifySun424(verifierInput(e, p));
    assert.ok(r.ok);
    assert.equal(Buffer.from(r.fileData!).toString('latin1'), '0123456789ABCDEF');
  });

  test('NTAG 223 DNA: generated mirrors verify, with and without tamper status, any flipped digit fails', () => {
    const key = randomBytes(16);
    const uid = hex('04AA2BD2335780');
    for (const counter of [0, 1, 0xffffff]) {
      const sun = generateSun223({ key, uid, counter });
      assert.deepEqual(verifySun223({ key, sun }), { ok: true, uid: '04AA2BD2335780', counter, tamper: null, fileData: null });
    }
    for (const permanent of STATES) {
      for (const current of STATES) {
        const sun = generateSun223({ key, uid, counter: 3, tamper: { permanent, current } });
        const r = verifySun223({ key, sun });
        assert.ok(r.ok);
        assert.deepEqual(r.tamper, { permanent, current });
      }
    }
    const sun = generateSun223({ key, uid, counter: 77, tamper: { permanent: 'open', current: 'closed' } });
    for (let i = 0; i < sun.length; i++) {
      if (!/[0-9A-F]/.test(sun[i]!) || i === 22 || i === 23) continue;
      assert.equal(verifySun223({ key, sun: flipDigit(sun, i) }).ok, false, `position ${i}`);
    }
  });
});

describe('the emulator reproduces published chip output', () => {
  test('AN12196 Tables 3/5: same UID, counter, random padding and keys give the same picc_data and cmac', () => {
    const p = generateSun424({
      crypto: 'aes',
      uid: hex('04DE5F1EACC040'),
      counter: 61,
      sdmMetaReadKey: ZERO_KEY,
      sdmFileReadKey: ZERO_KEY,
      random: fixedRandom({ 5: 'DA5CF60941' }),
    });
    assert.equal(p.piccData, 'EF963FF7828658A599F3041510671E88');
    assert.equal(p.cmac, '94EED9EE65337086');
  });

  test('AN12196 Table 6: picc_data, enc of "xxxxxxxxxxxxxxxx" and cmac over "<enc>&cmac="', () => {
    const p = generateSun424({
      crypto: 'aes',
      uid: hex('04958CAA5C5E80'),
      counter: 8,
      sdmMetaReadKey: ZERO_KEY,
      sdmFileReadKey: ZERO_KEY,
      fileData: Buffer.from('xxxxxxxxxxxxxxxx'),
      random: fixedRandom({ 5: 'A243C86DFC' }),
    });
    assert.deepEqual(p, {
      piccData: 'FD91EC264309878BE6345CBE53BADF40',
      enc: 'CEE9A53E3E463EF1F459635736738962',
      cmac: 'ECC1E7F6C6C73BF6',
      macInput: 'CEE9A53E3E463EF1F459635736738962&cmac=',
    });
  });

  test("LRP (sdm-backend test_sdm_lrp1): PICCRand and padding injected give the chip's exact parameters", () => {
    const picc = '07D9CA2545881D4BFDD920BE1603268C0714420DD893A497';
    const padding = upper(decryptPiccData('lrp', ZERO_KEY, hex(picc)).subarray(11));
    const p = generateSun424({
      crypto: 'lrp',
      uid: hex('049B112A2F7080'),
      counter: 4,
      sdmMetaReadKey: ZERO_KEY,
      sdmFileReadKey: ZERO_KEY,
      fileData: Buffer.from('NTXXb7dz3PsYYBlU'),
      random: fixedRandom({ 5: padding, 8: picc.slice(0, 16) }),
    });
    assert.equal(p.piccData, picc);
    assert.equal(p.enc, 'D6E921C47DB4C17C56F979F81559BB83');
    assert.equal(p.cmac, 'F9481AC7D855BDB6');
  });

  test('invalid emulator settings throw (counter outside 24 bits, UID not 7 bytes, bad random source)', () => {
    const e = chip(KINDS[0]!, 1);
    assert.throws(() => generateSun424({ ...e, counter: 0x1000000 }), RangeError);
    assert.throws(() => generateSun424({ ...e, counter: -1 }), RangeError);
    assert.throws(() => generateSun424({ ...e, uid: Buffer.alloc(4) }), TypeError);
    assert.throws(() => generateSun424({ ...e, random: () => Buffer.alloc(1) }), TypeError);
    assert.throws(() => generateSun223({ key: ZERO_KEY, uid: Buffer.alloc(7), counter: 1.5 }), RangeError);
  });
});

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import {
  AesEcb,
  aesCmac,
  cmacSubkeys,
  decryptPiccData,
  encryptPiccData,
  Lrp,
  parsePiccData,
  sdmEncKeyAes,
  sdmMacKeyAes,
  sdmSessionKeyLrp,
  sdmSessionKeysAes,
  sdmSessionVectorsAes,
  SdmSession,
  verifySun424,
  type Sun424Input,
} from '../../src/chips/index.js';
import { hex, loadVectors, upper } from './vectors.js';

const file = loadVectors('ntag424_sun_an12196.json');
const ZERO_KEY = Buffer.alloc(16);
/** Plain UID and counter mirroring, AES, empty MAC input: sdm-backend's test_plain_sdm (a real chip's values). */
const PLAIN_SDM: Sun424Input = {
  crypto: 'aes',
  sdmMetaReadKey: null,
  sdmFileReadKey: ZERO_KEY,
  uid: '041E3C8A2D6B80',
  ctr: '000006',
  cmac: '4B00064004B0B3D3',
  macInput: '',
};

function paramsFromUrl(url: string, names: Record<string, string>): Record<string, string> {
  const q = new URL(url).searchParams;
  return Object.fromEntries(Object.entries(names).map(([role, name]) => [role, q.get(name)!]));
}

describe('NTAG 424 DNA SUN vectors (AN12196)', () => {
  for (const t of file.vectors as any[]) {
    const x = t.expected.intermediate;

    if (t.kind === 'session_key_only') {
      test(`${t.id}: SV1/SV2 and the SDM session ENC/MAC keys`, () => {
        const i = t.session_key_input;
        const uid = hex(i.uid);
        const ctr = hex(i.sdm_read_ctr_lsb_first);
        const { sv1, sv2 } = sdmSessionVectorsAes(uid, ctr);
        assert.equal(upper(sv1), x.sv1);
        assert.equal(upper(sv2), x.sv2);
        const both = sdmSessionKeysAes(hex(i.sdm_file_read_key), uid, ctr);
        assert.equal(upper(both.encKey), x.ses_sdm_file_read_enc_key);
        assert.equal(upper(both.macKey), x.ses_sdm_file_read_mac_key);
        assert.equal(upper(sdmEncKeyAes(hex(i.sdm_file_read_key), uid, ctr)), x.ses_sdm_file_read_enc_key);
        assert.equal(upper(sdmMacKeyAes(hex(i.sdm_file_read_key), uid, ctr)), x.ses_sdm_file_read_mac_key);
        // The batched derivation equals the plain CMAC definition.
        assert.equal(upper(aesCmac(hex(i.sdm_file_read_key), sv1)), x.ses_sdm_file_read_enc_key);
        assert.equal(upper(aesCmac(hex(i.sdm_file_read_key), sv2)), x.ses_sdm_file_read_mac_key);
      });
      continue;
    }

    const input: Sun424Input = {
      crypto: 'aes',
      sdmMetaReadKey: t.sdm_meta_read_key === null ? null : hex(t.sdm_meta_read_key),
      sdmFileReadKey: hex(t.sdm_file_read_key),
      piccData: t.params.picc_data,
      enc: t.params.enc,
      cmac: t.params.cmac,
      macInput: t.mac_input_ascii,
    };

    test(`${t.id}: verifies as genuine, UID ${t.expected.uid}, counter ${t.expected.counter}`, () => {
      const r = verifySun424(input);
      assert.equal(r.ok, t.expected.cmac_valid);
      assert.ok(r.ok);
      assert.equal(r.uid, t.expected.uid);
      assert.equal(r.counter, t.expected.counter);
      assert.equal(r.tamper, t.expected.tamper_status);
      assert.equal(r.fileData === null ? null : upper(r.fileData), t.expected.file_data_hex);
    });

    test(`${t.id}: the parameters are the ones in the published URL`, () => {
      const names = t.param_names ?? { picc_data: 'picc_data', enc: 'enc', cmac: 'cmac' };
      const fromUrl = paramsFromUrl(t.url, names);
      for (const role of Object.keys(t.params)) assert.equal(fromUrl[role], t.params[role]);
    });

    test(`${t.id}: intermediate values (PICCData plaintext, session vectors and keys, CMAC)`, () => {
      const plain = decryptPiccData('aes', input.sdmMetaReadKey!, hex(t.params.picc_data));
      assert.equal(upper(plain), x.picc_plaintext);
      assert.equal(upper(plain.subarray(0, 1)), t.expected.picc_data_tag);
      const picc = parsePiccData(plain)!;
      assert.equal(upper(picc.uid), t.expected.uid);
      if (x.sdm_read_ctr_lsb_first) assert.equal(upper(picc.ctrLsb), x.sdm_read_ctr_lsb_first);
      if (x.random_padding) assert.equal(upper(plain.subarray(11)), x.random_padding);

      const { sv1, sv2 } = sdmSessionVectorsAes(picc.uid, picc.ctrLsb);
      if (x.sv1) assert.equal(upper(sv1), x.sv1);
      if (x.sv2) assert.equal(upper(sv2), x.sv2);
      const keys = sdmSessionKeysAes(input.sdmFileReadKey, picc.uid, picc.ctrLsb);
      if (x.ses_sdm_file_read_enc_key) assert.equal(upper(keys.encKey), x.ses_sdm_file_read_enc_key);
      if (x.ses_sdm_file_read_mac_key) assert.equal(upper(keys.macKey), x.ses_sdm_file_read_mac_key);
      if (x.cmac_subkey_L) {
        const s = cmacSubkeys(keys.macKey);
        assert.equal(upper(s.L), x.cmac_subkey_L);
        assert.equal(upper(s.K1), x.cmac_subkey_K1);
        assert.equal(upper(s.K2), x.cmac_subkey_K2);
      }
      const macInput = Buffer.from(t.mac_input_ascii, 'latin1');
      if (x.mac_input_hex) assert.equal(upper(macInput), x.mac_input_hex);
      const session = new SdmSession('aes', input.sdmFileReadKey, picc.uid, picc.ctrLsb);
      if (x.full_cmac) assert.equal(upper(session.fullMac(macInput)), x.full_cmac);
      assert.equal(upper(session.mac(macInput)), t.params.cmac);
      if (x.ive) assert.equal(upper(session.fileDataIvAes()), x.ive);
    });

    if (t.file_settings) {
      test(`${t.id}: the MAC input is the URL text between SDMMACInputOffset and SDMMACOffset`, () => {
        const fs = t.file_settings;
        // The file offsets count from the start of the NDEF file; anchor them on the PICCData value.
        const base = Number(fs.picc_data_offset) - t.url.indexOf(t.params.picc_data);
        assert.equal(Number(fs.sdm_enc_offset) - base, t.url.indexOf(t.params.enc));
        assert.equal(Number(fs.sdm_enc_length), t.params.enc.length);
        assert.equal(Number(fs.sdm_mac_offset) - base, t.url.indexOf(t.params.cmac));
        const fromUrl = t.url.slice(Number(fs.sdm_mac_input_offset) - base, Number(fs.sdm_mac_offset) - base);
        assert.equal(fromUrl, t.mac_input_ascii);
      });
    }
  }
});

// Supplementary public vectors, for what the shared file does not cover (LRP mode, plain mirroring,
// non-zero keys). Source: nfc-developer/sdm-backend tests/test_libsdm.py and tests/test_lrp_sdm.py
// (values produced by real NTAG 424 DNA chips per that project).
describe('NTAG 424 DNA SUN, supplementary open-source vectors', () => {
  test('plain UID/counter mirroring, AES, empty MAC input (sdm-backend test_plain_sdm)', () => {
    const r = verifySun424(PLAIN_SDM);
    assert.deepEqual(r, { ok: true, uid: '041E3C8A2D6B80', counter: 6, tamper: null, fileData: null });
  });

  test('plain mirroring with a wrong MAC is bad_cmac and still reports UID and counter (test_plain_sdm_wrong)', () => {
    const r = verifySun424({ ...PLAIN_SDM, cmac: 'AB00064004B0B3AB' });
    assert.deepEqual(r, { ok: false, reason: 'bad_cmac', uid: '041E3C8A2D6B80', counter: 6 });
  });

  test('AES with non-zero keys and file data, MAC input = the enc hex alone (test_sun3_custom)', () => {
    const enc = 'B8436E11F627BB7F543FCC0C1E0D1A89';
    const r = verifySun424({
      crypto: 'aes',
      sdmMetaReadKey: hex('42aff114f2cb3b6141be6dc95dfc5416'),
      sdmFileReadKey: hex('b62a9baf092439bd43c62aee96b970c5'),
      piccData: '8ACADDEF0A9B62CDAE39A16B83FC14DE',
      enc,
      cmac: '238B2543A8DEBAD8',
      macInput: enc,
    });
    assert.ok(r.ok);
    assert.equal(r.uid, '041D3C8A2D6B80');
    assert.equal(r.counter, 291);
    assert.equal(upper(r.fileData!), '4E545858716E6F5F6F42467077792D56');
  });

  test('LRP, PICCRand + encrypted PICCData (48 hex), file data, MAC input "<enc>&cmac=" (test_sdm_lrp1)', () => {
    const enc = 'D6E921C47DB4C17C56F979F81559BB83';
    const r = verifySun424({
      crypto: 'lrp',
      sdmMetaReadKey: ZERO_KEY,
      sdmFileReadKey: ZERO_KEY,
      piccData: '07D9CA2545881D4BFDD920BE1603268C0714420DD893A497',
      enc,
      cmac: 'F9481AC7D855BDB6',
      macInput: `${enc}&cmac=`,
    });
    assert.ok(r.ok);
    assert.equal(r.uid, '049B112A2F7080');
    assert.equal(r.counter, 4);
    assert.equal(Buffer.from(r.fileData!).toString('latin1'), 'NTXXb7dz3PsYYBlU');
  });

  test('LRP, empty MAC input (test_sdm_lrp2)', () => {
    const r = verifySun424({
      crypto: 'lrp',
      sdmMetaReadKey: ZERO_KEY,
      sdmFileReadKey: ZERO_KEY,
      piccData: '1FCBE61B3E4CAD980CBFDD333E7A4AC4A579569BAFD22C5F',
      cmac: '4231608BA7B02BA9',
      macInput: '',
    });
    assert.deepEqual(r, { ok: true, uid: '04940E2A2F7080', counter: 3, tamper: null, fileData: null });
  });

  test('LRP intermediates: PICCData plaintext and session master key; MAC over "<picc>x" (test_lrp_sdm)', () => {
    const msg = 'AAE1508939ECF6FF26BCE407959AB1A5EC022819A35CD293x5E3DB82C19E3865F';
    const [picc, cmac] = msg.split('x') as [string, string];
    const plain = decryptPiccData('lrp', ZERO_KEY, hex(picc));
    assert.equal(upper(plain), 'C7042E1D222A63806A000016E2CA89D1');
    const p = parsePiccData(plain)!;
    assert.equal(upper(sdmSessionKeyLrp(ZERO_KEY, p.uid, p.ctrLsb)), '99C2FD9C885C2CA3C9089C20057310C0');
    const r = verifySun424({ crypto: 'lrp', sdmMetaReadKey: ZERO_KEY, sdmFileReadKey: ZERO_KEY, piccData: picc, cmac, macInput: `${picc}x` });
    assert.deepEqual(r, { ok: true, uid: '042E1D222A6380', counter: 106, tamper: null, fileData: null });
  });

  test('LRP with file data: master key, LRICB file decryption with counter SDMReadCtr || 000000 (test_lrp_sdm_with_enc_file)', () => {
    const msg = '65628ED36888CF9C84797E43ECACF114C6ED9A5E101EB592x4ADE304B5AB9474CB40AFFCAB0607A85x87E287E8135BFC06';
    const [picc, enc, cmac] = msg.split('x') as [string, string, string];
    const plain = decryptPiccData('lrp', ZERO_KEY, hex(picc));
    assert.equal(upper(plain), 'C7042E1D222A63807B00002993571635');
    const p = parsePiccData(plain)!;
    assert.equal(upper(sdmSessionKeyLrp(ZERO_KEY, p.uid, p.ctrLsb)), '817133DD9FFF11B94FC2FB107AA4D971');
    const macInput = `any.domain/?m=${picc}x${enc}x`;
    const r = verifySun424({ crypto: 'lrp', sdmMetaReadKey: ZERO_KEY, sdmFileReadKey: ZERO_KEY, piccData: picc, enc, cmac, macInput });
    assert.ok(r.ok);
    assert.equal(r.counter, 123);
    assert.equal(Buffer.from(r.fileData!).toString('latin1'), '0102030400000000');
  });
});

describe('verifySun424 refuses what is not genuine', () => {
  // AN12196 Table 6 vector as the genuine baseline.
  const base: Sun424Input = {
    crypto: 'aes',
    sdmMetaReadKey: ZERO_KEY,
    sdmFileReadKey: ZERO_KEY,
    piccData: 'FD91EC264309878BE6345CBE53BADF40',
    enc: 'CEE9A53E3E463EF1F459635736738962',
    cmac: 'ECC1E7F6C6C73BF6',
    macInput: 'CEE9A53E3E463EF1F459635736738962&cmac=',
  };
  const lrpBase: Sun424Input = {
    crypto: 'lrp',
    sdmMetaReadKey: ZERO_KEY,
    sdmFileReadKey: ZERO_KEY,
    piccData: '1FCBE61B3E4CAD980CBFDD333E7A4AC4A579569BAFD22C5F',
    cmac: '4231608BA7B02BA9',
    macInput: '',
  };

  test('the baselines are genuine', () => {
    assert.equal(verifySun424(base).ok, true);
    assert.equal(verifySun424(lrpBase).ok, true);
  });

  test('lower-case hex in picc_data, enc and cmac is accepted', () => {
    const r = verifySun424({ ...base, piccData: base.piccData!.toLowerCase(), enc: base.enc!.toLowerCase(), cmac: base.cmac.toLowerCase() });
    assert.equal(r.ok, true);
  });

  test('wrong PICCData lengths are bad_picc_data (AES wants 32 hex, LRP 48)', () => {
    for (const piccData of [base.piccData!.slice(0, 30), base.piccData! + '00', '', lrpBase.piccData!]) {
      assert.deepEqual(verifySun424({ ...base, piccData }), { ok: false, reason: 'bad_picc_data' });
    }
    assert.deepEqual(verifySun424({ ...lrpBase, piccData: base.piccData! }), { ok: false, reason: 'bad_picc_data' });
    assert.deepEqual(verifySun424({ ...base, piccData: undefined }), { ok: false, reason: 'bad_picc_data' });
  });

  test('non-hex PICCData is bad_picc_data', () => {
    assert.deepEqual(verifySun424({ ...base, piccData: 'G' + base.piccData!.slice(1) }), { ok: false, reason: 'bad_picc_data' });
    assert.deepEqual(verifySun424({ ...base, piccData: ' ' + base.piccData!.slice(1) }), { ok: false, reason: 'bad_picc_data' });
  });

  test('enc that is not whole 16-byte blocks of hex is bad_picc_data', () => {
    for (const enc of ['', base.enc!.slice(0, 30), base.enc! + '00', 'X' + base.enc!.slice(1), '00'.repeat(160)]) {
      assert.deepEqual(verifySun424({ ...base, enc }), { ok: false, reason: 'bad_picc_data' });
    }
  });

  test('wrong cmac length or non-hex cmac is bad_cmac', () => {
    for (const cmac of ['', base.cmac.slice(0, 14), base.cmac + '00', 'ZZC1E7F6C6C73BF6']) {
      assert.deepEqual(verifySun424({ ...base, cmac }), { ok: false, reason: 'bad_cmac' });
    }
  });

  test('plain mirroring: wrong uid/ctr lengths and non-hex are bad_picc_data', () => {
    assert.equal(verifySun424(PLAIN_SDM).ok, true);
    for (const bad of [
      { uid: '041E3C8A2D6B' },
      { uid: '041E3C8A2D6B8000' },
      { ctr: '0006' },
      { ctr: '00000006' },
      { uid: '041E3C8A2D6BQ0' },
      { ctr: '00000G' },
      { uid: undefined },
    ]) {
      assert.deepEqual(verifySun424({ ...PLAIN_SDM, ...bad }), { ok: false, reason: 'bad_picc_data' });
    }
  });

  test('a MAC input that is not printable ASCII or longer than the NDEF file is bad_cmac', () => {
    assert.deepEqual(verifySun424({ ...base, macInput: 'CEE9A53E\u00e9&cmac=' }), { ok: false, reason: 'bad_cmac' });
    assert.deepEqual(verifySun424({ ...base, macInput: 'A'.repeat(257) }), { ok: false, reason: 'bad_cmac' });
  });

  test('every single flipped hex digit in picc_data, enc or cmac makes the tap not genuine', () => {
    for (const role of ['piccData', 'enc', 'cmac'] as const) {
      const value = base[role]!;
      for (let i = 0; i < value.length; i++) {
        const flipped = value.slice(0, i) + (parseInt(value[i]!, 16) ^ 0x1).toString(16).toUpperCase() + value.slice(i + 1);
        // The server cuts the MAC input from the URL, so a flipped enc digit shows up there too.
        const macInput = role === 'enc' ? `${flipped}&cmac=` : base.macInput;
        const r = verifySun424({ ...base, [role]: flipped, macInput });
        assert.equal(r.ok, false, `${role} digit ${i}`);
      }
    }
  });

  test('a one-character change of the MAC input is bad_cmac', () => {
    assert.deepEqual(verifySun424({ ...base, macInput: base.macInput.replace('&cmac=', '&cmaC=') }), {
      ok: false,
      reason: 'bad_cmac',
      uid: '04958CAA5C5E80',
      counter: 8,
    });
  });

  test('a PICCDataTag other than C7 is bad_picc_data even under the right key', () => {
    for (const tag of [0x87, 0x47, 0xc4, 0xca, 0x00]) {
      const plain = Buffer.concat([Buffer.from([tag]), hex('04958CAA5C5E80'), hex('080000'), randomBytes(5)]);
      for (const crypto of ['aes', 'lrp'] as const) {
        const piccData = upper(encryptPiccData(crypto, ZERO_KEY, plain, randomBytes(8)));
        const r = verifySun424({ ...(crypto === 'aes' ? base : lrpBase), piccData });
        assert.deepEqual(r, { ok: false, reason: 'bad_picc_data' }, `tag ${tag.toString(16)} ${crypto}`);
      }
    }
  });

  test('a wrong SDM meta read key is bad_picc_data; a wrong file read key is bad_cmac with the decrypted UID', () => {
    const other = hex('00000000000000000000000000000001');
    assert.deepEqual(verifySun424({ ...base, sdmMetaReadKey: other }), { ok: false, reason: 'bad_picc_data' });
    assert.deepEqual(verifySun424({ ...base, sdmFileReadKey: other }), { ok: false, reason: 'bad_cmac', uid: '04958CAA5C5E80', counter: 8 });
    assert.deepEqual(verifySun424({ ...lrpBase, sdmMetaReadKey: other }), { ok: false, reason: 'bad_picc_data' });
    assert.deepEqual(verifySun424({ ...lrpBase, sdmFileReadKey: other }), { ok: false, reason: 'bad_cmac', uid: '04940E2A2F7080', counter: 3 });
  });

  test('the wrong crypto mode does not verify (an LRP tap checked as AES and vice versa)', () => {
    assert.equal(verifySun424({ ...lrpBase, crypto: 'aes' }).ok, false);
    assert.equal(verifySun424({ ...base, crypto: 'lrp' }).ok, false);
  });

  test('expectTamper without enc is bad_picc_data; file data without status characters is bad_picc_data', () => {
    assert.deepEqual(verifySun424({ ...lrpBase, expectTamper: true }), { ok: false, reason: 'bad_picc_data' });
    // Table 6's file data is "xxxxxxxxxxxxxxxx": MAC valid, but no TT status where one must be.
    assert.deepEqual(verifySun424({ ...base, expectTamper: true }), { ok: false, reason: 'bad_picc_data', uid: '04958CAA5C5E80', counter: 8 });
  });

  test('malformed parameters are refused before any cryptography', (t) => {
    const enc = t.mock.method(AesEcb.prototype, 'encrypt');
    const dec = t.mock.method(AesEcb.prototype, 'decrypt');
    const evl = t.mock.method(Lrp.prototype, 'eval');
    verifySun424({ ...base, piccData: 'nothex' });
    verifySun424({ ...base, cmac: '123' });
    verifySun424({ ...base, enc: 'ABC' });
    verifySun424({ ...lrpBase, piccData: base.piccData! });
    verifySun424({ ...lrpBase, macInput: '\u0000' });
    assert.equal(enc.mock.callCount() + dec.mock.callCount() + evl.mock.callCount(), 0);
    verifySun424(base);
    assert.ok(enc.mock.callCount() > 0, 'the spies do see a real verification');
  });

  test('never throws on junk from the URL, whatever its type', () => {
    const junk: unknown[] = [undefined, null, 0, {}, [], 'x', '\u0000'.repeat(32), 'ä'.repeat(32), '0'.repeat(10_000)];
    for (const j of junk) {
      for (const field of ['piccData', 'enc', 'cmac', 'macInput', 'uid', 'ctr'] as const) {
        const r1 = verifySun424({ ...base, [field]: j } as unknown as Sun424Input);
        const r2 = verifySun424({ ...lrpBase, sdmMetaReadKey: null, uid: '041E3C8A2D6B80', ctr: '000006', [field]: j } as unknown as Sun424Input);
        assert.equal(typeof r1.ok, 'boolean');
        assert.equal(typeof r2.ok, 'boolean');
      }
    }
  });

  test('programming errors (keys that are not 16 bytes, unknown crypto) throw TypeError', () => {
    assert.throws(() => verifySun424({ ...base, sdmFileReadKey: Buffer.alloc(15) }), TypeError);
    assert.throws(() => verifySun424({ ...base, sdmMetaReadKey: Buffer.alloc(32) }), TypeError);
    assert.throws(() => verifySun424({ ...base, crypto: 'des' as 'aes' }), TypeError);
  });
});

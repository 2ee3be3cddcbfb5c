import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import {
  aesCbcDecrypt,
  aesCmac,
  AesEcb,
  authFinish,
  authPart1Apdu,
  authPart2,
  changeKeyData,
  crc32nk,
  Ev2Session,
  ev2SessionKeys,
  ev2SessionVectors,
  getVersionApdus,
  macT,
  parseFileSettings,
  parseGetVersion,
  selectNdefApplicationApdu,
  splitResponse,
  SW_ADDITIONAL_FRAME,
  SW_OK,
  verifyOriginality,
  type CommMode,
} from '../../src/chips/index.js';
import { hex, loadVectors, upper } from './vectors.js';

const v = loadVectors('ntag424_apdu.json');

describe('AuthenticateEV2First / NonFirst (AN12196 Tables 14, 20, 24)', () => {
  for (const t of v.auth as any[]) {
    const first = t.non_first !== true;
    const key = hex(t.key);

    test(`${t.id}: part 1 C-APDU and the PICC's encrypted RndB`, () => {
      assert.equal(upper(authPart1Apdu(t.key_no, first)), t.capdu_part1);
      const r = splitResponse(hex(t.rapdu_part1))!;
      assert.equal(r.sw, SW_ADDITIONAL_FRAME);
      assert.equal(upper(new AesEcb(key).decrypt(r.data)), t.rnd_b);
    });

    test(`${t.id}: part 2 C-APDU = AF || E(K, RndA || RndB<<<8) with the published RndA`, () => {
      const r = splitResponse(hex(t.rapdu_part1))!;
      const c = authPart2(key, r.data, hex(t.rnd_a));
      assert.equal(upper(c.rndB), t.rnd_b);
      assert.equal(upper(Buffer.concat([c.rndB.subarray(1), c.rndB.subarray(0, 1)])), t.rnd_b_rotl);
      assert.equal(upper(c.capdu), t.capdu_part2);
    });

    test(`${t.id}: part 2 response proves RndA, gives TI/capabilities, and SV1/SV2 give the session keys`, () => {
      const c = authPart2(key, splitResponse(hex(t.rapdu_part1))!.data, hex(t.rnd_a));
      const r2 = splitResponse(hex(t.rapdu_part2))!;
      assert.equal(r2.sw, SW_OK);
      assert.equal(upper(aesCbcDecrypt(key, Buffer.alloc(16), r2.data)), t.part2_plain);
      const done = authFinish(key, c, r2.data, first)!;
      assert.ok(done);
      if (first) {
        assert.equal(upper(done.ti!), t.ti);
        assert.equal(upper(done.pdCap2!), t.pdcap2);
        assert.equal(upper(done.pcdCap2!), t.pcdcap2);
      } else {
        assert.equal(done.ti, null);
      }
      const { sv1, sv2 } = ev2SessionVectors(hex(t.rnd_a), hex(t.rnd_b));
      assert.equal(upper(sv1), t.sv1);
      assert.equal(upper(sv2), t.sv2);
      assert.equal(upper(done.encKey), t.k_ses_auth_enc);
      assert.equal(upper(done.macKey), t.k_ses_auth_mac);
      assert.deepEqual(ev2SessionKeys(key, hex(t.rnd_a), hex(t.rnd_b)), { encKey: done.encKey, macKey: done.macKey });
    });

    test(`${t.id}: a PICC that does not know the key (wrong RndA') is refused`, () => {
      const c = authPart2(key, splitResponse(hex(t.rapdu_part1))!.data, hex(t.rnd_a));
      const r2 = splitResponse(hex(t.rapdu_part2))!;
      const tampered = Buffer.from(r2.data);
      tampered[5] = tampered[5]! ^ 0x01;
      assert.equal(authFinish(key, c, tampered, first), null);
      assert.equal(authFinish(hex('00000000000000000000000000000001'), c, r2.data, first), null);
      assert.equal(authFinish(key, c, r2.data.subarray(0, 8), first), null);
    });
  }
});

describe('EV2 secure messaging (AN12196 Tables 8, 9, 18, 19, 22, 26-29)', () => {
  for (const t of v.secure_messaging as any[]) {
    const mode: CommMode = t.comm_mode === 'MAC' ? 'mac' : 'full';
    const keys = { encKey: hex(t.k_ses_auth_enc ?? '00000000000000000000000000000000'), macKey: hex(t.k_ses_auth_mac) };
    const session = () => new Ev2Session(keys, hex(t.ti), t.cmd_ctr);

    if (t.ivc) {
      test(`${t.id}: IVc = E(KSesAuthENC, A55A || TI || CmdCtr || 0^8)`, () => {
        assert.equal(upper(session().commandIv()), t.ivc);
        if (t.iv_input) assert.equal(upper(new AesEcb(keys.encKey).decrypt(hex(t.ivc))), t.iv_input);
      });
    }

    if (t.cmd !== undefined) {
      const header = hex(t.cmd_header);
      const data = hex(t.cmd_data);
      test(`${t.id}: command ${t.cmd} in CommMode.${t.comm_mode}: encrypted data, MAC input, CMAC, MACt, C-APDU`, () => {
        const s = session();
        const body = mode === 'full' && data.length > 0 ? s.encryptCommandData(data) : data;
        if (t.enc_cmd_data) assert.equal(upper(body), t.enc_cmd_data);
        const macInput = s.commandMacInput(parseInt(t.cmd, 16), header, body);
        if (t.mac_input) assert.equal(upper(macInput), t.mac_input);
        if (t.cmac_full) assert.equal(upper(aesCmac(keys.macKey, macInput)), t.cmac_full);
        assert.equal(upper(macT(aesCmac(keys.macKey, macInput))), t.mact);
        if (t.capdu) assert.equal(upper(s.commandApdu(parseInt(t.cmd, 16), header, data, mode)), t.capdu);
      });
    }

    if (t.new_key) {
      test(`${t.id}: ChangeKey data for key ${t.cmd_header} (${t.cmd_header === '00' ? 'the authenticated key: NewKey || KeyVer' : 'another key: (Old XOR New) || KeyVer || CRC32NK(New)'})`, () => {
        const d = changeKeyData(parseInt(t.cmd_header, 16), 0, hex(t.old_key), hex(t.new_key), parseInt(t.key_version, 16));
        assert.equal(upper(d), t.cmd_data);
        if (t.crc32_new_key) assert.equal(upper(crc32nk(hex(t.new_key))), t.crc32_new_key);
      });
    }

    if (t.resp_mact) {
      test(`${t.id}: response MAC over RC || CmdCtr+1 || TI || data`, () => {
        const s = session();
        const body = hex(t.resp_enc_data ?? t.resp_data ?? '');
        const macInput = s.responseMacInput(0x00, body);
        if (t.resp_mac_input) assert.equal(upper(macInput), t.resp_mac_input);
        if (t.resp_cmac_full) assert.equal(upper(aesCmac(keys.macKey, macInput)), t.resp_cmac_full);
        assert.equal(upper(macT(aesCmac(keys.macKey, macInput))), t.resp_mact);
      });

      test(`${t.id}: the session accepts the genuine response, advances CmdCtr, and refuses a flipped MAC bit`, () => {
        const body = hex(t.resp_enc_data ?? t.resp_data ?? '');
        // AN12196 prints some responses in a different order (status first); rebuild data || MACt || 9100.
        const rapdu = Buffer.concat([body, hex(t.resp_mact), hex('9100')]);
        if (t.rapdu && t.rapdu.endsWith('9100')) assert.equal(upper(rapdu), t.rapdu);
        const s = session();
        const out = s.checkResponse(rapdu, mode);
        assert.ok(out);
        assert.equal(s.cmdCtr, t.cmd_ctr + 1);
        if (t.resp_data) assert.equal(upper(out), t.resp_data);
        if (t.uid) assert.equal(upper(out), t.uid);
        const bad = Buffer.from(rapdu);
        bad[bad.length - 3] = bad[bad.length - 3]! ^ 0x01;
        const s2 = session();
        assert.equal(s2.checkResponse(bad, mode), null);
        assert.equal(s2.cmdCtr, t.cmd_ctr, 'a refused response does not advance CmdCtr');
      });
    }

    if (t.ivr) {
      test(`${t.id}: IVr = E(KSesAuthENC, 5AA5 || TI || CmdCtr+1 || 0^8) decrypts the response to the padded UID`, () => {
        const s = session();
        assert.equal(upper(s.responseIv()), t.ivr);
        assert.equal(upper(aesCbcDecrypt(keys.encKey, s.responseIv(), hex(t.resp_enc_data))), t.resp_plain_padded);
      });
    }

    if (t.rapdu === '9100') {
      test(`${t.id}: changing the authenticated key ends the session: a bare 9100 with no MAC`, () => {
        const s = session();
        assert.deepEqual(s.checkResponse(hex('9100'), 'plain'), Buffer.alloc(0));
      });
    }
  }

  test('a full round trip: commands wrapped by one session verify under a mirror session acting as PICC', () => {
    const keys = { encKey: randomBytes(16), macKey: randomBytes(16) };
    const ti = randomBytes(4);
    const pcd = new Ev2Session(keys, ti, 0);
    for (let i = 0; i < 3; i++) {
      const data = randomBytes(20 + i);
      const capdu = pcd.commandApdu(0x8d, hex('02000000140000'), data, 'full');
      // The PICC side: the MAC covers everything between the header and the MAC itself.
      const body = capdu.subarray(5 + 7, capdu.length - 9);
      assert.equal(
        upper(capdu.subarray(capdu.length - 9, capdu.length - 1)),
        upper(macT(aesCmac(keys.macKey, pcd.commandMacInput(0x8d, hex('02000000140000'), body)))),
      );
      const resp = Buffer.concat([macT(aesCmac(keys.macKey, pcd.responseMacInput(0, Buffer.alloc(0)))), hex('9100')]);
      assert.ok(pcd.checkResponse(resp, 'full'));
    }
    assert.equal(pcd.cmdCtr, 3);
  });
});

describe('APDU framing and plain responses (AN12196 Tables 11-13)', () => {
  const misc = Object.fromEntries((v.misc as any[]).map((m) => [m.id, m]));

  test('ISO SELECT of the NDEF application by DF name', () => {
    assert.equal(upper(selectNdefApplicationApdu()), misc['an12196-t11-iso-select-ndef-app'].capdu);
    assert.equal(splitResponse(hex(misc['an12196-t11-iso-select-ndef-app'].rapdu))!.sw, 0x9000);
  });

  test('GetVersion: three frames parsed into HW, SW, UID, batch, fab key/CW and year', () => {
    const t = misc['an12196-t13-getversion'];
    assert.deepEqual(getVersionApdus().map(upper), t.capdus);
    const p = parseGetVersion(t.rapdus.map(hex))!;
    const part = (x: any) => Object.fromEntries(Object.entries(x).map(([k, val]) => [k, parseInt(val as string, 16)]));
    assert.deepEqual(p.hw, part(t.parsed.hw));
    assert.deepEqual(p.sw, part(t.parsed.sw));
    assert.equal(upper(p.uid), t.parsed.uid);
    assert.equal(upper(p.batch), t.parsed.batch);
    assert.equal(p.fabKeyCw, parseInt(t.parsed.fab_key_cw, 16));
    assert.equal(p.year, parseInt(t.parsed.year, 16));
    assert.equal(parseGetVersion(t.rapdus.slice(0, 2).map(hex)), null);
  });

  test('GetFileSettings: access rights and offsets LSB first; the truncated SDMMACOffset is absent', () => {
    const t = misc['an12196-t12-getfilesettings-plain'];
    assert.equal(upper(Buffer.from([0x90, 0xf5, 0, 0, 1, 2, 0])), t.capdu);
    const s = parseFileSettings(splitResponse(hex(t.rapdu))!.data)!;
    assert.equal(s.fileType, parseInt(t.parsed.file_type, 16));
    assert.equal(s.fileOption, parseInt(t.parsed.file_option, 16));
    assert.equal(s.accessRights, 0xe000);
    assert.equal(s.fileSize, t.parsed.file_size);
    assert.equal(s.sdmOptions, parseInt(t.parsed.sdm_options, 16));
    assert.equal(s.sdmAccessRights, 0x21f1);
    assert.deepEqual(s.offsets, [t.parsed.picc_data_offset, t.parsed.sdm_mac_input_offset]);
  });
});

describe('Originality signature (secp224r1, UID as the hash)', () => {
  for (const t of v.originality_signature.vectors as any[]) {
    test(`${t.src}: UID ${t.uid} signature is ${t.valid ? 'valid' : 'invalid'}`, () => {
      assert.equal(verifyOriginality(hex(t.uid), hex(t.sig)), t.valid);
    });
  }

  test('malformed UID or signature lengths are simply invalid', () => {
    const t = v.originality_signature.vectors[0];
    assert.equal(verifyOriginality(hex(t.uid).subarray(1), hex(t.sig)), false);
    assert.equal(verifyOriginality(hex(t.uid), hex(t.sig).subarray(1)), false);
    assert.equal(verifyOriginality(hex(t.uid), Buffer.alloc(56)), false);
  });
});

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  changeFileSettingsApdu,
  changeKeyApdu,
  changeKeyResponseMode,
  chipProtocolOf,
  parseGetVersion,
  decodeFileConfig,
  decodeGetFileSettings,
  describeStatus,
  encodeFileConfig,
  encodeGetFileSettings,
  Ev2Session,
  FREE,
  getCardUidApdu,
  getFileSettingsApdu,
  isoReadBinaryApdu,
  isoSelectFileApdu,
  isoUpdateBinaryApdu,
  maxWriteChunk,
  NEVER,
  parseGetCardUid,
  parseGetFileSettingsResponse,
  readSigApdu,
  sdmConfigProblem,
  writeChunks,
  writeDataApdu,
  type FileConfig,
  type SdmConfig,
} from '../../src/chips/index.js';
import { hex, loadVectors, upper } from './vectors.js';

const v = loadVectors('ntag424_apdu.json');
const sm = Object.fromEntries((v.secure_messaging as any[]).map((t) => [t.id, t]));

function sessionOf(t: any): Ev2Session {
  return new Ev2Session({ encKey: hex(t.k_ses_auth_enc ?? '00000000000000000000000000000000'), macKey: hex(t.k_ses_auth_mac) }, hex(t.ti), t.cmd_ctr);
}

describe('command builders reproduce the AN12196 traces byte for byte', () => {
  test('WriteData of the NDEF file in CommMode.Full (Table 18): header 02 000000 800000, padded extra block, MACt', () => {
    const t = sm['an12196-t18-writedata-ndef-full'];
    const data = hex(t.cmd_data);
    const capdu = writeDataApdu(sessionOf(t), 2, 0, data, 'full');
    const body = Buffer.concat([hex(t.cmd_header), hex(t.enc_cmd_data), hex(t.mact)]);
    assert.equal(upper(capdu), upper(Buffer.concat([hex('908D0000'), Buffer.from([body.length]), body, hex('00')])));
    const s = sessionOf(t);
    assert.ok(s.checkResponse(Buffer.concat([hex(t.resp_mact), hex('9100')]), 'mac'));
    assert.equal(s.cmdCtr, 1);
  });

  test('WriteData of the proprietary file in CommMode.Full (Table 22)', () => {
    const t = sm['an12196-t22-writedata-proprietary-full'];
    assert.equal(upper(writeDataApdu(sessionOf(t), 3, 0, hex(t.cmd_data), 'full')), t.capdu);
  });

  test('ChangeFileSettings with SDM (Table 19): settings encode to the published command data and C-APDU', () => {
    const t = sm['an12196-t19-changefilesettings-full'];
    const config = decodeFileConfig(hex(t.cmd_data))!;
    assert.deepEqual(config, {
      commMode: 'plain',
      access: { read: FREE, write: 0, readWrite: 0, change: 0 },
      sdm: {
        uidMirror: true,
        ctrMirror: true,
        encFileData: false,
        ttStatus: false,
        ctrLimit: null,
        metaRead: 2,
        fileRead: 1,
        ctrRet: 1,
        piccDataOffset: 0x20,
        macInputOffset: 0x43,
        macOffset: 0x43,
      },
    });
    assert.equal(upper(encodeFileConfig(config)), t.cmd_data);
    assert.equal(upper(changeFileSettingsApdu(sessionOf(t), 2, config)), t.capdu);
    assert.equal(sdmConfigProblem(config.sdm!, 256), null);
  });

  test('ChangeKey of another key (Table 26): XOR, KeyVer, CRC32NK, response MACed', () => {
    const t = sm['an12196-t26-changekey-case1-key2'];
    const s = sessionOf(t);
    assert.equal(upper(changeKeyApdu(s, 2, 0, hex(t.old_key), hex(t.new_key), 1)), t.capdu);
    assert.equal(changeKeyResponseMode(2, 0), 'mac');
    assert.ok(s.checkResponse(hex(t.rapdu), changeKeyResponseMode(2, 0)));
  });

  test('ChangeKey of the authenticated key 0 (Table 27): NewKey || KeyVer, bare 9100', () => {
    const t = sm['an12196-t27-changekey-case2-key0'];
    const s = sessionOf(t);
    assert.equal(upper(changeKeyApdu(s, 0, 0, hex(t.old_key), hex(t.new_key), 1)), t.capdu);
    assert.equal(changeKeyResponseMode(0, 0), 'plain');
    assert.deepEqual(s.checkResponse(hex(t.rapdu), 'plain'), Buffer.alloc(0));
    assert.throws(() => changeKeyApdu(s, 5, 0, hex(t.old_key), hex(t.new_key), 1), RangeError);
  });

  test('GetCardUID (Table 29): C-APDU, then the UID decrypted from the Full response', () => {
    const t = sm['an12196-t29-getcarduid-full-response'];
    assert.equal(upper(getCardUidApdu(sessionOf(t))), t.capdu);
    assert.equal(upper(parseGetCardUid(hex(t.rapdu), sessionOf(t))!), t.uid);
    const bad = hex(t.rapdu);
    bad[3] = bad[3]! ^ 1;
    assert.equal(parseGetCardUid(bad, sessionOf(t)), null);
  });

  test('GetFileSettings in CommMode.MAC (Table 8): C-APDU and the SDM settings decoded from the response', () => {
    const t = sm['an12196-t8-getfilesettings-commmode-mac'];
    assert.equal(upper(getFileSettingsApdu(sessionOf(t), 2)), t.capdu);
    const parsed = parseGetFileSettingsResponse(hex(t.rapdu), sessionOf(t))!;
    assert.equal(parsed.fileSize, 256);
    assert.deepEqual(parsed.config.access, { read: FREE, write: FREE, readWrite: FREE, change: FREE });
    assert.deepEqual(parsed.config.sdm, {
      uidMirror: true,
      ctrMirror: true,
      encFileData: true,
      ttStatus: false,
      ctrLimit: null,
      metaRead: 0,
      fileRead: 0,
      ctrRet: FREE,
      piccDataOffset: 0x1f,
      macInputOffset: 0x44,
      encOffset: 0x44,
      encLength: 0x20,
      macOffset: 0x6a,
    });
    assert.equal(upper(encodeGetFileSettings(parsed.config, 256)), t.resp_data);
  });

  test('Read_Sig outside a session is 903C0000010000; ISO select/read/update framing', () => {
    assert.equal(upper(readSigApdu(null)), '903C0000010000');
    assert.equal(upper(isoSelectFileApdu(0xe104)), '00A4000C02E10400');
    assert.equal(upper(isoReadBinaryApdu(0, 256)), '00B0000000');
    assert.equal(upper(isoReadBinaryApdu(0x1234, 15)), '00B012340F');
    assert.equal(upper(isoUpdateBinaryApdu(2, hex('AABB'))), '00D6000202AABB');
    assert.throws(() => isoReadBinaryApdu(0x8000, 1), RangeError);
    assert.throws(() => isoUpdateBinaryApdu(0, Buffer.alloc(256)), RangeError);
  });
});

describe('which chip answered GetVersion', () => {
  test('AN12196 Table 13 is a TagTamper (HW subtype 08); subtype 02 is a 424 DNA; other NXP chips are not compatible', () => {
    const t = (v.misc as any[]).find((m) => m.id === 'an12196-t13-getversion');
    const version = parseGetVersion(t.rapdus.map(hex))!;
    assert.equal(chipProtocolOf(version), 'ntag_424_dna_tag_tamper');
    assert.equal(chipProtocolOf({ ...version, hw: { ...version.hw, subtype: 0x02 } }), 'ntag_424_dna');
    assert.equal(chipProtocolOf({ ...version, hw: { ...version.hw, type: 0x01 } }), null, 'a DESFire');
    assert.equal(chipProtocolOf({ ...version, hw: { ...version.hw, vendor: 0x05 } }), null);
    assert.equal(chipProtocolOf({ ...version, hw: { ...version.hw, subtype: 0x03 } }), null);
  });
});

describe('WriteData chunking keeps every APDU short', () => {
  for (const mode of ['plain', 'mac', 'full'] as const) {
    test(`CommMode.${mode}: the largest chunk gives at most 255 data bytes, one more is refused`, () => {
      const s = new Ev2Session({ encKey: Buffer.alloc(16, 1), macKey: Buffer.alloc(16, 2) }, hex('01020304'), 0);
      const max = maxWriteChunk(mode);
      const apdu = writeDataApdu(s, 2, 0, Buffer.alloc(max, 0x41), mode);
      assert.ok(apdu[4]! <= 255 && apdu.length === apdu[4]! + 6);
      assert.throws(() => writeDataApdu(s, 2, 0, Buffer.alloc(max + 1), mode), RangeError);
      assert.throws(() => writeDataApdu(s, 2, 0, Buffer.alloc(0), mode), RangeError);
      const chunks = writeChunks(Buffer.alloc(256, 7), mode);
      assert.equal(
        chunks.reduce((n, c) => n + c.data.length, 0),
        256,
      );
      assert.deepEqual(
        chunks.map((c) => c.offset),
        chunks.map((_, i) => i * max),
      );
    });
  }
  test('outside a session WriteData is plain only', () => {
    assert.equal(upper(writeDataApdu(null, 2, 1, hex('AA'), 'plain')), '908D00000802010000010000AA00');
    assert.throws(() => writeDataApdu(null, 2, 0, hex('AA'), 'full'), TypeError);
  });
});

describe('file settings rules (NT4H2421Tx Tables 69 and 71)', () => {
  const ok: SdmConfig = {
    uidMirror: true,
    ctrMirror: true,
    encFileData: true,
    ttStatus: true,
    ctrLimit: null,
    metaRead: 1,
    fileRead: 2,
    ctrRet: NEVER,
    piccDataOffset: 40,
    ttStatusOffset: 90,
    macInputOffset: 90,
    encOffset: 90,
    encLength: 32,
    macOffset: 128,
  };
  const config = (sdm: SdmConfig | null): FileConfig => ({ commMode: 'plain', access: { read: FREE, write: 0, readWrite: 0, change: 0 }, sdm });

  test('a TagTamper layout round-trips through ChangeFileSettings and GetFileSettings encodings', () => {
    assert.equal(sdmConfigProblem(ok, 256), null);
    assert.deepEqual(decodeFileConfig(encodeFileConfig(config(ok))), config(ok));
    assert.deepEqual(decodeGetFileSettings(encodeGetFileSettings(config(ok), 256)), { fileType: 0, fileSize: 256, config: config(ok) });
    assert.deepEqual(decodeFileConfig(encodeFileConfig(config(null))), config(null));
    const limited = { ...ok, ctrLimit: 1000 };
    assert.deepEqual(decodeFileConfig(encodeFileConfig(config(limited))), config(limited));
  });

  const bad: [string, Partial<SdmConfig>, string][] = [
    ['SDMFileRead free', { fileRead: FREE }, 'SDMFileRead must be a key or F'],
    ['meta read without mirroring', { uidMirror: false, ctrMirror: false, encFileData: false }, 'SDMMetaRead set without UID or counter mirroring'],
    ['encrypted file data without the counter', { ctrMirror: false }, 'SDMENCFileData needs SDMFileRead and UID and counter mirroring'],
    ['ENC length not a multiple of 32', { encLength: 48 }, 'SDMENCLength must be a non-zero multiple of 32'],
    ['ENC outside the MAC window', { macOffset: 100 }, 'SDMENCFileData must lie between SDMMACInputOffset and SDMMACOffset'],
    ['MAC input after the MAC', { macInputOffset: 140, encOffset: 140 }, 'SDMMACInputOffset is after SDMMACOffset'],
    ['TTStatus in the ciphertext half', { ttStatusOffset: 110 }, 'TTStatus must lie in the plaintext half of SDMENCFileData'],
    ['MAC past the end of the file', { macOffset: 241 }, 'SDMMAC does not fit in the file'],
    ['a 25-bit offset', { piccDataOffset: 0x1000000 }, 'piccDataOffset is missing or not a 24-bit offset'],
    ['counter return without counter mirroring', { ctrMirror: false, encFileData: false, ctrRet: 1 }, 'SDMCtrRet needs counter mirroring'],
  ];
  for (const [name, patch, problem] of bad) {
    test(`refused: ${name}, naming the rule`, () => {
      assert.equal(sdmConfigProblem({ ...ok, ...patch }, 256), problem);
    });
  }

  test('malformed ChangeFileSettings data decodes to null', () => {
    const good = encodeFileConfig(config(ok));
    assert.equal(decodeFileConfig(good.subarray(0, good.length - 1)), null);
    assert.equal(decodeFileConfig(Buffer.concat([good, hex('00')])), null);
    assert.equal(decodeFileConfig(hex('02E0EE')), null, 'CommMode bits 10 are RFU');
    assert.equal(decodeFileConfig(hex('00E0')), null);
    const rfu = Buffer.from(good);
    rfu[3] = rfu[3]! & 0xfe; // SDMOptions bit 0 (ASCII) must be set
    assert.equal(decodeFileConfig(rfu), null);
    assert.equal(decodeFileConfig(hex('0055EE')), null, 'access nibble 5 is no key');
  });

  test('status words read as operators need them', () => {
    assert.equal(describeStatus(0x91ae), '91AE AUTHENTICATION_ERROR');
    assert.equal(describeStatus(0x6a82), '6A82 FILE_NOT_FOUND');
    assert.equal(describeStatus(0x1234), '1234');
  });
});

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import {
  authFinish,
  authPart1Apdu,
  authPart2,
  changeFileSettingsApdu,
  changeKeyApdu,
  changeKeyResponseMode,
  describeStatus,
  Ev2Session,
  FILES,
  getCardUidApdu,
  KEY_SLOTS,
  lrpAuthFinish,
  lrpAuthPart1Apdu,
  lrpAuthPart2,
  LrpSession,
  lrpSessionMaster,
  Ntag424Card,
  parseGetCardUid,
  readDataApdu,
  restoreSession,
  sdmFileConfig,
  sessionState,
  sdmTemplate,
  selectNdefApplicationApdu,
  SET_CONFIGURATION_LRP,
  setConfigurationApdu,
  splitResponse,
  statusOf,
  SW,
  verifySun424,
  writeChunks,
  writeDataApdu,
} from '../../src/chips/index.js';
import { defaultLayout, readSdmPart } from '../../src/chips/url-layout.js';
import { hex, loadVectors, upper } from './vectors.js';

const v = loadVectors('ntag424_lrp_apdu.json');
const ZERO = Buffer.alloc(16);

function scripted(...values: string[]): (n: number) => Buffer {
  const queue = values.map(hex);
  return (n) => queue.shift() ?? randomBytes(n);
}

describe('LRP traces (host side) byte for byte', () => {
  const a = v.auth_first;

  test('AuthenticateLRPFirst: part 1 asks for LRP, part 2 carries RndA || PCDResp, the PICC answer gives TI', () => {
    assert.equal(upper(lrpAuthPart1Apdu(a.key_no, true)), a.capdu_part1);
    const r1 = splitResponse(hex(a.rapdu_part1))!;
    assert.equal(r1.sw, SW.additionalFrame);
    const ch = lrpAuthPart2(hex(a.key), r1.data, hex(a.rnd_a))!;
    assert.equal(upper(ch.capdu), a.capdu_part2);
    const done = lrpAuthFinish(ch, splitResponse(hex(a.rapdu_part2))!.data, true)!;
    assert.equal(upper(done.ti!), a.ti);
    assert.equal(lrpAuthFinish(ch, splitResponse(hex(a.rapdu_part2_bad))!.data, true), null, 'a wrong PICCResp is refused');
    assert.equal(lrpAuthPart2(hex(a.key), Buffer.concat([hex('00'), r1.data.subarray(1)]), hex(a.rnd_a)), null, 'AuthMode must be 01');
  });

  test('GetCardUID three times in CommMode.Full: CmdCtr and EncCtr advance together', () => {
    const t = v.sessions[0];
    const s = new LrpSession(lrpSessionMaster(hex(t.key), hex(t.sv)), hex(t.ti), 0, t.enc_ctr);
    for (const x of t.exchanges) {
      assert.equal(upper(getCardUidApdu(s)), x.capdu);
      assert.equal(upper(parseGetCardUid(hex(x.rapdu), s)!), t.uid);
    }
    assert.equal(s.cmdCtr, 3);
  });

  test('WriteData and ReadData of the proprietary file in CommMode.Full', () => {
    const t = v.sessions[1];
    const s = new LrpSession(lrpSessionMaster(hex(t.key), hex(t.sv)), hex(t.ti), 0, t.enc_ctr);
    assert.equal(upper(writeDataApdu(s, t.write.file_no, t.write.offset, hex(t.write.data), 'full')), t.write.capdu);
    assert.ok(s.checkResponse(hex(t.write.rapdu), 'mac'));
    assert.equal(upper(readDataApdu(s, t.read.file_no, t.read.offset, t.read.length, 'full')), t.read.capdu);
    assert.equal(upper(s.checkResponse(hex(t.read.rapdu), 'full')!), t.read.data);
  });
});

describe('the card in LRP mode', () => {
  test('answers the published AuthenticateLRPFirst trace byte for byte', () => {
    const a = v.auth_first;
    const card = new Ntag424Card({ lrp: true, random: scripted('940D2A2F7080', '0000000000', '56109A31977C855319CD4618C9D2AED2', a.ti) });
    card.transmit(selectNdefApplicationApdu());
    assert.equal(upper(card.transmit(hex(a.capdu_part1))), a.rapdu_part1);
    assert.equal(upper(card.transmit(hex(a.capdu_part2))), a.rapdu_part2);
  });

  test('an AES chip switched to LRP: AES authentication is refused afterwards; personalized in LRP, its taps verify as lrp', () => {
    const card = new Ntag424Card();
    card.transmit(selectNdefApplicationApdu());
    // AES session with the factory key, then SetConfiguration option 05.
    const r1 = splitResponse(Buffer.from(card.transmit(authPart1Apdu(0, true))))!;
    const ch = authPart2(ZERO, r1.data);
    const done = authFinish(ZERO, ch, splitResponse(Buffer.from(card.transmit(ch.capdu)))!.data, true)!;
    const aes = new Ev2Session(done, done.ti!, 0);
    assert.ok(aes.checkResponse(card.transmit(setConfigurationApdu(aes, 0x05, SET_CONFIGURATION_LRP)), 'mac'));
    assert.equal(card.lrp, true);
    assert.equal(describeStatus(statusOf(card.transmit(authPart1Apdu(0, true)))!), describeStatus(SW.permissionDenied));

    const lrpAuth = (keyNo: number, key: Uint8Array, running?: LrpSession): LrpSession => {
      const p1 = splitResponse(Buffer.from(card.transmit(lrpAuthPart1Apdu(keyNo, running === undefined))))!;
      const c = lrpAuthPart2(key, p1.data)!;
      const d = lrpAuthFinish(c, splitResponse(Buffer.from(card.transmit(c.capdu)))!.data, running === undefined)!;
      assert.ok(d, 'the card proves the key');
      return running === undefined ? LrpSession.first(d) : running.rekeyLrp(d.master);
    };
    let s = lrpAuth(0, ZERO);
    assert.deepEqual(parseGetCardUid(card.transmit(getCardUidApdu(s)), s), card.uid);
    s = lrpAuth(0, ZERO, s);
    assert.deepEqual(parseGetCardUid(card.transmit(getCardUidApdu(s)), s), card.uid, 'NonFirst keeps TI and CmdCtr, new keys');

    const url = 'https://lrp.example/t';
    const t = sdmTemplate('ntag_424_dna', url, { crypto: 'lrp' });
    assert.equal(t.piccDataOffset! + 48 + '&cmac='.length, t.macOffset);
    for (const c of writeChunks(t.file, 'plain'))
      assert.ok(s.checkResponse(card.transmit(writeDataApdu(s, FILES.ndef.no, c.offset, c.data, 'plain')), 'plain'));
    assert.ok(s.checkResponse(card.transmit(changeFileSettingsApdu(s, FILES.ndef.no, sdmFileConfig('ntag_424_dna', t))), 'mac'));
    const keys = [0, 1, 2, 3, 4].map(() => randomBytes(16));
    for (const keyNo of [1, 2, 3, 4, 0]) {
      assert.ok(s.checkResponse(card.transmit(changeKeyApdu(s, keyNo, 0, ZERO, keys[keyNo]!, 1)), changeKeyResponseMode(keyNo, 0)), `ChangeKey ${keyNo}`);
    }
    for (const counter of [1, 2]) {
      const tapped = card.tap();
      const sdm = readSdmPart(defaultLayout('ntag_424_dna'), tapped, url.length + 1)!;
      assert.equal(sdm.values.picc_data!.length, 48);
      const verdict = verifySun424({
        crypto: 'lrp',
        sdmMetaReadKey: keys[KEY_SLOTS.sdmMetaRead]!,
        sdmFileReadKey: keys[KEY_SLOTS.sdmFileRead]!,
        piccData: sdm.values.picc_data!,
        cmac: sdm.values.cmac!,
        macInput: sdm.macInput,
      });
      assert.deepEqual(verdict.ok && [verdict.uid, verdict.counter], [upper(card.uid), counter]);
    }
    const copy = Ntag424Card.deserialize(JSON.parse(JSON.stringify(card.serialize())));
    assert.equal(copy.lrp, true);
  });

  test('a wrong key or a tampered PCDResp fails with AUTHENTICATION_ERROR; AES requests are refused', () => {
    const card = new Ntag424Card({ lrp: true });
    card.transmit(selectNdefApplicationApdu());
    const p1 = splitResponse(Buffer.from(card.transmit(lrpAuthPart1Apdu(0, true))))!;
    const c = lrpAuthPart2(Buffer.alloc(16, 1), p1.data)!;
    assert.equal(statusOf(card.transmit(c.capdu)), SW.authenticationError);
    assert.equal(statusOf(card.transmit(authPart1Apdu(0, true))), SW.permissionDenied);
    assert.equal(statusOf(card.transmit(lrpAuthPart1Apdu(0, false))), SW.permissionDenied, 'NonFirst needs a session');
  });
});

describe('a session survives being stored between two round trips', () => {
  test('LRP: EncCtr and CmdCtr carry over, the restored session continues the published trace', () => {
    const t = v.sessions[0];
    const s = new LrpSession(lrpSessionMaster(hex(t.key), hex(t.sv)), hex(t.ti), 0, t.enc_ctr);
    assert.equal(upper(getCardUidApdu(s)), t.exchanges[0].capdu);
    parseGetCardUid(hex(t.exchanges[0].rapdu), s);
    const restored = restoreSession(JSON.parse(JSON.stringify(sessionState(s))));
    assert.ok(restored instanceof LrpSession);
    assert.equal(upper(getCardUidApdu(restored)), t.exchanges[1].capdu);
    assert.equal(upper(parseGetCardUid(hex(t.exchanges[1].rapdu), restored)!), t.uid);
  });

  test('a batch built ahead skips the blocks of an encrypted answer another copy decrypts (padded: one block more than whole ones; none for no data)', () => {
    const s = new LrpSession(randomBytes(16), randomBytes(4), 0, 1);
    const steps = [2, 15, 16, 0].map((length) => {
      const before = s.encCtr;
      s.skipEncrypted(length);
      return s.encCtr - before;
    });
    assert.deepEqual(steps, [1, 1, 2, 0]);
  });

  test('AES: keys, TI and CmdCtr carry over; malformed states are refused', () => {
    const s = new Ev2Session({ encKey: randomBytes(16), macKey: randomBytes(16) }, randomBytes(4), 7);
    const state = sessionState(s);
    assert.equal(state.kind, 'aes');
    const r = restoreSession(JSON.parse(JSON.stringify(state)));
    assert.deepEqual(getCardUidApdu(r), getCardUidApdu(s));
    assert.throws(() => restoreSession({ ...state, ti: 'zz' } as any), TypeError);
    assert.throws(() => restoreSession({ ...state, cmdCtr: 70000 } as any), TypeError);
    assert.throws(() => restoreSession({ ...state, kind: 'des' } as any), TypeError);
    assert.throws(() => restoreSession(null as any), TypeError);
  });
});

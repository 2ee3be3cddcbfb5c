import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import {
  authFinish,
  authPart1Apdu,
  authPart2,
  CardRemovedError,
  changeFileSettingsApdu,
  changeKeyApdu,
  changeKeyResponseMode,
  chipProtocolOf,
  describeStatus,
  EMULATOR_ORIGINALITY_KEY,
  Ev2Session,
  FILES,
  getCardUidApdu,
  getFileCountersApdu,
  getFileSettingsApdu,
  getKeyVersionApdu,
  getTtStatusApdu,
  getVersionApdus,
  isoReadBinaryApdu,
  isoSelectFileApdu,
  isoUpdateBinaryApdu,
  KEY_SLOTS,
  ndefFileContent,
  Ntag424Card,
  parseGetCardUid,
  parseGetFileCounters,
  parseGetFileSettingsResponse,
  parseGetKeyVersion,
  parseGetTtStatus,
  parseGetVersion,
  parseNdefUriFile,
  parseReadSig,
  readDataApdu,
  readSigApdu,
  sdmFileConfig,
  sdmTemplate,
  selectNdefApplicationApdu,
  splitResponse,
  statusOf,
  SW,
  verifyOriginality,
  verifySun424,
  wrapNative,
  writeChunks,
  writeDataApdu,
  type CardProtocol,
} from '../../src/chips/index.js';
import { defaultLayout, readSdmPart } from '../../src/chips/url-layout.js';
import { hex, loadVectors, upper } from './vectors.js';

const v = loadVectors('ntag424_apdu.json');
const auth = Object.fromEntries((v.auth as any[]).map((t) => [t.id, t]));
const sm = Object.fromEntries((v.secure_messaging as any[]).map((t) => [t.id, t]));
const ZERO = Buffer.alloc(16);

/** A random source that hands out the given values in order, then fails loudly. */
function scripted(...values: string[]): (n: number) => Buffer {
  const queue = values.map(hex);
  return (n) => {
    const next = queue.shift();
    if (next === undefined) return randomBytes(n);
    assert.equal(next.length, n, 'scripted random value of the wrong size');
    return next;
  };
}

function send(card: Ntag424Card, apdu: Uint8Array): Buffer {
  return Buffer.from(card.transmit(apdu));
}

function expectSw(card: Ntag424Card, apdu: Uint8Array, sw: number): Buffer {
  const r = send(card, apdu);
  assert.equal(describeStatus(statusOf(r)!), describeStatus(sw));
  return r;
}

/** Host side of AuthenticateEV2First/NonFirst against the card. */
function authenticate(card: Ntag424Card, keyNo: number, key: Uint8Array, running?: Ev2Session): Ev2Session {
  const first = running === undefined;
  const r1 = splitResponse(send(card, authPart1Apdu(keyNo, first)))!;
  assert.equal(describeStatus(r1.sw), describeStatus(SW.additionalFrame));
  const ch = authPart2(key, r1.data);
  const r2 = splitResponse(send(card, ch.capdu))!;
  assert.equal(describeStatus(r2.sw), describeStatus(SW.ok));
  const done = authFinish(key, ch, r2.data, first)!;
  assert.ok(done, 'the card proves it knows the key');
  return first ? new Ev2Session(done, done.ti!, 0) : running!.rekey(done);
}

describe('the card answers the AN12196 traces byte for byte (PICC side)', () => {
  test('AuthenticateEV2First with key 0 (Table 14), WriteData NDEF Full (Table 18), ChangeFileSettings SDM (Table 19), then a SUN tap', () => {
    const t14 = auth['an12196-t14-ev2first-key0'];
    const t18 = sm['an12196-t18-writedata-ndef-full'];
    const t19 = sm['an12196-t19-changefilesettings-full'];
    // The AN12196 chip had its NDEF file in CommMode.Full with write key 0 before Table 18.
    const state = new Ntag424Card({ uid: hex('04958CAA5C5E80') }).serialize();
    state.files[FILES.ndef.no]!.config = { commMode: 'full', access: { read: 0xe, write: 0, readWrite: 0, change: 0 }, sdm: null };
    const card = Ntag424Card.deserialize(state, { random: scripted(t14.rnd_b, t14.ti) });
    assert.equal(upper(send(card, selectNdefApplicationApdu())), '9000');
    assert.equal(upper(send(card, hex(t14.capdu_part1))), t14.rapdu_part1);
    assert.equal(upper(send(card, hex(t14.capdu_part2))), t14.rapdu_part2);
    const s = new Ev2Session({ encKey: hex(t18.k_ses_auth_enc), macKey: hex(t18.k_ses_auth_mac) }, hex(t18.ti), 0);
    const w = writeDataApdu(s, 2, 0, hex(t18.cmd_data), 'full');
    assert.equal(upper(send(card, w)), t18.resp_mact + '9100');
    assert.equal(upper(send(card, hex(t19.capdu))), t19.resp_mact + '9100');
    // Table 19's settings: PICCData under key 2 at 0x20, empty MAC input, SDMMAC under key 1 at 0x43.
    const url = card.tap();
    const m = /^https:\/\/choose\.url\.com\/ntag424\?e=([0-9A-F]{32})&c=([0-9A-F]{16})$/.exec(url);
    assert.ok(m, url);
    const verdict = verifySun424({ crypto: 'aes', sdmMetaReadKey: ZERO, sdmFileReadKey: ZERO, piccData: m[1]!, cmac: m[2]!, macInput: '' });
    assert.deepEqual(verdict, { ok: true, uid: '04958CAA5C5E80', counter: 1, tamper: null, fileData: null });
  });

  test('EV2First key 3 (Table 20), WriteData proprietary (Table 22), EV2NonFirst key 0 (Table 24), ChangeKey key 2 and key 0 (Tables 26, 27)', () => {
    const t20 = auth['an12196-t20-ev2first-key3'];
    const t22 = sm['an12196-t22-writedata-proprietary-full'];
    const t24 = auth['an12196-t24-ev2nonfirst-key0'];
    const t26 = sm['an12196-t26-changekey-case1-key2'];
    const t27 = sm['an12196-t27-changekey-case2-key0'];
    const card = new Ntag424Card({ random: scripted('04958CAA5C5E80'.slice(2), 'CD65935D40', t20.rnd_b, t20.ti, t24.rnd_b) });
    send(card, selectNdefApplicationApdu());
    assert.equal(upper(send(card, hex(t20.capdu_part1))), t20.rapdu_part1);
    assert.equal(upper(send(card, hex(t20.capdu_part2))), t20.rapdu_part2);
    assert.equal(upper(send(card, hex(t22.capdu))), t22.resp_mact + '9100');
    // AN12196 read the file back between Tables 22 and 24 (CmdCtr 1 -> 2).
    const s = new Ev2Session({ encKey: hex(t22.k_ses_auth_enc), macKey: hex(t22.k_ses_auth_mac) }, hex(t22.ti), 1);
    const read = s.checkResponse(send(card, readDataApdu(s, 3, 0, 10, 'full')), 'full');
    assert.equal(upper(read!), t22.cmd_data);
    assert.equal(upper(send(card, hex(t24.capdu_part1))), t24.rapdu_part1);
    assert.equal(upper(send(card, hex(t24.capdu_part2))), t24.rapdu_part2);
    assert.equal(upper(send(card, hex(t26.capdu))), t26.rapdu);
    assert.equal(upper(send(card, hex(t27.capdu))), t27.rapdu);
    // Key 0 changed: the session is over, and the new keys are in force.
    expectSw(card, getCardUidApdu(new Ev2Session({ encKey: ZERO, macKey: ZERO }, hex(t20.ti), 4)), SW.permissionDenied);
    assert.equal(card.keyVersion(0), 1);
    assert.equal(card.keyVersion(2), 1);
    const s0 = authenticateExpectingFailure(card, 0, ZERO);
    assert.equal(s0, SW.authenticationError);
    authenticate(card, 0, hex(t27.new_key));
    authenticate(card, 2, hex(t26.new_key));
  });
});

function authenticateExpectingFailure(card: Ntag424Card, keyNo: number, key: Uint8Array): number {
  const r1 = splitResponse(send(card, authPart1Apdu(keyNo, true)))!;
  const ch = authPart2(key, r1.data);
  return statusOf(send(card, ch.capdu))!;
}

// ---------------------------------------------------------------------------------------------
// A full personalization as the writer will run it, against the card, checked with the verifier.

interface Written {
  card: Ntag424Card;
  url: string;
  keys: Buffer[];
  protocol: CardProtocol;
}

function personalize(card: Ntag424Card, protocol: CardProtocol, url: string): Written {
  const keys = [randomBytes(16), randomBytes(16), randomBytes(16), randomBytes(16), randomBytes(16)];
  assert.equal(upper(send(card, selectNdefApplicationApdu())), '9000');
  const version = parseGetVersion(getVersionApdus().map((a) => send(card, a)))!;
  assert.ok(version);
  assert.equal(chipProtocolOf(version), protocol);
  const sig = parseReadSig(send(card, readSigApdu(null)), null)!;
  assert.ok(verifyOriginality(version.uid, sig, EMULATOR_ORIGINALITY_KEY), 'sandbox originality signature');
  assert.equal(verifyOriginality(version.uid, sig), false, 'not an NXP signature');

  const s = authenticate(card, 0, ZERO);
  assert.deepEqual(parseGetCardUid(send(card, getCardUidApdu(s)), s), version.uid);
  assert.deepEqual(parseReadSig(send(card, readSigApdu(s)), s), sig, 'Read_Sig in a session (Full)');
  if (protocol === 'ntag_424_dna_tag_tamper') {
    assert.deepEqual(parseGetTtStatus(send(card, getTtStatusApdu(s)), s), { permanent: 'C', current: 'C' });
  }
  const t = sdmTemplate(protocol, url);
  // The factory NDEF file is write-free: WriteData is plain, but CmdCtr still counts it.
  for (const c of writeChunks(t.file, 'plain')) assert.ok(s.checkResponse(send(card, writeDataApdu(s, FILES.ndef.no, c.offset, c.data, 'plain')), 'plain'));
  assert.ok(s.checkResponse(send(card, changeFileSettingsApdu(s, FILES.ndef.no, sdmFileConfig(protocol, t))), 'mac'));
  const settings = parseGetFileSettingsResponse(send(card, getFileSettingsApdu(s, FILES.ndef.no)), s)!;
  assert.deepEqual(settings.config, sdmFileConfig(protocol, t));
  for (const keyNo of [1, 2, 3, 4, 0]) {
    const r = send(card, changeKeyApdu(s, keyNo, 0, ZERO, keys[keyNo]!, 1));
    assert.ok(s.checkResponse(r, changeKeyResponseMode(keyNo, 0)), `ChangeKey ${keyNo}: ${upper(r)}`);
  }
  return { card, url, keys, protocol };
}

function verifyTap(w: Written, tapped: string) {
  const layout = defaultLayout(w.protocol);
  assert.ok(tapped.startsWith(w.url + (w.url.includes('?') ? '&' : '?')), tapped);
  const sdm = readSdmPart(layout, tapped, w.url.length + 1)!;
  assert.ok(sdm, tapped);
  return verifySun424({
    crypto: 'aes',
    sdmMetaReadKey: w.keys[KEY_SLOTS.sdmMetaRead]!,
    sdmFileReadKey: w.keys[KEY_SLOTS.sdmFileRead]!,
    piccData: sdm.values.picc_data!,
    ...(sdm.values.enc !== undefined ? { enc: sdm.values.enc } : {}),
    cmac: sdm.values.cmac!,
    macInput: sdm.macInput,
    expectTamper: w.protocol === 'ntag_424_dna_tag_tamper',
  });
}

describe('card vs host: a full personalization, then taps the platform verifier accepts', () => {
  test('NTAG 424 DNA: each tap is genuine with counter + 1; the factory key no longer works', () => {
    const card = new Ntag424Card();
    const w = personalize(card, 'ntag_424_dna', 'https://example.com/t/abc');
    // 17 round trips: select, 3 x GetVersion, Read_Sig, 2 x auth, GetCardUID, Read_Sig, 1 x WriteData, ChangeFileSettings, GetFileSettings, 5 x ChangeKey
    assert.equal(card.log.length, 17);
    const first = verifyTap(w, card.tap());
    assert.equal(first.ok, true);
    assert.equal(first.uid, upper(card.uid));
    assert.equal(first.counter, 1);
    assert.equal(verifyTap(w, card.tap()).counter, 2);
    assert.equal(card.sdmReadCtr, 2);
    card.powerOn();
    send(card, selectNdefApplicationApdu());
    assert.equal(authenticateExpectingFailure(card, 0, ZERO), SW.authenticationError);
    assert.ok(card.isFactoryKeyed === false);
    // With the keys the platform derived, the chip can be written again (a retry's recovery path):
    // the NDEF file now needs key 0 to write, in its CommMode (plain), inside the session.
    const s = authenticate(card, 0, w.keys[0]!);
    assert.deepEqual(parseGetCardUid(send(card, getCardUidApdu(s)), s), card.uid);
    card.powerOn();
    send(card, selectNdefApplicationApdu());
    expectSw(card, writeDataApdu(null, FILES.ndef.no, 0, hex('00'), 'plain'), SW.permissionDenied);
    const s2 = authenticate(card, 0, w.keys[0]!);
    const url2 = 'https://example.com/t/rewritten';
    const t2 = sdmTemplate('ntag_424_dna', url2);
    for (const c of writeChunks(t2.file, 'plain'))
      assert.ok(s2.checkResponse(send(card, writeDataApdu(s2, FILES.ndef.no, c.offset, c.data, 'plain')), 'plain'));
    assert.ok(s2.checkResponse(send(card, changeFileSettingsApdu(s2, FILES.ndef.no, sdmFileConfig('ntag_424_dna', t2))), 'mac'));
    const again = verifyTap({ ...w, url: url2 }, card.tap());
    assert.deepEqual(again.ok && again.counter, 3);
  });

  test('the NDEF file can also be written before authenticating, while it is write-free (the order docs/chips.md recommends)', () => {
    const card = new Ntag424Card();
    send(card, selectNdefApplicationApdu());
    const t = sdmTemplate('ntag_424_dna', 'https://early.example/');
    for (const c of writeChunks(t.file, 'plain')) expectSw(card, writeDataApdu(null, FILES.ndef.no, c.offset, c.data, 'plain'), SW.ok);
    const s = authenticate(card, 0, ZERO);
    assert.ok(s.checkResponse(send(card, changeFileSettingsApdu(s, FILES.ndef.no, sdmFileConfig('ntag_424_dna', t))), 'mac'));
    const keys = [0, 1, 2, 3, 4].map(() => randomBytes(16));
    for (const keyNo of [1, 2, 3, 4, 0])
      assert.ok(s.checkResponse(send(card, changeKeyApdu(s, keyNo, 0, ZERO, keys[keyNo]!, 1)), changeKeyResponseMode(keyNo, 0)));
    assert.equal(verifyTap({ card, url: 'https://early.example/', keys, protocol: 'ntag_424_dna' }, card.tap()).ok, true);
  });

  test('NTAG 424 DNA TagTamper with a url that already has a query: status closed, then open after tamper', () => {
    const card = new Ntag424Card({ protocol: 'ntag_424_dna_tag_tamper' });
    const w = personalize(card, 'ntag_424_dna_tag_tamper', 'https://shop.example/p?id=7&cmac=x');
    const url = card.tap();
    assert.match(url, /^https:\/\/shop\.example\/p\?id=7&cmac=x&picc_data=[0-9A-F]{32}&enc=[0-9A-F]{32}&cmac=[0-9A-F]{16}$/);
    const v1 = verifyTap(w, url);
    assert.equal(v1.ok, true);
    assert.deepEqual(v1.ok && v1.tamper, { permanent: 'closed', current: 'closed' });
    card.tamper('open');
    const v2 = verifyTap(w, card.tap());
    assert.deepEqual(v2.ok && v2.tamper, { permanent: 'open', current: 'open' });
    card.tamper('closed');
    const v3 = verifyTap(w, card.tap());
    assert.deepEqual(v3.ok && [v3.tamper, v3.counter], [{ permanent: 'open', current: 'closed' }, 3]);
  });

  test('a blank chip has nothing to open; a chip whose NDEF file needs a key cannot be read by a phone', () => {
    assert.throws(() => new Ntag424Card().tap(), /no URI record/);
    const state = new Ntag424Card().serialize();
    state.files['2']!.data = ndefFileContent('https://x.example/').toString('hex').padEnd(512, '0');
    assert.equal(Ntag424Card.deserialize(state).tap(), 'https://x.example/', 'no SDM: the static URL');
    state.files['2']!.config.access.read = 0;
    state.files['2']!.config.access.readWrite = 0;
    assert.throws(() => Ntag424Card.deserialize(state).tap(), /needs a key/);
  });

  test('a phone reading through ISO commands gets the same SUN file, counted once per activation', () => {
    const card = new Ntag424Card();
    const w = personalize(card, 'ntag_424_dna', 'http://www.example.org/x');
    card.powerOn();
    expectSw(card, selectNdefApplicationApdu(), 0x9000);
    expectSw(card, isoSelectFileApdu(FILES.cc.id), 0x9000);
    assert.equal(upper(send(card, isoReadBinaryApdu(0, 15))).slice(0, 8), '00172001');
    expectSw(card, isoSelectFileApdu(FILES.ndef.id), 0x9000);
    const head = splitResponse(send(card, isoReadBinaryApdu(0, 2)))!.data;
    const len = head.readUInt16BE(0);
    const body = splitResponse(send(card, isoReadBinaryApdu(2, len)))!.data;
    const uri = parseNdefUriFile(Buffer.concat([head, body]))!;
    assert.equal(verifyTap(w, uri).ok, true);
    assert.equal(card.sdmReadCtr, 1, 'chunked reads in one activation count once');
    // The write is locked to key 0 now; ISOUpdateBinary without it is refused.
    expectSw(card, isoUpdateBinaryApdu(0, hex('0000')), 0x6982);
  });

  test('the 24-bit SDM counter: the last value is served once, then the chip refuses SDM reads', () => {
    const card = new Ntag424Card();
    const w = personalize(card, 'ntag_424_dna', 'https://ctr.example/');
    const state = card.serialize();
    state.sdmReadCtr = 0xfffffe;
    const old = Ntag424Card.deserialize(state);
    const last = verifyTap({ ...w, card: old }, old.tap());
    assert.deepEqual(last.ok && last.counter, 0xffffff);
    assert.throws(() => old.tap(), /counter exhausted/);
    assert.throws(() => Ntag424Card.deserialize({ ...state, sdmReadCtr: 0x1000000 }), /counter/);
  });

  test('the card state survives serialize/deserialize (JSON): keys, files, counter, tamper', () => {
    const card = new Ntag424Card({ protocol: 'ntag_424_dna_tag_tamper' });
    const w = personalize(card, 'ntag_424_dna_tag_tamper', 'https://a.example/');
    card.tap();
    card.tamper('open');
    const copy = Ntag424Card.deserialize(JSON.parse(JSON.stringify(card.serialize())));
    const v2 = verifyTap({ ...w, card: copy }, copy.tap());
    assert.deepEqual(v2.ok && [v2.counter, v2.tamper], [2, { permanent: 'open', current: 'open' }]);
    assert.throws(() => Ntag424Card.deserialize({ ...copy.serialize(), uid: 'zz' } as any), TypeError);
    assert.throws(() => Ntag424Card.deserialize({ format: 'other' } as any), TypeError);
    const state = copy.serialize();
    assert.throws(() => Ntag424Card.deserialize({ ...state, keyVersions: [1, 1, 1] }), /key versions/);
    assert.throws(() => Ntag424Card.deserialize({ ...state, tamper: null }), /tamper/);
    assert.throws(() => Ntag424Card.deserialize({ ...state, protocol: 'ntag_424_dna' }), /tamper/);
    const badSdm = structuredClone(state);
    badSdm.files['2']!.config.sdm!.macOffset = 250;
    assert.throws(() => Ntag424Card.deserialize(badSdm), /file 2 settings/);
    const badAccess = structuredClone(state);
    badAccess.files['1']!.config.access.read = 9;
    assert.throws(() => Ntag424Card.deserialize(badAccess), /file 1 settings/);
  });
});

describe('status words for wrong MACs, keys, lengths, sequence and permissions', () => {
  function fresh(protocol: CardProtocol = 'ntag_424_dna') {
    const card = new Ntag424Card({ protocol });
    send(card, selectNdefApplicationApdu());
    return card;
  }

  test('a wrong key fails part 2 with AUTHENTICATION_ERROR and leaves no session', () => {
    const card = fresh();
    assert.equal(authenticateExpectingFailure(card, 0, Buffer.alloc(16, 1)), SW.authenticationError);
    expectSw(card, getCardUidApdu(new Ev2Session({ encKey: ZERO, macKey: ZERO }, hex('00000000'))), SW.permissionDenied);
  });

  test('a flipped MAC bit is an INTEGRITY_ERROR and ends the session', () => {
    const card = fresh();
    const s = authenticate(card, 0, ZERO);
    const apdu = getCardUidApdu(s);
    apdu[apdu.length - 2] = apdu[apdu.length - 2]! ^ 1;
    expectSw(card, apdu, SW.integrityError);
    expectSw(card, getCardUidApdu(s), SW.permissionDenied);
  });

  test('a replayed command (old CmdCtr) fails its MAC', () => {
    const card = fresh();
    const s = authenticate(card, 0, ZERO);
    const apdu = getCardUidApdu(s);
    assert.ok(s.checkResponse(send(card, apdu), 'full'));
    expectSw(card, apdu, SW.integrityError);
  });

  test('ChangeKey with a wrong old key fails the CRC (INTEGRITY_ERROR); key numbers past 4 do not exist', () => {
    const card = fresh();
    const s = authenticate(card, 0, ZERO);
    expectSw(card, changeKeyApdu(s, 1, 0, Buffer.alloc(16, 9), randomBytes(16), 1), SW.integrityError);
    assert.equal(card.keyVersion(1), 0);
    const s2 = authenticate(card, 0, ZERO);
    const bad = s2.commandApdu(0xc4, hex('05'), Buffer.alloc(21), 'full');
    expectSw(card, bad, SW.noSuchKey);
    expectSw(card, wrapNative(0x71, hex('0500')), SW.noSuchKey);
  });

  test('ChangeKey in a session of another key is PERMISSION_DENIED', () => {
    const card = fresh();
    const s = authenticate(card, 1, ZERO);
    expectSw(card, changeKeyApdu(s, 1, 1, ZERO, randomBytes(16), 1), SW.permissionDenied);
  });

  test('wrong lengths: auth part 1 and 2, Read_Sig, WriteData length field', () => {
    const card = fresh();
    expectSw(card, wrapNative(0x71, hex('00')), SW.lengthError);
    expectSw(card, authPart1Apdu(0, true), SW.additionalFrame);
    expectSw(card, wrapNative(0xaf, Buffer.alloc(31)), SW.lengthError);
    expectSw(card, wrapNative(0x3c, hex('0000')), SW.lengthError);
    expectSw(card, wrapNative(0x8d, hex('02000000050000AABB')), SW.lengthError);
    expectSw(card, hex('908D0000'), SW.lengthError);
    expectSw(card, hex('908D00000502'), SW.lengthError);
  });

  test('commands out of sequence: AF with nothing pending, another command during an exchange', () => {
    const card = fresh();
    expectSw(card, wrapNative(0xaf), SW.commandAborted);
    expectSw(card, authPart1Apdu(0, true), SW.additionalFrame);
    expectSw(card, getVersionApdus()[0]!, SW.commandAborted);
    expectSw(card, wrapNative(0xaf, Buffer.alloc(32)), SW.commandAborted);
    expectSw(card, authPart1Apdu(0, false), SW.permissionDenied);
  });

  test('GetCardUID and ChangeKey need a session; GetTTStatus exists only on TagTamper chips', () => {
    const card = fresh();
    expectSw(card, wrapNative(0x51), SW.permissionDenied);
    const s = authenticate(card, 0, ZERO);
    expectSw(card, getTtStatusApdu(s), SW.illegalCommand);
    expectSw(card, wrapNative(0x99), SW.illegalCommand);
    expectSw(card, hex('80CA000000'), 0x6e00);
    expectSw(card, hex('9060010000'), SW.parameterError);
  });

  test('WriteData past the end of the file is a BOUNDARY_ERROR; unknown files are FILE_NOT_FOUND', () => {
    const card = fresh();
    expectSw(card, writeDataApdu(null, 2, 255, hex('AABB'), 'plain'), SW.boundaryError);
    expectSw(card, writeDataApdu(null, 7, 0, hex('AA'), 'plain'), SW.fileNotFound);
    expectSw(card, writeDataApdu(null, 3, 0, hex('AA'), 'plain'), SW.permissionDenied);
  });

  test('ChangeFileSettings with illegal SDM settings is a PARAMETER_ERROR; TT mirroring needs a TT chip', () => {
    const card = fresh();
    const s = authenticate(card, 0, ZERO);
    const t = sdmTemplate('ntag_424_dna', 'https://x.example/');
    const cfg = sdmFileConfig('ntag_424_dna', t);
    expectSw(card, changeFileSettingsApdu(s, 2, { ...cfg, sdm: { ...cfg.sdm!, macOffset: 250 } }), SW.parameterError);
    const s2 = authenticate(card, 0, ZERO);
    const tt = sdmFileConfig('ntag_424_dna_tag_tamper', sdmTemplate('ntag_424_dna_tag_tamper', 'https://x.example/'));
    expectSw(card, changeFileSettingsApdu(s2, 2, tt), SW.parameterError);
    const s3 = authenticate(card, 0, ZERO);
    expectSw(card, changeFileSettingsApdu(s3, 1, cfg), SW.parameterError);
    const s4 = authenticate(card, 1, ZERO);
    expectSw(card, changeFileSettingsApdu(s4, 2, cfg), SW.permissionDenied);
  });

  test('ISO commands: unknown file, nothing selected, wrong DF name', () => {
    const card = new Ntag424Card();
    expectSw(card, isoSelectFileApdu(FILES.ndef.id), 0x6a82);
    expectSw(card, hex('00A4040C07D276000085010200'), 0x6a82);
    expectSw(card, isoReadBinaryApdu(0, 2), 0x6985);
    expectSw(card, authPart1Apdu(0, true), SW.permissionDenied);
    send(card, selectNdefApplicationApdu());
    expectSw(card, isoSelectFileApdu(0xe1ff), 0x6a82);
    expectSw(card, isoSelectFileApdu(FILES.ndef.id), 0x9000);
    expectSw(card, isoReadBinaryApdu(300, 2), 0x6b00);
  });
});

describe('key versions and non-factory keys', () => {
  test('GetKeyVersion outside a session tells factory keys (0) from written ones; a chip made with other keys refuses the factory key', () => {
    const keys = [0, 1, 2, 3, 4].map(() => randomBytes(16));
    const card = new Ntag424Card({ keys, keyVersions: [1, 1, 1, 1, 1] });
    send(card, selectNdefApplicationApdu());
    assert.equal(parseGetKeyVersion(send(card, getKeyVersionApdu(null, 0)), null), 1);
    assert.equal(parseGetKeyVersion(send(card, getKeyVersionApdu(null, 5)), null), null);
    assert.equal(authenticateExpectingFailure(card, 0, ZERO), SW.authenticationError);
    const s = authenticate(card, 0, keys[0]!);
    assert.equal(parseGetKeyVersion(send(card, getKeyVersionApdu(s, 3)), s), 1);
    const blank = new Ntag424Card();
    send(blank, selectNdefApplicationApdu());
    assert.equal(parseGetKeyVersion(send(blank, getKeyVersionApdu(null, 0)), null), 0);
    assert.throws(() => new Ntag424Card({ keys: [ZERO] }), TypeError);
  });
});

describe('originality', () => {
  test('a card given a real chip UID and NXP signature (AN12196 Table 30) passes the production check', () => {
    const t = v.originality_signature.vectors[0];
    const card = new Ntag424Card({ uid: hex(t.uid), signature: hex(t.sig) });
    card.transmit(selectNdefApplicationApdu());
    const sig = parseReadSig(card.transmit(readSigApdu(null)), null)!;
    assert.equal(upper(sig), t.sig);
    assert.equal(verifyOriginality(card.uid, sig), true);
    assert.throws(() => new Ntag424Card({ signature: Buffer.alloc(55) }), TypeError);
  });

  test('a card made with another signing key is not genuine for the sandbox key (nor for NXP)', () => {
    const card = new Ntag424Card({ originalityKey: Buffer.from('00112233445566778899AABBCCDDEEFF00112233445566778899AABB', 'hex') });
    card.transmit(selectNdefApplicationApdu());
    const sig = parseReadSig(card.transmit(readSigApdu(null)), null)!;
    assert.equal(sig.length, 56);
    assert.equal(verifyOriginality(card.uid, sig, EMULATOR_ORIGINALITY_KEY), false);
    assert.equal(verifyOriginality(card.uid, sig), false);
  });
});

describe('fault injection for writer tests', () => {
  test('remove: the command never reaches the card; the card is gone until it is presented again', () => {
    const card = new Ntag424Card();
    card.injectFault({ kind: 'remove', ins: 0x71 });
    send(card, selectNdefApplicationApdu());
    assert.throws(() => card.transmit(authPart1Apdu(0, true)), CardRemovedError);
    assert.equal(card.present, false);
    assert.throws(() => card.transmit(selectNdefApplicationApdu()), CardRemovedError);
    card.powerOn();
    send(card, selectNdefApplicationApdu());
    authenticate(card, 0, ZERO);
  });

  test('drop: the command executes but the answer is lost (ChangeKey applied, host never knows)', () => {
    const card = new Ntag424Card();
    send(card, selectNdefApplicationApdu());
    const s = authenticate(card, 0, ZERO);
    const newKey = randomBytes(16);
    card.injectFault({ kind: 'drop', ins: 0xc4, skip: 1 });
    assert.ok(s.checkResponse(send(card, changeKeyApdu(s, 1, 0, ZERO, randomBytes(16), 1)), 'mac'));
    assert.throws(() => card.transmit(changeKeyApdu(s, 0, 0, ZERO, newKey, 1)), CardRemovedError);
    card.powerOn();
    send(card, selectNdefApplicationApdu());
    assert.equal(authenticateExpectingFailure(card, 0, ZERO), SW.authenticationError);
    authenticate(card, 0, newKey);
  });

  test('status: the card answers a chosen status word without executing', () => {
    const card = new Ntag424Card();
    card.injectFault({ kind: 'status', ins: 0x3c, sw: SW.memoryError });
    send(card, selectNdefApplicationApdu());
    expectSw(card, readSigApdu(null), SW.memoryError);
    assert.equal(parseReadSig(send(card, readSigApdu(null)), null)!.length, 56);
  });

  test('tear: a write stores only its first half, then the card leaves', () => {
    const card = new Ntag424Card();
    send(card, selectNdefApplicationApdu());
    const file = ndefFileContent('https://example.com/teardown');
    card.injectFault({ kind: 'tear', ins: 0x8d });
    assert.throws(() => card.transmit(writeDataApdu(null, 2, 0, file, 'plain')), CardRemovedError);
    card.powerOn();
    send(card, selectNdefApplicationApdu());
    const r = splitResponse(send(card, readDataApdu(null, 2, 0, file.length, 'plain')))!;
    assert.deepEqual(r.data.subarray(0, file.length >> 1), file.subarray(0, file.length >> 1));
    assert.ok(r.data.subarray(file.length >> 1).every((b) => b === 0));
    assert.equal(card.log.length, 4);
  });
});

describe('GetFileCounters (SDMCtrRet)', () => {
  test('free SDMCtrRet serves the counter in plain; a key needs its session (Full); without SDM it is refused', () => {
    const card = new Ntag424Card();
    send(card, selectNdefApplicationApdu());
    expectSw(card, getFileCountersApdu(null, 2), SW.permissionDenied);
    const s = authenticate(card, 0, ZERO);
    const t = sdmTemplate('ntag_424_dna', 'https://ctr.example/');
    const cfg = sdmFileConfig('ntag_424_dna', t);
    assert.ok(s.checkResponse(send(card, writeDataApdu(s, 2, 0, t.file, 'plain')), 'plain'));
    assert.ok(s.checkResponse(send(card, changeFileSettingsApdu(s, 2, { ...cfg, sdm: { ...cfg.sdm!, ctrRet: 0xe } })), 'mac'));
    card.tap();
    card.tap();
    send(card, selectNdefApplicationApdu());
    assert.equal(parseGetFileCounters(send(card, getFileCountersApdu(null, 2)), null), 2);
    const s2 = authenticate(card, 0, ZERO);
    assert.ok(s2.checkResponse(send(card, changeFileSettingsApdu(s2, 2, { ...cfg, sdm: { ...cfg.sdm!, ctrRet: 3 } })), 'mac'));
    expectSw(card, getFileCountersApdu(null, 2), SW.permissionDenied);
    const s3 = authenticate(card, 3, ZERO);
    assert.equal(parseGetFileCounters(send(card, getFileCountersApdu(s3, 2)), s3), 2);
    const s4 = authenticate(card, 3, ZERO);
    expectSw(card, getFileCountersApdu(s4, 3), SW.permissionDenied);
  });
});

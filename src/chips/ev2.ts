// NTAG 424 DNA AES authentication (AuthenticateEV2First / AuthenticateEV2NonFirst) and EV2 secure
// messaging (CommMode.MAC / CommMode.Full), for the chip writer (docs/decisions.md §4: the platform keeps the
// keys and computes the APDUs; the writer only relays them). References: NT4H2421Gx data sheet
// sections 9.1.5-9.1.10 (authentication, session keys, MAC and encryption), 10.6.1 (ChangeKey);
// AN12196 sections 5 and 6 (worked traces). All encryption here is AES-128-CBC without implicit
// padding; padding (ISO/IEC 9797-1 method 2) is explicit.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { aesCbcDecrypt, aesCbcEncrypt, AesEcb } from './aes.js';
import { aesCmacOnce, macT } from './cmac.js';
import { crc32nk } from './crc32.js';
import { Lrp, padM2, unpadM2 } from './lrp.js';
import { splitResponse, SW_OK, wrapNative } from './apdu.js';

const ZERO_IV = Buffer.alloc(16);

export type CommMode = 'plain' | 'mac' | 'full';

function rotl1(b: Uint8Array): Buffer {
  return Buffer.concat([b.subarray(1), b.subarray(0, 1)]);
}

// ---------------------------------------------------------------------------------------------
// Authentication

/** Part 1 C-APDU: AuthenticateEV2First (71h, with LenCap 00) or AuthenticateEV2NonFirst (77h). */
export function authPart1Apdu(keyNo: number, first: boolean): Buffer {
  if (!Number.isInteger(keyNo) || keyNo < 0 || keyNo > 4) throw new RangeError('NTAG 424 DNA key numbers are 0..4');
  return first ? wrapNative(0x71, Buffer.from([keyNo, 0x00])) : wrapNative(0x77, Buffer.from([keyNo]));
}

/**
 * Session vectors (NT4H2421Gx 9.1.7): SV = A5 5A | 5A A5, 00 01 00 80, RndA[15..14],
 * RndA[13..8] XOR RndB[15..10], RndB[9..0], RndA[7..0], with byte 15 the first one sent.
 */
export function ev2SessionVectors(rndA: Uint8Array, rndB: Uint8Array): { sv1: Buffer; sv2: Buffer } {
  if (rndA.length !== 16 || rndB.length !== 16) throw new TypeError('RndA and RndB are 16 bytes');
  const sv1 = Buffer.alloc(32);
  sv1.set([0xa5, 0x5a, 0x00, 0x01, 0x00, 0x80], 0);
  sv1.set(rndA.subarray(0, 2), 6);
  for (let i = 0; i < 6; i++) sv1[8 + i] = rndA[2 + i]! ^ rndB[i]!;
  sv1.set(rndB.subarray(6, 16), 14);
  sv1.set(rndA.subarray(8, 16), 24);
  const sv2 = Buffer.from(sv1);
  sv2[0] = 0x5a;
  sv2[1] = 0xa5;
  return { sv1, sv2 };
}

export interface Ev2Keys {
  encKey: Buffer;
  macKey: Buffer;
}

/** KSesAuthENC = CMAC(Kx, SV1), KSesAuthMAC = CMAC(Kx, SV2). */
export function ev2SessionKeys(key: Uint8Array, rndA: Uint8Array, rndB: Uint8Array): Ev2Keys {
  const { sv1, sv2 } = ev2SessionVectors(rndA, rndB);
  const cipher = new AesEcb(key);
  return { encKey: aesCmacOnce(cipher, sv1), macKey: aesCmacOnce(cipher, sv2) };
}

/** What the PCD holds between the two parts of an authentication. */
export interface AuthChallenge {
  capdu: Buffer;
  rndA: Buffer;
  rndB: Buffer;
}

/**
 * Part 2 C-APDU from the part 1 response data E(Kx, RndB): AF || E(Kx, RndA || RndB<<<8).
 * `rndA` is injectable for reproducible traces; by default it is 16 fresh random bytes.
 */
export function authPart2(key: Uint8Array, part1Data: Uint8Array, rndA: Uint8Array = randomBytes(16)): AuthChallenge {
  if (part1Data.length !== 16) throw new TypeError('part 1 response data must be E(Kx, RndB), 16 bytes');
  const rndB = aesCbcDecrypt(key, ZERO_IV, part1Data);
  const enc = aesCbcEncrypt(key, ZERO_IV, Buffer.concat([rndA, rotl1(rndB)]));
  return { capdu: wrapNative(0xaf, enc), rndA: Buffer.from(rndA), rndB };
}

/** A completed authentication; TI and capabilities only come with EV2First. */
export interface Ev2Authenticated extends Ev2Keys {
  ti: Buffer | null;
  pdCap2: Buffer | null;
  pcdCap2: Buffer | null;
}

/**
 * Checks the part 2 response (RndA<<<8 proves the PICC knows the key) and derives the session.
 * First: E(Kx, TI || RndA' || PDcap2 || PCDcap2), 32 bytes. NonFirst: E(Kx, RndA'), 16 bytes, and the
 * caller keeps TI and CmdCtr of the running session. Null when the PICC's proof does not match.
 */
export function authFinish(key: Uint8Array, challenge: AuthChallenge, part2Data: Uint8Array, first: boolean): Ev2Authenticated | null {
  if (part2Data.length !== (first ? 32 : 16)) return null;
  const plain = aesCbcDecrypt(key, ZERO_IV, part2Data);
  const rndAPrime = first ? plain.subarray(4, 20) : plain;
  const expected = rotl1(challenge.rndA);
  if (!timingSafeEqual(expected, rndAPrime)) return null;
  const keys = ev2SessionKeys(key, challenge.rndA, challenge.rndB);
  return first
    ? { ...keys, ti: plain.subarray(0, 4), pdCap2: plain.subarray(20, 26), pcdCap2: plain.subarray(26, 32) }
    : { ...keys, ti: null, pdCap2: null, pcdCap2: null };
}

// ---------------------------------------------------------------------------------------------
// Secure messaging

/**
 * An authenticated EV2 session: TI, CmdCtr and the two session keys. CmdCtr counts command/response
 * pairs and advances when a response has been checked (NT4H2421Gx 9.1.2).
 */
export class Ev2Session {
  readonly ti: Buffer;
  readonly encKey: Buffer;
  readonly macKey: Buffer;
  cmdCtr: number;
  // Session keys live for one session: own ciphers, not entries in the shared cache.
  readonly #mac: AesEcb;
  readonly #enc: AesEcb;

  constructor(keys: Ev2Keys, ti: Uint8Array, cmdCtr = 0) {
    if (ti.length !== 4) throw new TypeError('TI is 4 bytes');
    this.encKey = Buffer.from(keys.encKey);
    this.macKey = Buffer.from(keys.macKey);
    this.ti = Buffer.from(ti);
    this.cmdCtr = cmdCtr;
    this.#mac = new AesEcb(this.macKey);
    this.#enc = new AesEcb(this.encKey);
  }

  /** After AuthenticateEV2NonFirst: new keys, same TI and CmdCtr. */
  rekey(keys: Ev2Keys): Ev2Session {
    return new Ev2Session(keys, this.ti, this.cmdCtr);
  }

  #ctr(offset: number): Buffer {
    const b = Buffer.alloc(2);
    b.writeUInt16LE((this.cmdCtr + offset) & 0xffff, 0);
    return b;
  }

  /** IV for command data: E(KSesAuthENC, A5 5A || TI || CmdCtr || 0^8) (9.1.10). */
  commandIv(): Buffer {
    return this.#enc.encrypt(Buffer.concat([Buffer.from([0xa5, 0x5a]), this.ti, this.#ctr(0), Buffer.alloc(8)]));
  }

  /** IV for response data: E(KSesAuthENC, 5A A5 || TI || CmdCtr+1 || 0^8). */
  responseIv(): Buffer {
    return this.#enc.encrypt(Buffer.concat([Buffer.from([0x5a, 0xa5]), this.ti, this.#ctr(1), Buffer.alloc(8)]));
  }

  /** CommMode.Full command data: padded (method 2, always) and CBC-encrypted under IVc. */
  encryptCommandData(data: Uint8Array): Buffer {
    return aesCbcEncrypt(this.encKey, this.commandIv(), padM2(data));
  }

  /** MAC input of a command: Cmd || CmdCtr || TI || CmdHeader || (encrypted) CmdData. */
  commandMacInput(cmd: number, header: Uint8Array, data: Uint8Array): Buffer {
    return Buffer.concat([Buffer.from([cmd]), this.#ctr(0), this.ti, header, data]);
  }

  /** The full 16-byte MAC under KSesAuthMAC (AES-CMAC here, CMAC_LRP in an LRP session). */
  fullMac(input: Uint8Array): Buffer {
    return aesCmacOnce(this.#mac, input);
  }

  /** MACt of a command: what follows the (encrypted) data in the C-APDU. */
  commandMac(cmd: number, header: Uint8Array, body: Uint8Array): Buffer {
    return macT(this.fullMac(this.commandMacInput(cmd, header, body)));
  }

  /** MACt of a response (RC 00 for 9100). */
  responseMac(rc: number, body: Uint8Array): Buffer {
    return macT(this.fullMac(this.responseMacInput(rc, body)));
  }

  /** PICC side of CommMode.Full: decrypts command data and removes the padding (null when malformed). */
  decryptCommandData(enc: Uint8Array): Buffer | null {
    if (enc.length === 0 || enc.length % 16 !== 0) return null;
    return unpadM2(aesCbcDecrypt(this.encKey, this.commandIv(), enc));
  }

  /** PICC side of CommMode.Full: pads and encrypts response data under IVr. */
  encryptResponseData(data: Uint8Array): Buffer {
    return aesCbcEncrypt(this.encKey, this.responseIv(), padM2(data));
  }

  /** PCD side: decrypts CommMode.Full response data and removes the padding (null when malformed). */
  decryptResponseData(enc: Uint8Array): Buffer | null {
    if (enc.length === 0 || enc.length % 16 !== 0) return null;
    return unpadM2(aesCbcDecrypt(this.encKey, this.responseIv(), enc));
  }

  /** The C-APDU of a command in the given mode. Does not advance CmdCtr (see checkResponse). */
  commandApdu(cmd: number, header: Uint8Array, data: Uint8Array, mode: CommMode): Buffer {
    if (mode === 'plain') return wrapNative(cmd, Buffer.concat([header, data]));
    const body = mode === 'full' && data.length > 0 ? this.encryptCommandData(data) : Buffer.from(data);
    return wrapNative(cmd, Buffer.concat([header, body, this.commandMac(cmd, header, body)]));
  }

  /** MAC input of a response: RC || CmdCtr+1 || TI || (encrypted) RespData. */
  responseMacInput(rc: number, data: Uint8Array): Buffer {
    return Buffer.concat([Buffer.from([rc]), this.#ctr(1), this.ti, data]);
  }

  /**
   * Checks a response and advances CmdCtr. MAC and Full responses end with MACt over RC (00 for
   * 9100), CmdCtr+1, TI and the data; Full response data is decrypted under IVr and unpadded.
   * Null when the status is not 9100 or the MAC or padding is wrong.
   */
  checkResponse(rapdu: Uint8Array, mode: CommMode): Buffer | null {
    const r = splitResponse(rapdu);
    if (r === null || r.sw !== SW_OK) return null;
    let data = r.data;
    if (mode !== 'plain') {
      if (data.length < 8) return null;
      const body = data.subarray(0, data.length - 8);
      const mac = data.subarray(data.length - 8);
      if (!timingSafeEqual(this.responseMac(0x00, body), mac)) return null;
      data = body;
      if (mode === 'full' && body.length > 0) {
        const plain = this.decryptResponseData(body);
        if (plain === null) return null;
        data = plain;
      }
    }
    this.cmdCtr = (this.cmdCtr + 1) & 0xffff;
    return data;
  }
}

/**
 * ChangeKey (C4h) command data before encryption (NT4H2421Gx 10.6.1): for a key other than the
 * authenticated one, (OldKey XOR NewKey) || KeyVer || CRC32NK(NewKey); for the authenticated key
 * itself, NewKey || KeyVer; that session then ends and the response (9100) carries no MAC, so check
 * it with mode 'plain'.
 */
export function changeKeyData(keyNo: number, authKeyNo: number, oldKey: Uint8Array, newKey: Uint8Array, keyVersion: number): Buffer {
  if (newKey.length !== 16 || oldKey.length !== 16) throw new TypeError('keys are 16 bytes');
  const ver = Buffer.from([keyVersion & 0xff]);
  if (keyNo === authKeyNo) return Buffer.concat([newKey, ver]);
  const x = Buffer.allocUnsafe(16);
  for (let i = 0; i < 16; i++) x[i] = oldKey[i]! ^ newKey[i]!;
  return Buffer.concat([x, ver, crc32nk(newKey)]);
}

// ---------------------------------------------------------------------------------------------
// LRP mode (NT4H2421Gx 9.2.2 AuthenticateLRPFirst/NonFirst, 9.2.4 LRP secure messaging; AN12304):
// for a chip switched to LRP with SetConfiguration. The MAC input and command/response framing are
// the same as in AES mode; the MAC is CMAC_LRP under updated key 0 of the session master key, and
// encryption is LRICB under its updated key 1 with one 4-byte counter (EncCtr) shared by commands
// and responses, no IV.

/** LRP PCDCap2.1 bit asking the PICC for LRP. */
const PCD_CAP_LRP = 0x02;

/** Part 1 C-APDU: AuthenticateLRPFirst (71h, LenCap 01, PCDCap2.1 = 02) or AuthenticateLRPNonFirst (77h). */
export function lrpAuthPart1Apdu(keyNo: number, first: boolean): Buffer {
  if (!Number.isInteger(keyNo) || keyNo < 0 || keyNo > 4) throw new RangeError('NTAG 424 DNA key numbers are 0..4');
  return first ? wrapNative(0x71, Buffer.from([keyNo, 0x01, PCD_CAP_LRP])) : wrapNative(0x77, Buffer.from([keyNo]));
}

/**
 * LRP session vector: 00 01 00 80 || RndA[15..14] || RndA[13..8] XOR RndB[15..10] || RndB[9..0] ||
 * RndA[7..0] || 96 69 (byte 15 first, as for AES).
 */
export function lrpSessionVector(rndA: Uint8Array, rndB: Uint8Array): Buffer {
  if (rndA.length !== 16 || rndB.length !== 16) throw new TypeError('RndA and RndB are 16 bytes');
  const sv = Buffer.alloc(32);
  sv.set([0x00, 0x01, 0x00, 0x80], 0);
  sv.set(rndA.subarray(0, 2), 4);
  for (let i = 0; i < 6; i++) sv[6 + i] = rndA[2 + i]! ^ rndB[i]!;
  sv.set(rndB.subarray(6, 16), 12);
  sv.set(rndA.subarray(8, 16), 22);
  sv[30] = 0x96;
  sv[31] = 0x69;
  return sv;
}

/** KSesAuthMaster = CMAC_LRP(Kx, SV). */
export function lrpSessionMaster(key: Uint8Array, sv: Uint8Array): Buffer {
  return new Lrp(key).cmac(sv, 0);
}

export interface LrpChallenge {
  capdu: Buffer;
  rndA: Buffer;
  rndB: Buffer;
  master: Buffer;
}

/**
 * Part 2 C-APDU from the part 1 response data (AuthMode 01 || RndB, in clear): AF || RndA ||
 * PCDResp, PCDResp = CMAC_LRP(KSesAuthMAC, RndA || RndB). Null when the PICC did not answer in LRP.
 */
export function lrpAuthPart2(key: Uint8Array, part1Data: Uint8Array, rndA: Uint8Array = randomBytes(16)): LrpChallenge | null {
  if (part1Data.length !== 17 || part1Data[0] !== 0x01) return null;
  const rndB = Buffer.from(part1Data.subarray(1));
  const master = lrpSessionMaster(key, lrpSessionVector(rndA, rndB));
  const pcdResp = new Lrp(master).cmac(Buffer.concat([rndA, rndB]), 0);
  return { capdu: wrapNative(0xaf, Buffer.concat([rndA, pcdResp])), rndA: Buffer.from(rndA), rndB, master };
}

/**
 * Checks the PICC's part 2 answer and opens the LRP session. First: PICCData (E(TI || PDcap2 ||
 * PCDcap2), EncCtr 0) || PICCResp = CMAC_LRP(RndB || RndA || PICCData); the session starts with
 * EncCtr 1. NonFirst: PICCResp = CMAC_LRP(RndB || RndA) only; rekey the running session with
 * `running.rekeyLrp(master)`. Null when the PICC's proof does not match.
 */
export function lrpAuthFinish(challenge: LrpChallenge, part2Data: Uint8Array, first: boolean): { master: Buffer; ti: Buffer | null; pdCap2: Buffer | null; pcdCap2: Buffer | null } | null {
  if (part2Data.length !== (first ? 32 : 16)) return null;
  const lrp = new Lrp(challenge.master);
  const piccData = first ? part2Data.subarray(0, 16) : Buffer.alloc(0);
  const piccResp = part2Data.subarray(first ? 16 : 0);
  const expected = lrp.cmac(Buffer.concat([challenge.rndB, challenge.rndA, piccData]), 0);
  if (!timingSafeEqual(expected, piccResp)) return null;
  if (!first) return { master: challenge.master, ti: null, pdCap2: null, pcdCap2: null };
  const plain = lrp.decrypt(1, Buffer.alloc(4), piccData, false).plaintext!;
  return { master: challenge.master, ti: plain.subarray(0, 4), pdCap2: plain.subarray(4, 10), pcdCap2: plain.subarray(10, 16) };
}

/** An authenticated LRP session: same framing and CmdCtr as Ev2Session, LRP cryptography. */
export class LrpSession extends Ev2Session {
  readonly master: Buffer;
  /** LRICB counter (4 bytes, big endian), shared by command and response encryption. */
  encCtr: number;
  readonly #lrp: Lrp;

  constructor(master: Uint8Array, ti: Uint8Array, cmdCtr = 0, encCtr = 0) {
    const lrp = new Lrp(master);
    super({ encKey: lrp.updatedKey(1), macKey: lrp.updatedKey(0) }, ti, cmdCtr);
    this.master = Buffer.from(master);
    this.encCtr = encCtr;
    this.#lrp = lrp;
  }

  /** After AuthenticateLRPFirst: TI from the PICC, CmdCtr 0, EncCtr 1 (PICCData used block 0). */
  static first(done: { master: Buffer; ti: Buffer | null }): LrpSession {
    if (done.ti === null) throw new TypeError('an LRP first authentication gives a TI');
    return new LrpSession(done.master, done.ti, 0, 1);
  }

  /** After AuthenticateLRPNonFirst: new master, same TI and CmdCtr, EncCtr from 0. */
  rekeyLrp(master: Uint8Array): LrpSession {
    return new LrpSession(master, this.ti, this.cmdCtr, 0);
  }

  override rekey(): Ev2Session {
    throw new TypeError('an LRP session is rekeyed with rekeyLrp');
  }

  override fullMac(input: Uint8Array): Buffer {
    return this.#lrp.cmac(input, 0);
  }

  #counter(): Buffer {
    const c = Buffer.alloc(4);
    c.writeUInt32BE(this.encCtr >>> 0, 0);
    return c;
  }

  #encrypt(data: Uint8Array): Buffer {
    const { ciphertext } = this.#lrp.encrypt(1, this.#counter(), padM2(data), false);
    this.encCtr = (this.encCtr + ciphertext.length / 16) >>> 0;
    return ciphertext;
  }

  #decrypt(enc: Uint8Array): Buffer | null {
    if (enc.length === 0 || enc.length % 16 !== 0) return null;
    const { plaintext } = this.#lrp.decrypt(1, this.#counter(), enc, false);
    this.encCtr = (this.encCtr + enc.length / 16) >>> 0;
    return unpadM2(plaintext!);
  }

  /**
   * Moves EncCtr past an encrypted answer of `length` plain bytes that another copy of the session
   * decrypts: a batch of commands built ahead must encrypt at the counter the chip will have reached.
   * Empty data is sent in clear and uses no counter.
   */
  skipEncrypted(length: number): void {
    if (length > 0) this.encCtr = (this.encCtr + padM2(Buffer.alloc(length)).length / 16) >>> 0;
  }

  override encryptCommandData(data: Uint8Array): Buffer {
    return this.#encrypt(data);
  }

  override decryptCommandData(enc: Uint8Array): Buffer | null {
    return this.#decrypt(enc);
  }

  override encryptResponseData(data: Uint8Array): Buffer {
    return this.#encrypt(data);
  }

  override decryptResponseData(enc: Uint8Array): Buffer | null {
    return this.#decrypt(enc);
  }
}

// ---------------------------------------------------------------------------------------------
// Persisting a session between two round trips of a remote write (the server keeps it, sealed,
// while the writer relays the next APDU). Hex strings; secrets: never log them.

export type SessionState =
  | { kind: 'aes'; ti: string; cmdCtr: number; encKey: string; macKey: string }
  | { kind: 'lrp'; ti: string; cmdCtr: number; master: string; encCtr: number };

export function sessionState(session: Ev2Session): SessionState {
  const ti = session.ti.toString('hex');
  if (session instanceof LrpSession) return { kind: 'lrp', ti, cmdCtr: session.cmdCtr, master: session.master.toString('hex'), encCtr: session.encCtr };
  return { kind: 'aes', ti, cmdCtr: session.cmdCtr, encKey: session.encKey.toString('hex'), macKey: session.macKey.toString('hex') };
}

/** The session back from sessionState(); throws TypeError on anything malformed. */
export function restoreSession(state: SessionState): Ev2Session {
  const bytes = (s: unknown, n: number, what: string): Buffer => {
    if (typeof s !== 'string' || s.length !== n * 2 || !/^[0-9a-fA-F]*$/.test(s)) throw new TypeError(`session state: ${what} must be ${n} bytes of hex`);
    return Buffer.from(s, 'hex');
  };
  const counter = (v: unknown, max: number, what: string): number => {
    if (!Number.isInteger(v) || (v as number) < 0 || (v as number) > max) throw new TypeError(`session state: ${what} out of range`);
    return v as number;
  };
  const ti = bytes(state?.ti, 4, 'ti');
  const cmdCtr = counter(state.cmdCtr, 0xffff, 'cmdCtr');
  if (state.kind === 'lrp') return new LrpSession(bytes(state.master, 16, 'master'), ti, cmdCtr, counter(state.encCtr, 0xffffffff, 'encCtr'));
  if (state.kind === 'aes') return new Ev2Session({ encKey: bytes(state.encKey, 16, 'encKey'), macKey: bytes(state.macKey, 16, 'macKey') }, ti, cmdCtr);
  throw new TypeError('session state: kind must be aes or lrp');
}

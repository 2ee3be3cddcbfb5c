// Host side of NTAG 424 DNA authentication, AES (AuthenticateEV2First/NonFirst, NT4H2421Gx 9.1.5-9.1.9) and LRP (AuthenticateLRPFirst/NonFirst, 9.2.2; AN12304), with AN12196's traces as tests.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { aesCbcDecrypt, aesCbcEncrypt, AesEcb } from './aes.js';
import { aesCmacOnce } from './cmac.js';
import { Lrp } from './lrp.js';
import { wrapNative } from './apdu.js';
import type { Ev2Keys } from './secure-messaging.js';

// Authentication cryptograms are AES-128-CBC under the zero IV, without implicit padding.
const ZERO_IV = Buffer.alloc(16);

/** RndB<<<8 and RndA<<<8: a left rotation by one byte, how each side proves it decrypted the other's nonce. */
export function rotl1(b: Uint8Array): Buffer {
  return Buffer.concat([b.subarray(1), b.subarray(0, 1)]);
}

// ---------------------------------------------------------------------------------------------
// AES mode

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
// LRP mode, for a chip switched to LRP with SetConfiguration

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
export function lrpAuthFinish(
  challenge: LrpChallenge,
  part2Data: Uint8Array,
  first: boolean,
): { master: Buffer; ti: Buffer | null; pdCap2: Buffer | null; pcdCap2: Buffer | null } | null {
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

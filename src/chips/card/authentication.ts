// The card's side of AuthenticateEV2First/NonFirst and, on a chip switched to LRP, AuthenticateLRPFirst/NonFirst (NT4H2421Gx section 10, authentication commands).
import { timingSafeEqual } from 'node:crypto';
import { aesCbcDecrypt, aesCbcEncrypt } from '../aes.js';
import { ev2SessionKeys, lrpSessionMaster, lrpSessionVector, rotl1 } from '../authentication.js';
import { KEY_COUNT, SW } from '../command-codes.js';
import { Lrp } from '../lrp.js';
import { Ev2Session, LrpSession } from '../secure-messaging.js';
import { Status, sw, type Chip, type Pending } from './chip.js';
import { requireApp } from './secure-messaging.js';

type AuthPending = Extract<Pending, { kind: 'auth' }>;

export function authPart1(chip: Chip, first: boolean, data: Buffer): Buffer {
  requireApp(chip);
  if (first ? data.length < 2 || data.length !== 2 + data[1]! : data.length !== 1) throw new Status(SW.lengthError);
  const keyNo = data[0]!;
  if (keyNo >= KEY_COUNT) throw new Status(SW.noSuchKey);
  // PCDCap2.1 bit 1 asks for LRP: an AES chip refuses it, an LRP chip refuses anything else.
  const wantsLrp = first && data[1]! > 0 && (data[2]! & 0x02) !== 0;
  if (first && wantsLrp !== chip.lrp) throw new Status(SW.permissionDenied);
  if (!first && chip.auth === null) throw new Status(SW.permissionDenied);
  const rndB = chip.random(16);
  const pcdCap2 = Buffer.alloc(6);
  if (first) data.subarray(2, 8).copy(pcdCap2);
  chip.pending = { kind: 'auth', keyNo, rndB, first, lrp: chip.lrp, pcdCap2 };
  if (first) chip.auth = null;
  // LRP: AuthMode 01 and RndB in clear; AES: E(Kx, RndB).
  if (chip.lrp) return sw(SW.additionalFrame, Buffer.concat([Buffer.from([0x01]), rndB]));
  return sw(SW.additionalFrame, aesCbcEncrypt(chip.keys[keyNo]!, Buffer.alloc(16), rndB));
}

export function authPart2(chip: Chip, p: AuthPending, data: Buffer): Buffer {
  if (data.length !== 32) throw new Status(SW.lengthError);
  const key = chip.keys[p.keyNo]!;
  if (p.lrp) return authPart2Lrp(chip, p, key, data);
  const plain = aesCbcDecrypt(key, Buffer.alloc(16), data);
  const rndA = plain.subarray(0, 16);
  if (!timingSafeEqual(plain.subarray(16, 32), rotl1(p.rndB))) throw new Status(SW.authenticationError);
  const keys = ev2SessionKeys(key, rndA, p.rndB);
  if (p.first) {
    const ti = chip.random(4);
    chip.auth = { keyNo: p.keyNo, session: new Ev2Session(keys, ti, 0) };
    const resp = Buffer.concat([ti, rotl1(rndA), Buffer.alloc(6), Buffer.alloc(6)]);
    return sw(SW.ok, aesCbcEncrypt(key, Buffer.alloc(16), resp));
  }
  const running = chip.auth!;
  chip.auth = { keyNo: p.keyNo, session: running.session.rekey(keys) };
  return sw(SW.ok, aesCbcEncrypt(key, Buffer.alloc(16), rotl1(rndA)));
}

function authPart2Lrp(chip: Chip, p: AuthPending, key: Buffer, data: Buffer): Buffer {
  const rndA = data.subarray(0, 16);
  const master = lrpSessionMaster(key, lrpSessionVector(rndA, p.rndB));
  const lrp = new Lrp(master);
  if (!timingSafeEqual(lrp.cmac(Buffer.concat([rndA, p.rndB]), 0), data.subarray(16, 32))) throw new Status(SW.authenticationError);
  if (!p.first) {
    const running = chip.auth!.session;
    if (!(running instanceof LrpSession)) throw new Status(SW.authenticationError);
    chip.auth = { keyNo: p.keyNo, session: running.rekeyLrp(master) };
    return sw(SW.ok, lrp.cmac(Buffer.concat([p.rndB, rndA]), 0));
  }
  const ti = chip.random(4);
  const pdCap2 = Buffer.from([0x02, 0, 0, 0, 0, 0]);
  const piccData = lrp.encrypt(1, Buffer.alloc(4), Buffer.concat([ti, pdCap2, p.pcdCap2]), false).ciphertext;
  chip.auth = { keyNo: p.keyNo, session: new LrpSession(master, ti, 0, 1) };
  return sw(SW.ok, Buffer.concat([piccData, lrp.cmac(Buffer.concat([p.rndB, rndA, piccData]), 0)]));
}

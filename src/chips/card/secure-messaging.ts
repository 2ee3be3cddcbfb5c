// The card's side of EV2 secure messaging: preconditions, unwrapping a command's MAC and encryption, and answering inside the session.
import { timingSafeEqual } from 'node:crypto';
import { SW } from '../command-codes.js';
import type { CommMode } from '../secure-messaging.js';
import { Status, sw, type Auth, type Chip } from './chip.js';

/**
 * Runs a handler; an error status ends the authenticated session (the PICC answers errors in
 * plain and resets its authentication state, so the host must authenticate again).
 */
export function guard(chip: Chip, handler: () => Buffer): Buffer {
  try {
    return handler();
  } catch (e) {
    if (!(e instanceof Status)) throw e;
    chip.auth = null;
    return sw(e.sw);
  }
}

export function requireApp(chip: Chip): void {
  if (!chip.appSelected) throw new Status(SW.permissionDenied);
}

export function requireAuth(chip: Chip): Auth {
  if (chip.auth === null) throw new Status(SW.permissionDenied);
  return chip.auth;
}

/**
 * Unwraps a command in `mode` inside the session: checks the MAC (INTEGRITY_ERROR when wrong)
 * and decrypts Full data (padding must be method 2). Returns the plain command data after header.
 */
export function unwrap(auth: Auth, ins: number, data: Buffer, headerLen: number, mode: CommMode): { header: Buffer; body: Buffer } {
  if (data.length < headerLen) throw new Status(SW.lengthError);
  const header = data.subarray(0, headerLen);
  if (mode === 'plain') return { header, body: data.subarray(headerLen) };
  if (data.length < headerLen + 8) throw new Status(SW.lengthError);
  const enc = data.subarray(headerLen, data.length - 8);
  const mac = data.subarray(data.length - 8);
  const s = auth.session;
  if (!timingSafeEqual(s.commandMac(ins, header, enc), mac)) throw new Status(SW.integrityError);
  if (mode === 'mac' || enc.length === 0) return { header, body: enc };
  if (enc.length % 16 !== 0) throw new Status(SW.lengthError);
  const plain = s.decryptCommandData(enc);
  if (plain === null) throw new Status(SW.integrityError);
  return { header, body: plain };
}

/** Answers 9100 inside the session in `mode` and advances CmdCtr. */
export function reply(auth: Auth, mode: CommMode, data: Uint8Array = Buffer.alloc(0)): Buffer {
  const s = auth.session;
  let out: Buffer;
  if (mode === 'plain') out = Buffer.from(data);
  else {
    const body = mode === 'full' && data.length > 0 ? s.encryptResponseData(data) : Buffer.from(data);
    out = Buffer.concat([body, s.responseMac(0x00, body)]);
  }
  s.cmdCtr = (s.cmdCtr + 1) & 0xffff;
  return sw(SW.ok, out);
}

/** A plain answer; inside a session it still counts as a command (CmdCtr + 1). */
export function replyPlain(auth: Auth | null, data: Uint8Array): Buffer {
  return auth === null ? sw(SW.ok, data) : reply(auth, 'plain', data);
}

// EV2 secure messaging (CommMode.MAC / CommMode.Full) of an authenticated session, AES (NT4H2421Gx 9.1.10) and LRP (9.2.4): IVs, MACs, encryption, CmdCtr.
import { timingSafeEqual } from 'node:crypto';
import { aesCbcDecrypt, aesCbcEncrypt, AesEcb } from './aes.js';
import { aesCmacOnce, macT } from './cmac.js';
import { Lrp, padM2, unpadM2 } from './lrp.js';
import { splitResponse, SW_OK, wrapNative } from './apdu.js';

export type CommMode = 'plain' | 'mac' | 'full';

export interface Ev2Keys {
  encKey: Buffer;
  macKey: Buffer;
}

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

// In LRP mode the MAC input and the command/response framing are those of AES mode; the MAC is
// CMAC_LRP under updated key 0 of the session master key, and encryption is LRICB under its updated
// key 1 with one 4-byte counter (EncCtr) shared by commands and responses, no IV.

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

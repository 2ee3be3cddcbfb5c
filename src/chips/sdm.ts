// NTAG 424 DNA Secure Dynamic Messaging (SDM/SUN) building blocks, shared by the verifier and the
// chip emulator. References: NT4H2421Gx data sheet section 9.3 (SDM), AN12196 section 4 (worked AES
// examples), and for LRP mode the data sheet's LRP variants (SV with 1E E1 trailer, LRICB).
import { AesEcb, aesFor } from './aes.js';
import { aesCmacOnce, aesSubkeys, macT } from './cmac.js';
import { Lrp, lrpFor } from './lrp.js';

export type SdmCrypto = 'aes' | 'lrp';

/**
 * PICCDataTag for UID and SDMReadCtr mirroring with a 7-byte UID (NT4H2421Gx 9.3.4: bit 7 UID
 * mirroring, bit 6 SDMReadCtr mirroring, bits 3..0 UID length). The only layout tapproof writes.
 */
export const PICC_DATA_TAG = 0xc7;

/** SDMReadCtr is 24 bits on chip (NT4H2421Gx 9.3.5). */
export const MAX_SDM_COUNTER = 0xffffff;

/** The 3 counter bytes least significant first, as they enter PICCData and the session vectors. */
export function counterLsbFirst(counter: number): Buffer {
  if (!Number.isInteger(counter) || counter < 0 || counter > MAX_SDM_COUNTER) {
    throw new RangeError(`SDM counter must be an integer in 0..${MAX_SDM_COUNTER}, got ${counter}`);
  }
  return Buffer.from([counter & 0xff, (counter >>> 8) & 0xff, (counter >>> 16) & 0xff]);
}

export function counterFromLsbFirst(ctr: Uint8Array): number {
  return ctr[0]! | (ctr[1]! << 8) | (ctr[2]! << 16);
}

function requireUidCtr(uid: Uint8Array, ctrLsb: Uint8Array): void {
  if (uid.length !== 7) throw new TypeError(`UID must be 7 bytes, got ${uid.length}`);
  if (ctrLsb.length !== 3) throw new TypeError(`SDMReadCtr must be 3 bytes, got ${ctrLsb.length}`);
}

// ---------------------------------------------------------------------------------------------
// Session keys

/**
 * AES-mode session vectors (NT4H2421Gx 9.3.9.1; AN12196 Table 2):
 * SV1 = C3 3C 00 01 00 80 || UID || SDMReadCtr (ENC), SV2 = 3C C3 00 01 00 80 || UID || SDMReadCtr
 * (MAC). With UID and counter both mirrored they fill exactly one block, so no zero padding is needed.
 */
export function sdmSessionVectorsAes(uid: Uint8Array, ctrLsb: Uint8Array): { sv1: Buffer; sv2: Buffer } {
  requireUidCtr(uid, ctrLsb);
  const sv1 = Buffer.allocUnsafe(16);
  sv1[0] = 0xc3;
  sv1[1] = 0x3c;
  sv1[2] = 0x00;
  sv1[3] = 0x01;
  sv1[4] = 0x00;
  sv1[5] = 0x80;
  sv1.set(uid, 6);
  sv1.set(ctrLsb, 13);
  const sv2 = Buffer.from(sv1);
  sv2[0] = 0x3c;
  sv2[1] = 0xc3;
  return { sv1, sv2 };
}

/**
 * The file read key's cipher (its CMAC subkeys are memoised with it, src/chips/cmac.ts), kept with the key
 * object the caller holds (a chip's keys live in the verifier's key cache across its taps): a tap then costs
 * no key set-up. Keyed by identity, not content, so a tap of another chip never evicts anything and an entry
 * goes with its key; the bytes are compared before use, so a caller that reuses its array for another key
 * gets a new cipher, never the old key's.
 */
const fileKeyCiphers = new WeakMap<Uint8Array, { key: Buffer; cipher: AesEcb }>();

function fileKeyCipher(fileReadKey: Uint8Array): AesEcb {
  const known = fileKeyCiphers.get(fileReadKey);
  if (known !== undefined && known.key.equals(fileReadKey)) return known.cipher;
  const cipher = new AesEcb(fileReadKey);
  fileKeyCiphers.set(fileReadKey, { key: Buffer.from(fileReadKey), cipher });
  return cipher;
}

/**
 * KSesSDMFileReadENC = CMAC(KSDMFileRead, SV1) and KSesSDMFileReadMAC = CMAC(KSDMFileRead, SV2),
 * derived together: each SV is one complete block, so each CMAC is E(SV XOR K1) and both fit in one
 * ECB call.
 */
export function sdmSessionKeysAes(fileReadKey: Uint8Array, uid: Uint8Array, ctrLsb: Uint8Array): { encKey: Buffer; macKey: Buffer } {
  const { sv1, sv2 } = sdmSessionVectorsAes(uid, ctrLsb);
  const cipher = fileKeyCipher(fileReadKey);
  const k1 = aesSubkeys(cipher).K1;
  const x = Buffer.allocUnsafe(32);
  for (let i = 0; i < 16; i++) {
    x[i] = sv1[i]! ^ k1[i]!;
    x[16 + i] = sv2[i]! ^ k1[i]!;
  }
  const out = cipher.encrypt(x);
  return { encKey: out.subarray(0, 16), macKey: out.subarray(16, 32) };
}

/** KSesSDMFileReadENC = CMAC(KSDMFileRead, SV1) (AN12196 Table 2). */
export function sdmEncKeyAes(fileReadKey: Uint8Array, uid: Uint8Array, ctrLsb: Uint8Array): Buffer {
  return sdmSessionKeysAes(fileReadKey, uid, ctrLsb).encKey;
}

/** KSesSDMFileReadMAC = CMAC(KSDMFileRead, SV2) (AN12196 Table 2). */
export function sdmMacKeyAes(fileReadKey: Uint8Array, uid: Uint8Array, ctrLsb: Uint8Array): Buffer {
  return sdmSessionKeysAes(fileReadKey, uid, ctrLsb).macKey;
}

/**
 * LRP-mode session vector: SV = 00 01 00 80 || UID || SDMReadCtr || zero padding || 1E E1, one block
 * when UID and counter are both mirrored.
 */
export function sdmSessionVectorLrp(uid: Uint8Array, ctrLsb: Uint8Array): Buffer {
  requireUidCtr(uid, ctrLsb);
  const sv = Buffer.alloc(16);
  sv[1] = 0x01;
  sv[3] = 0x80;
  sv.set(uid, 4);
  sv.set(ctrLsb, 11);
  sv[14] = 0x1e;
  sv[15] = 0xe1;
  return sv;
}

/**
 * LRP-mode SDM session master key = CMAC_LRP(KSDMFileRead, SV). Its updated key 0 MACs (SDMMAC),
 * updated key 1 encrypts (SDMENCFileData). The file read key is per chip, so its LRP expansion is
 * not cached: with many chips every entry would be evicted before reuse, and the churn costs more
 * than the expansion saves (bench/chips.ts).
 */
export function sdmSessionKeyLrp(fileReadKey: Uint8Array, uid: Uint8Array, ctrLsb: Uint8Array): Buffer {
  return new Lrp(fileReadKey).cmac(sdmSessionVectorLrp(uid, ctrLsb), 0);
}

// ---------------------------------------------------------------------------------------------
// PICCData

/** Length in bytes of the encrypted PICCData parameter: 16 (AES), 8-byte PICCRand + 16 (LRP). */
export function encPiccDataLength(crypto: SdmCrypto): number {
  return crypto === 'aes' ? 16 : 24;
}

/**
 * Decrypts PICCData. AES: AES-CBC with a zero IV over one block, i.e. one ECB block decryption
 * (AN12196 Table 3). LRP: PICCRand (first 8 bytes) is the LRICB counter for updated key 0, no padding.
 */
export function decryptPiccData(crypto: SdmCrypto, metaReadKey: Uint8Array, enc: Uint8Array): Buffer {
  if (enc.length !== encPiccDataLength(crypto)) throw new TypeError(`encrypted PICCData must be ${encPiccDataLength(crypto)} bytes`);
  if (crypto === 'aes') return aesFor(metaReadKey).decrypt(enc);
  return lrpFor(metaReadKey).decrypt(0, enc.subarray(0, 8), enc.subarray(8), false).plaintext!;
}

/** Encrypts a 16-byte PICCData plaintext; `piccRand` (8 bytes) is required in LRP mode. */
export function encryptPiccData(crypto: SdmCrypto, metaReadKey: Uint8Array, plaintext: Uint8Array, piccRand?: Uint8Array): Buffer {
  if (plaintext.length !== 16) throw new TypeError('PICCData plaintext must be 16 bytes');
  if (crypto === 'aes') return aesFor(metaReadKey).encrypt(plaintext);
  if (piccRand === undefined || piccRand.length !== 8) throw new TypeError('LRP PICCData needs an 8-byte PICCRand');
  const { ciphertext } = lrpFor(metaReadKey).encrypt(0, piccRand, plaintext, false);
  return Buffer.concat([piccRand, ciphertext]);
}

export interface PiccData {
  uid: Buffer;
  /** SDMReadCtr bytes as on chip, least significant first. */
  ctrLsb: Buffer;
  counter: number;
}

/**
 * Reads a decrypted PICCData block: PICCDataTag || UID || SDMReadCtr || random padding. Null unless
 * the tag is exactly C7 (UID + counter mirrored, 7-byte UID); anything else is either another chip
 * configuration or, far more likely, a wrong key or a forged parameter.
 */
export function parsePiccData(plaintext: Uint8Array): PiccData | null {
  if (plaintext.length !== 16 || plaintext[0] !== PICC_DATA_TAG) return null;
  const uid = Buffer.from(plaintext.subarray(1, 8));
  const ctrLsb = Buffer.from(plaintext.subarray(8, 11));
  return { uid, ctrLsb, counter: counterFromLsbFirst(ctrLsb) };
}

// ---------------------------------------------------------------------------------------------
// One tap's session: SDMMAC and SDMENCFileData

function requireFileBlocks(data: Uint8Array): void {
  if (data.length === 0 || data.length % 16 !== 0) throw new TypeError('SDMENCFileData must be whole, non-empty 16-byte blocks');
}

/**
 * The SDM session of one tap (one UID and SDMReadCtr). Session keys are derived lazily and once, so a
 * TagTamper verification (MAC + file data) pays for the LRP session key a single time. Session keys
 * are fresh per tap, so they get throwaway ciphers rather than entries in the shared caches.
 */
export class SdmSession {
  readonly crypto: SdmCrypto;
  readonly #fileReadKey: Uint8Array;
  readonly #uid: Uint8Array;
  readonly #ctrLsb: Uint8Array;
  #aesKeys: { encKey: Buffer; macKey: Buffer } | undefined;
  #macCipher: AesEcb | undefined;
  #encCipher: AesEcb | undefined;
  #lrp: Lrp | undefined;

  constructor(crypto: SdmCrypto, fileReadKey: Uint8Array, uid: Uint8Array, ctrLsb: Uint8Array) {
    requireUidCtr(uid, ctrLsb);
    this.crypto = crypto;
    this.#fileReadKey = fileReadKey;
    this.#uid = uid;
    this.#ctrLsb = ctrLsb;
  }

  #lrpSession(): Lrp {
    return (this.#lrp ??= new Lrp(sdmSessionKeyLrp(this.#fileReadKey, this.#uid, this.#ctrLsb)));
  }

  /** The full 16-byte CMAC (AES-CMAC or CMAC_LRP) over the MAC input under the session MAC key. */
  fullMac(macInput: Uint8Array): Buffer {
    if (this.crypto === 'lrp') return this.#lrpSession().cmac(macInput, 0);
    this.#macCipher ??= new AesEcb(this.#sessionKeysAes().macKey);
    return aesCmacOnce(this.#macCipher, macInput);
  }

  /**
   * SDMMAC (8 bytes): MACt over DynamicFileData[SDMMACInputOffset .. SDMMACOffset-1], i.e. the
   * exact ASCII text of the URL between those offsets (possibly empty).
   */
  mac(macInput: Uint8Array): Buffer {
    return macT(this.fullMac(macInput));
  }

  decryptFileData(enc: Uint8Array): Buffer {
    return this.#fileData(false, enc);
  }

  encryptFileData(plaintext: Uint8Array): Buffer {
    return this.#fileData(true, plaintext);
  }

  #fileData(encrypt: boolean, data: Uint8Array): Buffer {
    requireFileBlocks(data);
    if (this.crypto === 'lrp') {
      // LRICB with updated key 1 of the session master key, counter SDMReadCtr || 00 00 00.
      const counter = Buffer.alloc(6);
      counter.set(this.#ctrLsb, 0);
      const s = this.#lrpSession();
      return encrypt ? s.encrypt(1, counter, data, false).ciphertext : s.decrypt(1, counter, data, false).plaintext!;
    }
    // AES-CBC under KSesSDMFileReadENC with IVe = E(KSesSDMFileReadENC, SDMReadCtr || 00 * 13)
    // (AN12196 Table 4; the data sheet's wording suggests the meta read key, chips use the session
    // ENC key). CBC is done by hand over one ECB object: one key setup for IVe and data alike.
    const cipher = this.#encAes();
    let prev: Buffer = this.fileDataIvAes();
    const out = Buffer.allocUnsafe(data.length);
    const x = Buffer.allocUnsafe(16);
    for (let off = 0; off < data.length; off += 16) {
      if (encrypt) {
        for (let i = 0; i < 16; i++) x[i] = data[off + i]! ^ prev[i]!;
        prev = cipher.encrypt(x);
        prev.copy(out, off);
      } else {
        const c = data.subarray(off, off + 16);
        const d = cipher.decrypt(c);
        for (let i = 0; i < 16; i++) out[off + i] = d[i]! ^ prev[i]!;
        prev = Buffer.from(c);
      }
    }
    return out;
  }

  /** IVe of AES-mode file data (exposed for AN12196 Table 4's intermediate value). */
  fileDataIvAes(): Buffer {
    const ivBlock = Buffer.alloc(16);
    ivBlock.set(this.#ctrLsb, 0);
    return this.#encAes().encrypt(ivBlock);
  }

  #encAes(): AesEcb {
    return (this.#encCipher ??= new AesEcb(this.#sessionKeysAes().encKey));
  }

  #sessionKeysAes(): { encKey: Buffer; macKey: Buffer } {
    return (this.#aesKeys ??= sdmSessionKeysAes(this.#fileReadKey, this.#uid, this.#ctrLsb));
  }
}

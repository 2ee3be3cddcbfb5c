// The chip side of SDM, for the software chip emulator (sandbox tags): what an NTAG 424 DNA (TT)
// mirrors into its URL on a tap. The inverse of verifySun424, built from the same primitives.
import { randomBytes } from 'node:crypto';
import { toHex } from './hex.js';
import { counterLsbFirst, encryptPiccData, PICC_DATA_TAG, SdmSession, type SdmCrypto } from './sdm.js';
import type { Sun424Params } from './sun424.js';
import { tamperChars, type Tamper } from './tamper.js';

export type { Sun424Params };

export interface Sun424Emulation {
  crypto: SdmCrypto;
  uid: Uint8Array;
  /** SDMReadCtr after the increment of this tap (0..0xFFFFFF). */
  counter: number;
  /** null = plain UID/counter mirroring. */
  sdmMetaReadKey: Uint8Array | null;
  sdmFileReadKey: Uint8Array;
  /** TagTamper: mirror this status as the first two characters of the encrypted file data. */
  tamper?: NonNullable<Tamper>;
  /** Plaintext of SDMENCFileData (whole 16-byte blocks). Default with `tamper`: status + 14 'x'. */
  fileData?: Uint8Array;
  /**
   * The MAC input from the parameter values, i.e. the URL text from SDMMACInputOffset up to the MAC.
   * Default: `<enc>&cmac=` when there is file data (tapproof's TT layout), else empty.
   */
  macInput?: (values: { piccData?: string; uid?: string; ctr?: string; enc?: string }) => string;
  /** Random source for PICCData padding and LRP PICCRand (tests inject a fixed one). */
  random?: (n: number) => Uint8Array;
}

/** The SDM parameter values of one emulated 424 DNA tap. Throws on invalid emulator settings. */
export function generateSun424(input: Sun424Emulation): Sun424Params {
  const { crypto, uid } = input;
  if (crypto !== 'aes' && crypto !== 'lrp') throw new TypeError(`crypto must be 'aes' or 'lrp'`);
  if (uid.length !== 7) throw new TypeError('UID must be 7 bytes');
  const ctrLsb = counterLsbFirst(input.counter);
  const random = input.random ?? ((n: number) => randomBytes(n));
  const values: { piccData?: string; uid?: string; ctr?: string; enc?: string } = {};

  if (input.sdmMetaReadKey !== null) {
    // PICCData = PICCDataTag || UID || SDMReadCtr || 5 random bytes (NT4H2421Gx 9.3.4); in LRP mode
    // an 8-byte PICCRand is prepended and serves as the LRICB counter.
    const plain = Buffer.alloc(16);
    plain[0] = PICC_DATA_TAG;
    plain.set(uid, 1);
    plain.set(ctrLsb, 8);
    plain.set(takeRandom(random, 5), 11);
    const piccRand = crypto === 'lrp' ? takeRandom(random, 8) : undefined;
    values.piccData = toHex(encryptPiccData(crypto, input.sdmMetaReadKey, plain, piccRand));
  } else {
    values.uid = toHex(uid);
    values.ctr = toHex(Buffer.from([ctrLsb[2]!, ctrLsb[1]!, ctrLsb[0]!]));
  }

  const session = new SdmSession(crypto, input.sdmFileReadKey, uid, ctrLsb);
  let fileData = input.fileData === undefined ? undefined : Buffer.from(input.fileData);
  if (input.tamper !== undefined) {
    fileData ??= Buffer.alloc(16, 0x78);
    fileData.write(tamperChars(input.tamper), 0, 'latin1');
  }
  if (fileData !== undefined) values.enc = toHex(session.encryptFileData(fileData));

  const macInput = input.macInput ? input.macInput(values) : values.enc !== undefined ? `${values.enc}&cmac=` : '';
  const cmac = toHex(session.mac(Buffer.from(macInput, 'latin1')));
  return { ...values, cmac, macInput };
}

function takeRandom(random: (n: number) => Uint8Array, n: number): Uint8Array {
  const r = random(n);
  if (!(r instanceof Uint8Array) || r.length !== n) throw new TypeError(`random source must return ${n} bytes`);
  return r;
}

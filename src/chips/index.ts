// Public API of the chip cryptography: pure functions over bytes, no I/O.

// Verification (what the scan verification service calls)
export { verifySun424, type Sun424Input } from './sun424.js';
export { verifySun223, parseSun223, sun223Mac, generateSun223, type Sun223Parts } from './sun223.js';
export type { SunVerdict } from './verdict.js';
export type { Tamper, TamperState } from './tamper.js';
export { parseTamperChars, tamperChars } from './tamper.js';

// Chip emulator (sandbox)
export { generateSun424, type Sun424Emulation, type Sun424Params } from './emulate.js';

// SDM building blocks
export {
  counterLsbFirst,
  counterFromLsbFirst,
  decryptPiccData,
  encryptPiccData,
  encPiccDataLength,
  parsePiccData,
  sdmEncKeyAes,
  sdmMacKeyAes,
  sdmSessionKeysAes,
  sdmSessionKeyLrp,
  sdmSessionVectorLrp,
  sdmSessionVectorsAes,
  SdmSession,
  MAX_SDM_COUNTER,
  PICC_DATA_TAG,
  type PiccData,
  type SdmCrypto,
} from './sdm.js';

// Key diversification
export { diversifyAn10922, an10922Input } from './diversify.js';

// Primitives
export { AesEcb, aesCbcDecrypt, aesCbcEncrypt } from './aes.js';
export { aesCmac, cmacSubkeys, gfDouble, macT, type CmacSubkeys } from './cmac.js';
export { crc32nk, crc32nkValue } from './crc32.js';
export { Lrp, lrpCmac, lrpEval, incrementCounter, padM2, unpadM2 } from './lrp.js';
export { hexToBytes, isHex, toHex } from './hex.js';

// Chip writer: EV2 authentication, secure messaging, APDU framing, originality signature
export {
  authFinish,
  authPart1Apdu,
  authPart2,
  changeKeyData,
  Ev2Session,
  ev2SessionKeys,
  ev2SessionVectors,
  type AuthChallenge,
  type CommMode,
  type Ev2Authenticated,
  type Ev2Keys,
} from './ev2.js';
export {
  getVersionApdus,
  parseFileSettings,
  parseGetVersion,
  selectNdefApplicationApdu,
  NDEF_APPLICATION_DF_NAME,
  splitResponse,
  wrapNative,
  SW_ADDITIONAL_FRAME,
  SW_OK,
  type ChipVersion,
  type FileSettings,
} from './apdu.js';
export { NTAG424_ORIGINALITY_KEY, verifyOriginality } from './originality.js';

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
  ev2SessionKeys,
  ev2SessionVectors,
  lrpAuthFinish,
  lrpAuthPart1Apdu,
  lrpAuthPart2,
  lrpSessionMaster,
  lrpSessionVector,
  type AuthChallenge,
  type Ev2Authenticated,
  type LrpChallenge,
} from './authentication.js';
export { Ev2Session, LrpSession, type CommMode, type Ev2Keys } from './secure-messaging.js';
export { restoreSession, sessionState, type SessionState } from './session-state.js';
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

// Chip writer commands (host side), NDEF/SDM template, and the APDU-level card emulator (docs/chips.md)
export { chipProtocolOf, describeStatus, FILES, INS, ISO_SW, KEY_COUNT, le3, NDEF_APPLICATION_FILE_ID, readLe3, statusOf, SW } from './command-codes.js';
export {
  accessRightsOf,
  accessRightsValue,
  commModeOf,
  decodeFileConfig,
  decodeGetFileSettings,
  encodeFileConfig,
  encodeGetFileSettings,
  FREE,
  NEVER,
  sdmConfigProblem,
  type AccessRights,
  type FileConfig,
  type SdmConfig,
} from './file-settings.js';
export {
  changeFileSettingsApdu,
  changeKeyApdu,
  changeKeyData,
  changeKeyResponseMode,
  getCardUidApdu,
  getFileCountersApdu,
  getFileSettingsApdu,
  getKeyVersionApdu,
  getTtStatusApdu,
  isoReadBinaryApdu,
  isoSelectFileApdu,
  isoUpdateBinaryApdu,
  maxWriteChunk,
  parseGetCardUid,
  parseGetFileCounters,
  parseGetFileSettingsResponse,
  parseGetKeyVersion,
  parseGetTtStatus,
  parseReadSig,
  readDataApdu,
  readSigApdu,
  SET_CONFIGURATION_LRP,
  setConfigurationApdu,
  writeChunks,
  writeDataApdu,
} from './commands.js';
export {
  KEY_SLOTS,
  ndefCapacityError,
  ndefFileContent,
  ndefUriMessage,
  ndefUrlCapacity,
  NTAG223_USER_MEMORY,
  NTAG223_WRITE_UNSUPPORTED,
  NTAG424_NDEF_FILE_SIZE,
  parseNdefUriFile,
  sdmFileConfig,
  sdmTemplate,
  type ChipCrypto,
  type SdmTemplate,
} from './ndef.js';
export { EMULATOR_ORIGINALITY_KEY, EMULATOR_ORIGINALITY_PRIVATE_KEY, signOriginality } from './originality.js';
export { Ntag424Card, type CardOptions } from './card/ntag424-card.js';
export type { CardProtocol } from './card/chip.js';
export { CardRemovedError, type CardFault } from './card/faults.js';
export type { CardState } from './card/persistence.js';
// The one piece that does I/O (a TCP client, only once connect() is called): the vpcd link that puts
// the software card into pcscd's virtual reader.
export { NTAG424_ATR, VPCD_DEFAULT_HOST, VPCD_DEFAULT_PORT, VpcdLink, vpcdReaderName, type VirtualCard, type VpcdOptions } from './card/vpcd.js';

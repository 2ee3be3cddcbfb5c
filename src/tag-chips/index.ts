// The chips bound to tags: what a scan, a write, a rekey and the emulator use of them, and the chip import's registration point.
// Other features import this feature only through this file (test/house/layers.unit.test.ts).
export { committedApplicationKeys, derivedApplicationKeys, pendingSdmKeysOf, rekeyMaster, sdmKeysOf, type ApplicationKeys, type SdmKeys } from './keys.js';
export {
  chipOwner,
  chipRow,
  commitPendingKeys,
  findEmulatedChip,
  findTagChip,
  findTagsByUrls,
  incrementEmulatedCounter,
  insertChips,
  insertEmulatedChip,
  lockForBatch,
  recordPendingKeys,
  saveChipProgress,
  setEmulatedTamper,
  type ChipProgress,
  type ChipRow,
  type LockedChip,
  type TagWithChip,
} from './repository.js';
export { isChipsMessage, sunVerdict } from './sun-check.js';
export { sunUrl } from './tap.js';
export { type ChipImportState, type ImportedFields } from './import.js';

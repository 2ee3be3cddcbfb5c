// The master keys' front door: the per-process key generations and per-chip derivation other features use.
// Other features import this feature only through this file (test/house/layers.unit.test.ts).
export { CURRENT_KEY_VERSION, deriveChipKey, deriveChipKeys, teamMetaReadKey } from './derive.js';
export { modeMaster, type MastersState } from './masters.js';

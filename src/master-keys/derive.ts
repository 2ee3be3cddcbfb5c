// Chip keys derived from a mode's master key (docs/decisions.md §4). Pure functions.
// Each key role has its own AES-128 sub-master (HMAC-SHA256 of the master with
// the role and version), diversified per chip UID with NXP AN10922 — the scheme
// AN12196 §6.16 recommends, so one chip's keys reveal nothing about another's.
// The SDM meta read key cannot depend on the UID (the verifier needs it to learn
// the UID), so it is per team and mode instead.
import { createHmac } from 'node:crypto';
import { diversifyAn10922, NDEF_APPLICATION_DF_NAME } from '../chips/index.js';

const SYSTEM_ID = Buffer.from('tapproof', 'latin1');

export const CURRENT_KEY_VERSION = 1;

function subMaster(master: Uint8Array, label: string): Buffer {
  return createHmac('sha256', master).update(label).digest().subarray(0, 16);
}

export interface DerivedChipKeys {
  /** Key 0 of the NDEF application (for the writer). */
  appMasterKey: Buffer;
  /** KSDMFileRead (424 DNA), or the SUN CMAC key (223 DNA). */
  sdmFileReadKey: Buffer;
  /**
   * Keys 3 and 4 of the NDEF application: no SUN uses them, but left at the factory key they would
   * grant anyone every access right that names them (the proprietary file's write, by default).
   */
  appKey3: Buffer;
  appKey4: Buffer;
}

/** Each per-chip key's sub-master label; written chips hold keys derived from these exact strings. */
const CHIP_KEY_LABELS: Record<keyof DerivedChipKeys, string> = {
  appMasterKey: 'chip app master key',
  sdmFileReadKey: 'chip sdm file read key',
  appKey3: 'chip app key 3',
  appKey4: 'chip app key 4',
};

/** One per-chip key, for a caller that needs no other (a scan needs only the file read key). */
export function deriveChipKey(master: Uint8Array, uidHex: string, role: keyof DerivedChipKeys, version: number): Buffer {
  // The NDEF application's DF name is part of the AN10922 input, as in AN12196.
  const m = Buffer.concat([Buffer.from(uidHex, 'hex'), NDEF_APPLICATION_DF_NAME, SYSTEM_ID]);
  return diversifyAn10922(subMaster(master, `${CHIP_KEY_LABELS[role]} v${version}`), m);
}

export function deriveChipKeys(master: Uint8Array, uidHex: string, version: number): DerivedChipKeys {
  const key = (role: keyof DerivedChipKeys) => deriveChipKey(master, uidHex, role, version);
  return { appMasterKey: key('appMasterKey'), sdmFileReadKey: key('sdmFileReadKey'), appKey3: key('appKey3'), appKey4: key('appKey4') };
}

export function teamMetaReadKey(master: Uint8Array, teamId: string, version: number): Buffer {
  return subMaster(master, `team sdm meta read key v${version} ${teamId}`);
}

// A scanned URL's SUN message checked with a given set of a chip's SDM keys. Pure: the verification
// picks the keys (the committed ones, and for a chip whose rekey is under way the pending ones), and
// the writer checks the URL a rekeyed chip reads back with the keys it was given.
import { verifySun223, verifySun424, type SunVerdict } from '../chips/index.js';
import type { SdmValues } from '../chips/url-layout.js';
import type { SdmKeys } from './keys.js';
import type { ChipRow } from './repository.js';

export function sunVerdict(chip: Pick<ChipRow, 'mirroring' | 'crypto'>, keys: SdmKeys, tt: boolean, sdm: SdmValues): SunVerdict {
  if (chip.mirroring === 'sun') return verifySun223({ key: keys.sdmFileReadKey, sun: sdm.values.sun! });
  const v = sdm.values;
  return verifySun424({
    crypto: chip.crypto,
    sdmMetaReadKey: keys.sdmMetaReadKey,
    sdmFileReadKey: keys.sdmFileReadKey,
    ...(v.picc_data !== undefined ? { piccData: v.picc_data } : {}),
    ...(v.uid !== undefined ? { uid: v.uid, ctr: v.ctr! } : {}),
    ...(v.enc !== undefined ? { enc: v.enc } : {}),
    cmac: v.cmac!,
    macInput: sdm.macInput,
    expectTamper: tt,
  });
}

/** The verdict proves the message is this chip's: authentic, and mirroring the UID bound to the tag (when it mirrors one). */
export const isChipsMessage = (verdict: SunVerdict, chip: Pick<ChipRow, 'uid'>): boolean =>
  verdict.ok && (verdict.uid === undefined || verdict.uid === chip.uid);

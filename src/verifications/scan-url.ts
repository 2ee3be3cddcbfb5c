// Splitting a scanned URL into the tag's url and the SDM parameters the chip
// appended to it (`?` or `&`, docs/decisions.md §4). Pure.
import { isHex, parseSun223 } from '../chips/index.js';
import type { SdmValues } from '../chips/url-layout.js';

/**
 * The most SDM parameters a chip appends after the tag's url. An NTAG 424 DNA
 * mirrors at most picc_data/uid/ctr, enc and cmac (NTAG 223 DNA: one sun), so 8
 * leaves room for imported layouts; it bounds the lookup a crafted URL can cause
 * (3 KB of `&` would make ~3,000 candidate urls; docs/hardening.md).
 */
export const MAX_SDM_PARAMETERS = 8;

/**
 * Every url the scan could have been made from: the text before each of the last
 * MAX_SDM_PARAMETERS `?` or `&` (the chip's parameters come last; earlier ones
 * belong to the tag's own url). Parameter names may be anything an imported chip
 * was written with, so the candidate urls, not the names, find the tag.
 */
export function candidateTagUrls(scanned: string): { url: string; sdmStart: number }[] {
  const out: { url: string; sdmStart: number }[] = [];
  for (let i = scanned.length - 2; i >= 1 && out.length < MAX_SDM_PARAMETERS; i--) {
    const c = scanned.charCodeAt(i);
    if (c === 0x3f /* ? */ || c === 0x26 /* & */) out.push({ url: scanned.slice(0, i), sdmStart: i + 1 });
  }
  return out.reverse();
}

/** Why the SDM values are not what the chip could have mirrored, or null when their shape is right. */
export function sdmShapeProblem(mirroring: 'encrypted' | 'plain' | 'sun', crypto: 'aes' | 'lrp', { values }: SdmValues): string | null {
  if (mirroring === 'sun') return parseSun223(values.sun) === null ? 'the sun parameter is not UID x counter x MAC in hex' : null;
  if (mirroring === 'encrypted' && !isHex(values.picc_data, crypto === 'lrp' ? 48 : 32))
    return `picc_data must be ${crypto === 'lrp' ? 48 : 32} hex characters`;
  if (mirroring === 'plain' && !(isHex(values.uid, 14) && isHex(values.ctr, 6))) return 'uid must be 14 and ctr 6 hex characters';
  if (
    values.enc !== undefined &&
    !(values.enc.length > 0 && values.enc.length % 32 === 0 && values.enc.length <= 256 && isHex(values.enc, values.enc.length))
  ) {
    return 'enc must be hex in blocks of 32 characters';
  }
  if (!isHex(values.cmac, 16)) return 'cmac must be 16 hex characters';
  return null;
}

// The URL a chip opens at a given counter, from its keys and layout: what the
// emulator's taps and `tapproof tags tap` print, so that a backend can be tested
// without hardware (docs/chips.md, "Taps without hardware").
import { generateSun223, generateSun424, type TamperState } from '../chips/index.js';
import type { Kernel } from '../kernel.js';
import type { MastersState } from '../master-keys/index.js';
import { refusal } from '../errors.js';
import type { World } from '../world.js';
import { sdmKeysOf, type SdmKeys } from './keys.js';
import { appendSdm, storedLayout, type Params } from '../chips/url-layout.js';
import * as chipsRepo from './repository.js';

export interface TapSource {
  url: string;
  uid: string;
  crypto: 'aes' | 'lrp';
  mirroring: string;
  params: string;
  mac_input_from: string | null;
}

/** The largest SDMReadCtr: the chip's counter is 24 bits. */
export const MAX_COUNTER = 0xffffff;

/** The URL `chip` opens at `counter` (after that tap's increment), SUN message included. Pure. */
export function sunUrl(chip: TapSource, keys: SdmKeys, counter: number, tamper?: { permanent: TamperState; current: TamperState }): string {
  if (!Number.isInteger(counter) || counter < 0 || counter > MAX_COUNTER)
    throw refusal(`the counter must be a whole number from 0 to ${MAX_COUNTER} (24 bits)`);
  const layout = storedLayout(chip as Parameters<typeof storedLayout>[0]);
  const uid = Buffer.from(chip.uid, 'hex');
  if (layout.mirroring === 'sun') return appendSdm(chip.url, layout, { sun: generateSun223({ key: keys.sdmFileReadKey, uid, counter }) });
  const roleValues = (v: { piccData?: string; uid?: string; ctr?: string; enc?: string }): Params => ({
    picc_data: v.piccData,
    uid: v.uid,
    ctr: v.ctr,
    enc: v.enc,
  });
  const sun = generateSun424({
    crypto: chip.crypto,
    uid,
    counter,
    sdmMetaReadKey: keys.sdmMetaReadKey,
    sdmFileReadKey: keys.sdmFileReadKey,
    ...(tamper ? { tamper } : {}),
    // The MAC covers the URL text from the value of the layout's first covered parameter up to the
    // MAC value, which appendSdm always writes last.
    macInput: (v) => {
      const from = layout.macInputFrom;
      if (from === null) return '';
      const text = appendSdm(chip.url, layout, { ...roleValues(v), cmac: '' });
      const start = text.lastIndexOf(`${layout.params[from]}=${roleValues(v)[from]}`);
      return text.slice(start + layout.params[from]!.length + 1);
    },
  });
  return appendSdm(chip.url, layout, { ...roleValues(sun), cmac: sun.cmac });
}

/**
 * The URL the chip of `tagId` (written, imported or emulated) opens at `counter`. A TagTamper chip
 * reports its loop closed. Nothing is stored: verifying the URL is what advances the chip.
 */
export async function tapAt(ctx: Kernel & MastersState, world: World, tagId: string, counter: number): Promise<string> {
  const found = await chipsRepo.findTagChip(ctx.db.kysely, world, tagId);
  if (!found) throw refusal(`tag ${tagId} has no chip in this team and mode (create it with the writer, tags import or the emulator)`);
  const keys = await sdmKeysOf(ctx, found.chip);
  const tamper = found.chip.protocol === 'ntag_424_dna_tag_tamper' ? { permanent: 'closed' as const, current: 'closed' as const } : undefined;
  return sunUrl({ ...found.chip, url: found.url }, keys, counter, tamper);
}

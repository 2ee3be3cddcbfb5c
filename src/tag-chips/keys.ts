// The SDM keys of a chip, for verification and for the emulator. Derived keys
// are recomputed from the mode's master; imported ones are sealed at rest
// (AES-256-GCM, src/secrets) and opened here. Keys stay inside the process:
// no API response, log line or error message carries them.
import { deriveChipKeys, teamMetaReadKey } from '../master-keys/derive.js';
import { modeMaster, type MastersState } from '../master-keys/masters.js';
import { BoundedCache } from '../bounded-cache.js';
import type { Kernel } from '../kernel.js';
import type { Mode } from '../db/schema.js';
import { sealer, type Sealer } from '../secrets/index.js';
import type { ChipRow } from './repository.js';

export interface SdmKeys {
  /** null: plain UID/counter mirroring (no meta read key). */
  sdmMetaReadKey: Buffer | null;
  /** KSDMFileRead, or the NTAG 223 DNA SUN CMAC key. */
  sdmFileReadKey: Buffer;
}

const PURPOSE = 'chip-keys';

export async function chipSealer(ctx: Kernel & MastersState, mode: Mode): Promise<Sealer> {
  return sealer(await modeMaster(ctx, mode), PURPOSE);
}

// Opening and deriving cost a few AES blocks; a scan path under load asks for
// the same chips again and again. Bounded, and keyed by everything that changes keys.
const cache = new BoundedCache<string, SdmKeys>(100_000);

export async function sdmKeysOf(ctx: Kernel & MastersState, chip: ChipRow): Promise<SdmKeys> {
  const cacheKey = `${chip.tag_id}/${chip.write_generation}/${chip.key_version}/${chip.key_source}`;
  const hit = cache.get(cacheKey);
  if (hit) return hit;
  const master = await modeMaster(ctx, chip.mode);
  let keys: SdmKeys;
  if (chip.key_source === 'derived') {
    keys = {
      sdmMetaReadKey: chip.mirroring === 'encrypted' ? teamMetaReadKey(master, chip.team_id, chip.key_version) : null,
      sdmFileReadKey: deriveChipKeys(master, chip.uid, chip.key_version).sdmFileReadKey,
    };
  } else {
    const box = sealer(master, PURPOSE);
    keys = {
      sdmMetaReadKey: chip.sdm_meta_read_key_sealed === null ? null : Buffer.from(box.open(chip.sdm_meta_read_key_sealed), 'hex'),
      sdmFileReadKey: Buffer.from(box.open(chip.sdm_file_read_key_sealed!), 'hex'),
    };
  }
  cache.set(cacheKey, keys);
  return keys;
}

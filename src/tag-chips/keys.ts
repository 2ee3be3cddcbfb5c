// The SDM keys of a chip, for verification and for the emulator. Derived keys
// are recomputed from the mode's master; imported ones are sealed at rest
// (AES-256-GCM, src/secrets) and opened here. Keys stay inside the process:
// no API response, log line or error message carries them.
import { deriveChipKey, deriveChipKeys, teamMetaReadKey } from '../master-keys/index.js';
import type { MastersState } from '../master-keys/index.js';
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

/** Seals imported chip keys under the mode's current master generation, which their rows record. */
export async function chipSealer(ctx: Kernel & MastersState, mode: Mode): Promise<Sealer & { generation: number }> {
  const { generation, key } = await ctx.masters.current(mode);
  return { ...sealer(key, PURPOSE), generation };
}

// Opening and deriving cost a few AES blocks; a scan path under load asks for
// the same chips again and again. Bounded, and keyed by everything that changes keys.
const cache = new BoundedCache<string, SdmKeys>(100_000);

export function sdmKeysOf(ctx: Kernel & MastersState, chip: ChipRow): SdmKeys | Promise<SdmKeys> {
  const cacheKey = `${chip.tag_id}/${chip.write_generation}/${chip.key_version}/${chip.key_source}/${chip.master_generation}`;
  // A chip's keys, once known, are answered in the same turn (no promise on the scan path).
  return cache.get(cacheKey) ?? openSdmKeys(ctx, chip, cacheKey);
}

async function openSdmKeys(ctx: Kernel & MastersState, chip: ChipRow, cacheKey: string): Promise<SdmKeys> {
  let keys: SdmKeys;
  if (chip.key_source === 'derived') {
    // The generation the chip was written under, whichever is current now.
    const master = await ctx.masters.generation(chip.mode, chip.master_generation);
    keys = {
      sdmMetaReadKey: chip.mirroring === 'encrypted' ? teamMetaReadKey(master, chip.team_id, chip.key_version) : null,
      sdmFileReadKey: deriveChipKey(master, chip.uid, 'sdmFileReadKey', chip.key_version),
    };
  } else {
    // Opened under whichever live generation sealed them (a rewrap may have moved them meanwhile).
    const box = await ctx.masters.sealer(chip.mode, PURPOSE);
    keys = {
      sdmMetaReadKey: chip.sdm_meta_read_key_sealed === null ? null : Buffer.from(box.open(chip.sdm_meta_read_key_sealed), 'hex'),
      sdmFileReadKey: Buffer.from(box.open(chip.sdm_file_read_key_sealed!), 'hex'),
    };
  }
  cache.set(cacheKey, keys);
  return keys;
}

/** A master key and its generation. */
export interface RekeyMaster {
  generation: number;
  key: Buffer;
}

/**
 * The master a rekey derives a chip's new keys from, for the writer and for the verification of a chip
 * whose rekey is under way alike: `generation` when one is recorded, else the mode's current one.
 * The one place that picks it.
 */
export async function rekeyMaster(ctx: MastersState, mode: Mode, generation: number | null = null): Promise<RekeyMaster> {
  if (generation === null) return ctx.masters.current(mode);
  return { generation, key: await ctx.masters.generation(mode, generation) };
}

/**
 * A chip's application keys as the writer uses them; `appMaster` null when the server does not hold key 0,
 * `appKey3`/`appKey4` null when it does not hold them (an import carries keys 0 to 2 only).
 */
export interface ApplicationKeys {
  appMaster: Buffer | null;
  sdmMetaRead: Buffer | null;
  sdmFileRead: Buffer;
  appKey3: Buffer | null;
  appKey4: Buffer | null;
  version: number;
}

/** The keys tapproof derives for a chip at `version`: keys 0, 2, 3 and 4 per UID, the meta read key per team. */
export function derivedApplicationKeys(master: Buffer, teamId: string, uid: string, version: number) {
  const k = deriveChipKeys(master, uid, version);
  return {
    appMaster: k.appMasterKey,
    sdmMetaRead: teamMetaReadKey(master, teamId, version),
    sdmFileRead: k.sdmFileReadKey,
    appKey3: k.appKey3,
    appKey4: k.appKey4,
    version,
  };
}

/** The keys the chip holds as its row says (derived, or imported and opened), for a rekey to change them. */
export async function committedApplicationKeys(ctx: Kernel & MastersState, chip: ChipRow): Promise<ApplicationKeys> {
  if (chip.key_source === 'derived')
    return derivedApplicationKeys(await ctx.masters.generation(chip.mode, chip.master_generation), chip.team_id, chip.uid, chip.key_version);
  const box = await ctx.masters.sealer(chip.mode, PURPOSE);
  const open = (sealed: string | null) => (sealed === null ? null : Buffer.from(box.open(sealed), 'hex'));
  return {
    appMaster: open(chip.app_master_key_sealed),
    sdmMetaRead: open(chip.sdm_meta_read_key_sealed),
    sdmFileRead: open(chip.sdm_file_read_key_sealed)!,
    appKey3: null,
    appKey4: null,
    version: chip.key_version,
  };
}

/**
 * The SDM keys a rekey under way moves the chip to, or null when none runs. Only such a chip pays for
 * them, and only once its committed keys did not verify a scan.
 */
export async function pendingSdmKeysOf(ctx: Kernel & MastersState, chip: ChipRow): Promise<SdmKeys | null> {
  const version = chip.pending_key_version;
  if (version === null) return null;
  const cacheKey = `${chip.tag_id}/${chip.write_generation}/pending ${chip.pending_master_generation} ${version}`;
  const hit = cache.get(cacheKey);
  if (hit) return hit;
  const master = await rekeyMaster(ctx, chip.mode, chip.pending_master_generation);
  const k = derivedApplicationKeys(master.key, chip.team_id, chip.uid, version);
  const keys = { sdmMetaReadKey: chip.mirroring === 'encrypted' ? k.sdmMetaRead : null, sdmFileReadKey: k.sdmFileRead };
  cache.set(cacheKey, keys);
  return keys;
}

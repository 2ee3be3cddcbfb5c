// The service side of a rekey (rekey-steps.ts holds its steps): what the steps are given of the tag's chip,
// the pending keys recorded with the batch that changes them, and the commit. service.ts runs a rekey
// like any write (one row in writer_sessions, round trips claimed by conditional updates).
import { EMULATOR_ORIGINALITY_KEY, NTAG424_ORIGINALITY_KEY } from '../chips/index.js';
import type { Config } from '../config.js';
import type { Mode } from '../db/schema.js';
import { readSdmPart, storedLayout } from '../chips/url-layout.js';
import type { Executor } from '../db/database.js';
import { DomainError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import type { MastersState } from '../master-keys/index.js';
import { committedApplicationKeys, derivedApplicationKeys, rekeyMaster } from '../tag-chips/index.js';
import * as chipsRepo from '../tag-chips/index.js';
import type { ChipRow } from '../tag-chips/index.js';
import { isChipsMessage, sunVerdict } from '../tag-chips/index.js';
import { recordTagEvents } from '../tags/index.js';
import * as tagsRepo from '../tags/index.js';
import type { Protocol } from '../tags/index.js';
import { sdmShapeProblem } from '../verifications/index.js';
import type { World } from '../world.js';
import { startRekey, type RekeyEnv, type RekeyResult } from './rekey-steps.js';
import type { ChipKeys } from './steps.js';

/** The chip bound to a configured tag of the world (a configured tag always has one). */
async function boundChip(db: Executor, world: World, tagId: string): Promise<ChipRow> {
  const found = await chipsRepo.findTagChip(db, world, tagId);
  if (!found) throw new DomainError('NotFound');
  return found.chip;
}

/** The first batch of a rekey of `tag`, or its refusal before any APDU. */
export async function firstRekeyBatch(ctx: Kernel & MastersState, db: Executor, world: World, tag: { id: string; protocol: string }): Promise<RekeyResult> {
  const chip = await boundChip(db, world, tag.id);
  return startRekey(tag.protocol as Protocol, await committedApplicationKeys(ctx, chip));
}

/** Why `scanned`, read back from the chip, is not its SUN message under `keys` in the chip's layout; null when it is. */
function readbackProblem(chip: ChipRow, tag: { url: string; protocol: string }, scanned: string, keys: ChipKeys): string | null {
  const separator = scanned[tag.url.length];
  if (!scanned.startsWith(tag.url) || (separator !== '?' && separator !== '&')) return "the URL does not start with the tag's url";
  const sdm = readSdmPart(storedLayout(chip), scanned, tag.url.length + 1);
  if (sdm === null) return "its SDM parameters are not the ones the tag's chip writes";
  const shape = sdmShapeProblem(chip.mirroring, chip.crypto, sdm);
  if (shape !== null) return shape;
  const sdmKeys = { sdmMetaReadKey: chip.mirroring === 'encrypted' ? keys.sdmMetaRead : null, sdmFileReadKey: keys.sdmFileRead };
  const verdict = sunVerdict(chip, sdmKeys, tag.protocol === 'ntag_424_dna_tag_tamper', sdm);
  if (isChipsMessage(verdict, chip)) return null;
  return verdict.ok ? `it mirrors UID ${verdict.uid}` : verdict.reason;
}

/**
 * Whose originality signature a chip of `mode` must carry. Sandbox chips are the emulator's, signed with its key;
 * production accepts NXP silicon only, except on a rehearsal deployment (TAPPROOF_REHEARSAL), whose production
 * chips are emulated (docs/operations.md, Rehearsing a rotation).
 */
export function originalityKeyOf(config: Pick<Config, 'rehearsal'>, mode: Mode): Uint8Array {
  return mode === 'sandbox' || config.rehearsal ? EMULATOR_ORIGINALITY_KEY : NTAG424_ORIGINALITY_KEY;
}

/** What the rekey steps of `tag` are given, and the master generation the new keys come from. */
export async function rekeyEnv(
  ctx: Kernel & MastersState,
  world: World,
  tag: { id: string; protocol: string; url: string },
): Promise<{ env: RekeyEnv; generation: number | null }> {
  const chip = await boundChip(ctx.db.kysely, world, tag.id);
  const master = await rekeyMaster(ctx, chip.mode, chip.pending_master_generation);
  const env: RekeyEnv = {
    protocol: tag.protocol as Protocol,
    originalityKey: originalityKeyOf(ctx.config, world.mode),
    uid: chip.uid,
    committed: await committedApplicationKeys(ctx, chip),
    pendingVersion: chip.pending_key_version,
    keysAt: (version) => derivedApplicationKeys(master.key, chip.team_id, chip.uid, version),
    readbackProblem: (scanned, keys) => readbackProblem(chip, tag, scanned, keys),
  };
  return { env, generation: master.generation };
}

/** Recorded with the claim of the round trip that hands out the batch with the first ChangeKey (same transaction). */
export async function recordPending(trx: Executor, tagId: string, version: number, generation: number | null): Promise<void> {
  // One write runs per tag, so only a rekey cut before this one could have recorded other keys: it is this one's rerun.
  if (!(await chipsRepo.recordPendingKeys(trx, tagId, version, generation))) throw new DomainError('WriteEnded');
}

/**
 * The chip holds the new keys and read back a SUN under them: they become its keys, and tag.rekeyed (opt-in)
 * is recorded, in the transaction that closes the write. False when the chip has no such pending keys.
 */
export async function commitRekey(
  trx: Executor,
  world: World,
  write: { id: string; tag_id: string },
  version: number,
  generation: number | null,
  at: number,
): Promise<boolean> {
  if (!(await chipsRepo.commitPendingKeys(trx, write.tag_id, version, generation))) return false;
  const tag = await tagsRepo.findTag(trx, world, write.tag_id);
  if (tag) await recordTagEvents(trx, 'tag.rekeyed', [tag], at, { write_id: write.id });
  return true;
}

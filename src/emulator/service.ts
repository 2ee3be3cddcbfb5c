// The software chip behind sandbox tags (docs/decisions.md §4): an emulated NTAG 424 DNA,
// 424 DNA TagTamper or NTAG 223 DNA with keys derived like a written chip's,
// whose taps produce the URL a phone would open. Sandbox only.
import { randomBytes } from 'node:crypto';
import { CURRENT_KEY_VERSION, deriveChipKey, teamMetaReadKey } from '../master-keys/index.js';
import type { MastersState } from '../master-keys/index.js';
import type { TamperState } from '../chips/index.js';
import type { Kernel } from '../kernel.js';
import { refusal, validationFailed } from '../errors.js';
import * as teamsRepo from '../teams/index.js';
import type { Actor, Caller } from '../world.js';
import { recordAudit } from '../audit/index.js';
import { checkAttributes, type Protocol } from '../tags/index.js';
import { insertCheckedTags, markConfigured } from '../tags/index.js';
import { defaultLayout } from '../chips/url-layout.js';
import { sunUrl } from '../tag-chips/index.js';
import * as chipsRepo from '../tag-chips/index.js';

export interface EmulatedChipSpec {
  teamId: string;
  url: string;
  protocol: string;
  crypto?: 'aes' | 'lrp';
  comment?: string;
  sessionDuration?: number;
  /** Who asks for it, for the audit log. */
  actor: Actor;
}

/** Makes an emulated chip with derived keys and its configured sandbox tag; returns the tag id. */
export async function createEmulatedChip(ctx: Kernel & MastersState, spec: EmulatedChipSpec): Promise<{ id: string; uid: string }> {
  const world: Caller = { teamId: spec.teamId, mode: 'sandbox', actor: spec.actor };
  if (!(await teamsRepo.findTeam(ctx.db.kysely, spec.teamId))) throw refusal(`no team ${spec.teamId}`);
  const attributes: Record<string, unknown> = { protocol: spec.protocol, url: spec.url };
  if (spec.comment !== undefined) attributes.comment = spec.comment;
  if (spec.sessionDuration !== undefined) attributes.session_duration = spec.sessionDuration;
  const problems = checkAttributes(attributes, ['protocol', 'url', 'comment', 'session_duration']);
  if (problems.length > 0) throw validationFailed(problems);
  const protocol = spec.protocol as Protocol;
  const crypto = spec.crypto ?? 'aes';
  if (crypto !== 'aes' && crypto !== 'lrp') throw refusal('crypto must be aes or lrp');
  if (protocol === 'ntag_223_dna' && crypto !== 'aes') throw refusal('an NTAG 223 DNA uses aes only');
  // NXP UIDs start with the manufacturer code 04.
  const uid = Buffer.concat([Buffer.from([0x04]), randomBytes(6)])
    .toString('hex')
    .toUpperCase();
  const layout = defaultLayout(protocol);
  const tt = protocol === 'ntag_424_dna_tag_tamper';
  // The chip's keys come from the current sandbox generation (derived at each tap from the one recorded).
  const { generation } = await ctx.masters.current('sandbox');
  return ctx.db.kysely.transaction().execute(async (trx) => {
    const [tag] = await insertCheckedTags(trx, world, [attributes], ctx.clock);
    const at = ctx.clock.nowMicros();
    await chipsRepo.insertChips(trx, [
      chipsRepo.chipRow(world, tag!, { uid, crypto, layout, keySource: 'derived', keyVersion: CURRENT_KEY_VERSION, masterGeneration: generation }, at),
    ]);
    await chipsRepo.insertEmulatedChip(trx, { tag_id: tag!.id, counter: 0, tamper_permanent: tt ? 'closed' : null, tamper_current: tt ? 'closed' : null });
    await markConfigured(trx, world, tag!.id, ctx.clock);
    await recordAudit(trx, world, at, [
      {
        operation: 'tag.emulate',
        resourceId: tag!.id,
        changes: { protocol, url: tag!.url, comment: tag!.comment, session_duration: tag!.session_duration, uid, crypto },
      },
    ]);
    return { id: tag!.id, uid };
  });
}

async function emulatedChip(ctx: Kernel & MastersState, tagId: string) {
  const chip = await chipsRepo.findEmulatedChip(ctx.db.kysely, tagId);
  if (!chip || chip.mode !== 'sandbox') throw refusal(`no emulated sandbox chip for tag ${tagId}`);
  return chip;
}

/** One tap: the counter goes up and the chip mirrors its SUN message into the URL. */
export async function tap(ctx: Kernel & MastersState, tagId: string): Promise<{ url: string; counter: number }> {
  const chip = await emulatedChip(ctx, tagId);
  const counter = await chipsRepo.incrementEmulatedCounter(ctx.db.kysely, tagId);
  if (counter === undefined) throw refusal(`no emulated sandbox chip for tag ${tagId}`);
  if (counter > 0xffffff) throw refusal('the chip counter is exhausted (24 bits)');
  const master = await ctx.masters.generation('sandbox', chip.master_generation);
  const keys = {
    sdmMetaReadKey: chip.mirroring === 'sun' ? null : teamMetaReadKey(master, chip.team_id, chip.key_version),
    sdmFileReadKey: deriveChipKey(master, chip.uid, 'sdmFileReadKey', chip.key_version),
  };
  const tamper = chip.tamper_permanent === null ? undefined : { permanent: chip.tamper_permanent as TamperState, current: chip.tamper_current as TamperState };
  return { url: sunUrl(chip, keys, counter, tamper), counter };
}

/** TagTamper loop: opening latches the permanent status; closing restores only the current one. */
export async function setTamper(
  ctx: Kernel & MastersState,
  tagId: string,
  state: 'open' | 'closed',
): Promise<{ permanent: TamperState; current: TamperState }> {
  const chip = await emulatedChip(ctx, tagId);
  if (chip.protocol !== 'ntag_424_dna_tag_tamper' || chip.tamper_permanent === null) {
    throw refusal(`tag ${tagId} is not an NTAG 424 DNA TagTamper chip`);
  }
  const permanent = (state === 'open' ? 'open' : chip.tamper_permanent) as TamperState;
  await chipsRepo.setEmulatedTamper(ctx.db.kysely, tagId, permanent, state);
  return { permanent, current: state };
}

// `tapproof tags import`: chips written elsewhere (docs/api.md#importing-chips),
// entry format of docs/decisions.md §4. The whole file is checked before anything is
// written; one bad entry and nothing is imported. Imported tags are configured
// at once: tag.created then tag.configured, in one transaction with the chips.
import type { Executor } from '../db/database.js';
import type { Kernel } from '../kernel.js';
import type { MastersState } from '../master-keys/index.js';
import { DomainError, problem, type FieldProblem } from '../errors.js';
import * as teamsRepo from '../teams/index.js';
import type { Caller, World } from '../world.js';
import { recordAudit } from '../audit/index.js';
import { CREATABLE, checkAttributes, type Protocol } from '../tags/index.js';
import { insertCheckedTags, markConfigured } from '../tags/index.js';
import { chipSealer } from './keys.js';
import { defaultLayout, ROLES, type ChipLayout, type Mirroring, type Params, type Role } from '../chips/url-layout.js';
import * as chipsRepo from './repository.js';
import { isObject } from '../json.js';

/**
 * The import's refusal (a domain error like any other): nothing was written. Entries are
 * named as a person counts them, the first being entry 1 (checks number them from 0).
 */
export class ChipImportServiceError extends DomainError {
  constructor(fields: readonly FieldProblem[]) {
    super(
      'ValidationFailed',
      fields.map((f) => (f.index === undefined ? f : { ...f, index: f.index + 1 })),
      'nothing imported',
    );
    // Said on the line itself: a reader who counts from 0 would otherwise look at the wrong entry.
    if (fields.some((f) => f.index !== undefined)) this.message += ' (entries are counted from 1)';
  }
}

/**
 * Fields of an import entry that another feature owns, checked and written with the chips: the extension's
 * catalog links (`product`, `token`: docs/decisions.md §7). That feature contributes them to the context
 * (`chipImportFields`), so chips know nothing of a catalog.
 */
export interface ImportedFields<Plan = unknown> {
  names: readonly string[];
  /** The entry's problems as `[field, detail]` like the import's own checks, and what to write. */
  check(entry: Record<string, unknown>): { problems: [string, string][]; plan: Plan };
  /** Problems with what the plans reference (another world's or an unknown id), per entry; before any write. */
  referenceProblems(db: Executor, world: World, plans: Plan[]): Promise<FieldProblem[]>;
  /** Writes the plans for the imported tags (same order), in the import's transaction; `at` is the import's moment. */
  apply(db: Executor, world: World, tagIds: string[], plans: Plan[], at: number): Promise<void>;
}

export interface ChipImportState {
  chipImportFields: ImportedFields;
}

const CHIP_FIELDS = [
  'url',
  'protocol',
  'uid',
  'comment',
  'session_duration',
  'crypto',
  'sdm_meta_read_key',
  'sdm_file_read_key',
  'app_master_key',
  'params',
  'mac_input_from',
  'last_counter',
];
const MAX_COUNTER = 0xffffff;
const isKeyHex = (v: unknown) => typeof v === 'string' && /^[0-9A-Fa-f]{32}$/.test(v);

interface CheckedEntry {
  tag: Record<string, unknown>;
  uid: string;
  crypto: 'aes' | 'lrp';
  layout: ChipLayout;
  metaKey: string | null;
  fileKey: string;
  /** Application key 0, when given: the chip can then be rekeyed by the writer. */
  appKey: string | null;
  lastCounter: number | null;
  /** What the fields of another feature will write (ImportedFields). */
  plan: unknown;
}

/** Checks one entry; returns its problems as `field: detail`, or the entry ready to import. */
function checkEntry(entry: unknown, imported: ImportedFields): { problems: [string, string][]; checked?: CheckedEntry } {
  const problems: [string, string][] = [];
  if (!isObject(entry)) return { problems: [['', 'must be an object']] };
  for (const name of Object.keys(entry))
    if (!CHIP_FIELDS.includes(name) && !imported.names.includes(name)) problems.push([name, 'is not a field of an import entry']);
  for (const name of ['url', 'protocol', 'uid', 'sdm_file_read_key']) if (!(name in entry)) problems.push([name, 'is required']);
  const tag = Object.fromEntries(CREATABLE.filter((n) => n in entry).map((n) => [n, entry[n]]));
  for (const e of checkAttributes(tag, CREATABLE)) problems.push([e.path, e.detail]);
  const protocol = entry.protocol as Protocol;
  const is223 = protocol === 'ntag_223_dna';

  if ('uid' in entry && !(typeof entry.uid === 'string' && /^[0-9A-Fa-f]{14}$/.test(entry.uid)))
    problems.push(['uid', 'must be 14 hex characters (a 7-byte UID)']);
  const crypto = entry.crypto ?? 'aes';
  if (crypto !== 'aes' && crypto !== 'lrp') problems.push(['crypto', 'must be aes or lrp']);
  else if (is223 && crypto !== 'aes') problems.push(['crypto', 'must be aes for ntag_223_dna']);
  if ('sdm_file_read_key' in entry && !isKeyHex(entry.sdm_file_read_key)) problems.push(['sdm_file_read_key', 'must be 32 hex characters (an AES-128 key)']);
  const meta = entry.sdm_meta_read_key;
  if (is223) {
    if (meta !== undefined && meta !== null) problems.push(['sdm_meta_read_key', 'must be absent or null for ntag_223_dna']);
  } else if (meta === undefined) {
    problems.push(['sdm_meta_read_key', 'is required: 32 hex characters, or null for plain UID/counter mirroring']);
  } else if (meta !== null && !isKeyHex(meta)) {
    problems.push(['sdm_meta_read_key', 'must be 32 hex characters (an AES-128 key) or null']);
  }
  const appKey = entry.app_master_key ?? null;
  if (appKey !== null && !isKeyHex(appKey)) problems.push(['app_master_key', 'must be null or 32 hex characters (an AES-128 key)']);
  else if (appKey !== null && is223) problems.push(['app_master_key', 'must be absent or null for ntag_223_dna (the writer cannot rekey it)']);
  const lastCounter = entry.last_counter ?? null;
  if (lastCounter !== null && !(Number.isInteger(lastCounter) && (lastCounter as number) >= 0 && (lastCounter as number) <= MAX_COUNTER)) {
    problems.push(['last_counter', `must be null or an integer from 0 to ${MAX_COUNTER}`]);
  }

  const extra = imported.check(entry);
  problems.push(...extra.problems);

  const mirroring: Mirroring = is223 ? 'sun' : meta === null ? 'plain' : 'encrypted';
  const layout = checkLayout(entry, protocol, mirroring, problems);
  if (problems.length > 0 || layout === null) return { problems };
  return {
    problems,
    checked: {
      tag,
      uid: (entry.uid as string).toUpperCase(),
      crypto: crypto as 'aes' | 'lrp',
      layout,
      metaKey: meta === null || meta === undefined ? null : (meta as string).toUpperCase(),
      fileKey: (entry.sdm_file_read_key as string).toUpperCase(),
      appKey: appKey === null ? null : (appKey as string).toUpperCase(),
      lastCounter: lastCounter as number | null,
      plan: extra.plan,
    },
  };
}

function checkLayout(entry: Record<string, unknown>, protocol: Protocol, mirroring: Mirroring, problems: [string, string][]): ChipLayout | null {
  const tt = protocol === 'ntag_424_dna_tag_tamper';
  const { required, optional } = ROLES[mirroring];
  let params: Params;
  if (entry.params === undefined || entry.params === null) {
    params = mirroring === 'plain' ? { uid: 'uid', ctr: 'ctr', ...(tt ? { enc: 'enc' } : {}), cmac: 'cmac' } : { ...defaultLayout(protocol).params };
  } else if (!isObject(entry.params)) {
    problems.push(['params', 'must be an object of parameter names']);
    return null;
  } else {
    params = {};
    const seen = new Set<string>();
    for (const [role, name] of Object.entries(entry.params)) {
      if (![...required, ...optional].includes(role as Role)) {
        problems.push([
          `params.${role}`,
          `is not a parameter of ${mirroring === 'sun' ? 'NTAG 223 DNA' : mirroring} mirroring (expected ${[...required, ...optional].join(', ')})`,
        ]);
      } else if (typeof name !== 'string' || !/^[A-Za-z0-9._~-]{1,64}$/.test(name)) {
        problems.push([`params.${role}`, 'must be a parameter name of 1 to 64 letters, digits or . _ ~ -']);
      } else if (seen.has(name)) {
        problems.push([`params.${role}`, `repeats the parameter name "${name}"`]);
      } else {
        seen.add(name);
        params[role as Role] = name;
      }
    }
    for (const role of required) if (!(role in entry.params)) problems.push([`params.${role}`, 'is required']);
  }
  if (tt && params.enc === undefined)
    problems.push(['params.enc', 'is required for ntag_424_dna_tag_tamper (the tamper status is in the encrypted file data)']);
  let macInputFrom: Role | null;
  if (entry.mac_input_from === undefined) {
    macInputFrom = params.enc !== undefined ? 'enc' : null;
  } else if (entry.mac_input_from === null) {
    // The tamper status is only worth reporting when the MAC authenticates it (docs/decisions.md §4).
    if (tt) problems.push(['mac_input_from', 'must not be null for ntag_424_dna_tag_tamper: the MAC input has to cover the enc value (use "enc")']);
    macInputFrom = null;
  } else if (mirroring === 'sun') {
    problems.push(['mac_input_from', 'must be null for ntag_223_dna (its MAC covers UID and counter)']);
    return null;
  } else if (
    typeof entry.mac_input_from !== 'string' ||
    !['picc_data', 'enc', 'uid', 'ctr'].includes(entry.mac_input_from) ||
    params[entry.mac_input_from as Role] === undefined
  ) {
    problems.push([
      'mac_input_from',
      `must be null or one of the entry's parameter roles: ${Object.keys(params)
        .filter((r) => r !== 'cmac')
        .join(', ')}`,
    ]);
    return null;
  } else {
    macInputFrom = entry.mac_input_from as Role;
  }
  return { mirroring, params, macInputFrom };
}

/** Imports the chips of `entries` into a team's world; returns the created tag ids in file order. */
export async function importChips(ctx: Kernel & MastersState & ChipImportState, world: Caller, entries: unknown): Promise<string[]> {
  const refuse = (detail: string) => new ChipImportServiceError([problem('', detail)]);
  if (!Array.isArray(entries)) throw refuse('the file must hold a JSON array of entries');
  if (entries.length === 0) throw refuse('the file holds no entries');
  if (!(await teamsRepo.findTeam(ctx.db.kysely, world.teamId))) throw refuse(`no team ${world.teamId}`);
  const fields: FieldProblem[] = [];
  const checked: CheckedEntry[] = [];
  const firstOfUrl = new Map<string, number>();
  const firstOfUid = new Map<string, number>();
  entries.forEach((entry, index) => {
    const { problems, checked: ok } = checkEntry(entry, ctx.chipImportFields);
    for (const [field, detail] of problems) fields.push(problem(field, detail, index));
    if (!ok) return;
    const url = ok.tag.url as string;
    const first = firstOfUrl.get(url);
    if (first !== undefined) fields.push(problem('url', `is the same as in entry ${first + 1}`, index));
    else firstOfUrl.set(url, index);
    // One chip is one tag: a UID twice in the file would make two tags answer for one chip.
    const firstUid = firstOfUid.get(ok.uid);
    if (firstUid !== undefined) fields.push(problem('uid', `is the same as in entry ${firstUid + 1}`, index));
    else firstOfUid.set(ok.uid, index);
    checked.push(ok);
  });
  if (fields.length > 0) throw new ChipImportServiceError(fields);

  const box = await chipSealer(ctx, world.mode);
  return writeChecked(ctx, world, checked, box).catch((error: unknown) => {
    // A refusal from the tag checks (a url already used) is the import's refusal too.
    if (error instanceof DomainError && !(error instanceof ChipImportServiceError) && error.fields.length > 0) throw new ChipImportServiceError(error.fields);
    throw error;
  });
}

async function writeChecked(
  ctx: Kernel & MastersState & ChipImportState,
  world: Caller,
  checked: CheckedEntry[],
  box: Awaited<ReturnType<typeof chipSealer>>,
): Promise<string[]> {
  return ctx.db.kysely.transaction().execute(async (trx) => {
    const references = await ctx.chipImportFields.referenceProblems(
      trx,
      world,
      checked.map((c) => c.plan),
    );
    if (references.length > 0) throw new ChipImportServiceError(references);
    const tags = await insertCheckedTags(
      trx,
      world,
      checked.map((c) => c.tag),
      ctx.clock,
    );
    const at = ctx.clock.nowMicros();
    const chips = checked.map((c, i) =>
      chipsRepo.chipRow(
        world,
        tags[i]!,
        {
          uid: c.uid,
          crypto: c.crypto,
          layout: c.layout,
          keySource: 'imported',
          keyVersion: 1,
          sealedKeys: {
            meta: c.metaKey === null ? null : box.seal(c.metaKey),
            file: box.seal(c.fileKey),
            app: c.appKey === null ? null : box.seal(c.appKey),
          },
          lastCounter: c.lastCounter,
          masterGeneration: box.generation,
        },
        at,
      ),
    );
    await chipsRepo.insertChips(trx, chips);
    for (const tag of tags) await markConfigured(trx, world, tag.id, ctx.clock);
    await ctx.chipImportFields.apply(
      trx,
      world,
      tags.map((t) => t.id),
      checked.map((c) => c.plan),
      at,
    );
    await recordAudit(
      trx,
      world,
      at,
      tags.map((tag, i) => ({
        operation: 'tag.import',
        resourceId: tag.id,
        changes: { protocol: tag.protocol, url: tag.url, comment: tag.comment, uid: checked[i]!.uid, crypto: checked[i]!.crypto },
      })),
    );
    return tags.map((t) => t.id);
  });
}

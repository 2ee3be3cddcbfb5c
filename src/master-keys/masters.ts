// The per-deployment master keys every chip key descends from (docs/decisions.md §4), in numbered
// generations per mode (src/master-keys/generations.ts): the current generation derives every new
// chip's keys and seals every new secret; older live generations still derive and open what depends
// on them. Where a process's keys come from: src/master-keys/sources.ts.
//
// The first use of a mode records its key as generation 1. Long-running processes and chip-touching
// commands compare their keys with the recorded generations at start (verifyMasterKeys), so a process
// with a wrong key refuses to start with one line instead of failing scans. A running process follows
// rotations, rewraps and retirements of other processes (NOTIFY on PostgreSQL, a watched file on
// SQLite, src/db/change-feed.ts); without that feed it reads the generations again every few seconds.
import { ChangeFeed } from '../db/change-feed.js';
import type { Mode } from '../db/schema.js';
import type { Kernel } from '../kernel.js';
import { SealError, sealedKeyId, sealer, sealerKeyId, type Sealer } from '../secrets/index.js';
import { checkValue, currentOf, generationsFeed, listGenerations, recordGeneration, recordKeyIds, type Generation } from './generations.js';
import * as mastersRepo from './repository.js';
import { SEALED_TABLES } from './repository.js';
import { dependents, dependsOn } from './sealed.js';
import { heldKeys, MasterKeyError, sourceOf, whereToPut, type HeldKeys, type MasterContext } from './sources.js';

export { checkValue } from './generations.js';
export { MasterKeyError, PRODUCTION_KEY_FILE, productionKeyPath } from './sources.js';

/** The master keys of one process, for what derives chip keys and seals secrets. */
export interface MastersState {
  masters: MasterKeys;
}

const MODES: Mode[] = ['sandbox', 'production'];
/** Without the change feed, how long what was read of the generations is trusted (well within the 5 s a change must take to reach every process). */
const STALE_MS = 2_000;

/** A mode's generations as one process sees them, with the keys it holds. */
interface MasterView {
  mode: Mode;
  generations: Generation[];
  /** check value → key, for every key this process holds. */
  held: Map<string, Buffer>;
  /** `${purpose} ${key id}` → key, for the live generations this process holds. */
  byKeyId: Map<string, Buffer>;
  loadedAt: number;
}

function viewOf(mode: Mode, generations: Generation[], keys: HeldKeys, loadedAt: number): MasterView {
  const held = new Map(keys.all.map((k) => [checkValue(k), k]));
  const byKeyId = new Map<string, Buffer>();
  for (const g of generations) {
    const key = held.get(g.checkValue);
    if (!key || g.retired) continue;
    for (const { columns } of SEALED_TABLES) for (const { purpose } of columns) byKeyId.set(`${purpose} ${sealerKeyId(key, purpose)}`, key);
  }
  return { mode, generations, held, byKeyId, loadedAt };
}

const listed = (generations: Generation[]) =>
  generations.map((g) => `${g.generation} ${g.checkValue}${g.retired ? ' retired' : g === currentOf(generations) ? ' current' : ''}`).join(', ');

/** Production: the key TAPPROOF_MASTER_KEY (or the generated file) names must be a live generation; an older one only lacks the current. */
function checkOwnKey(ctx: MasterContext, mode: Mode, generations: Generation[], keys: HeldKeys): void {
  // The generated file holds every generation's key (a rotation appends to it): none of them is "its" current one.
  if (mode !== 'production' || keys.own === null || keys.generatedFile) return;
  const own = checkValue(keys.own);
  const current = currentOf(generations)!;
  const match = generations.find((g) => g.checkValue === own);
  if (match === undefined) {
    throw new MasterKeyError(
      `${sourceOf(ctx, mode)} does not match any ${mode} master key generation of this database (current generation ${current.generation}, check value ${current.checkValue}; this process has ${own}): ` +
        `start every process with the current master key, and the older live ones in TAPPROOF_PREVIOUS_MASTER_KEYS (generations: ${listed(generations)}; see docs/operations.md)`,
    );
  }
  if (match.retired) {
    throw new MasterKeyError(
      `${sourceOf(ctx, mode)} is the retired ${mode} master key generation ${match.generation} (check value ${own}): start every process with the current one (generation ${current.generation}, check value ${current.checkValue})`,
    );
  }
}

/** What an API client reads of a missing generation: its number and the variable, never a check value or path (those are the log's). */
function lackingDetail(mode: Mode, generation: number, current: boolean): string {
  const fix =
    mode === 'sandbox'
      ? 'restore the settings table'
      : current
        ? 'start it with that key in TAPPROOF_MASTER_KEY'
        : 'add that key to TAPPROOF_PREVIOUS_MASTER_KEYS';
  return `this needs the ${mode} master key generation ${generation}, which this server does not have: its operator must ${fix}; the server log says why`;
}

function lackingError(ctx: MasterContext, mode: Mode, g: Generation, current: boolean): MasterKeyError {
  const what = current ? `the current ${mode} master key generation ${g.generation}` : `${mode} master key generation ${g.generation}`;
  return new MasterKeyError(
    `this process does not have ${what} (check value ${g.checkValue}): ${whereToPut(ctx, mode, current)}`,
    lackingDetail(mode, g.generation, current),
  );
}

/** A database older than the check values: a value already sealed under another master shows this one is wrong. */
async function sealedUnderAnother(ctx: MasterContext, mode: Mode, master: Buffer): Promise<string | null> {
  for (const { table, columns } of SEALED_TABLES) {
    for (const column of columns) {
      const sealed = await mastersRepo.anySealedValue(ctx.db.kysely, table, column, mode);
      if (sealed && sealedKeyId(sealed.slice(column.prefix.length)) !== sealerKeyId(master, column.purpose)) return `${table}.${column.column}`;
    }
  }
  return null;
}

async function refuseForeignSealed(ctx: MasterContext, mode: Mode, own: Buffer): Promise<void> {
  const where = await sealedUnderAnother(ctx, mode, own);
  if (where !== null) {
    throw new MasterKeyError(
      `${sourceOf(ctx, mode)} is not the ${mode} master key this database's ${where} values were sealed under: start with the original key (see docs/operations.md)`,
    );
  }
}

/** The key that sealed `sealed`, among the live generations a view holds. */
function keyOf(view: MasterView, purpose: string, sealed: string): Buffer {
  const kid = sealedKeyId(sealed);
  const key = view.byKeyId.get(`${purpose} ${kid}`);
  if (!key) throw new SealError(`sealed with another master key (${kid}): no live ${view.mode} master key generation this process holds sealed it`);
  return key;
}

/** Each mode's master key generations as one process has them, read again whenever another process changes them. */
export class MasterKeys {
  /** Milliseconds; how old what was read may be without the change feed. Tests may set it. */
  clock: () => number = Date.now;
  private readonly entries = new Map<Mode, { loading: Promise<MasterView>; view: MasterView | null }>();
  private readonly latest = new Map<Mode, MasterView>();
  private readonly sealers = new Map<string, Sealer>();
  private readonly said = new Set<string>();
  private readonly feed: ChangeFeed;

  /** `changed` runs whenever another process changed the generations (caches of chip rows forget them). */
  constructor(
    private readonly kernel: MasterContext & Pick<Kernel, 'log'>,
    private readonly changed: () => void = () => {},
  ) {
    const reread = () => {
      this.entries.clear();
      this.changed();
      // At once, not at the next use: a process that now lacks the current generation says so.
      void this.lacking().catch(() => {});
    };
    this.feed = new ChangeFeed(kernel.db, generationsFeed(kernel.db), { changed: reread, reset: reread });
  }

  /** Starts following other processes' changes (PostgreSQL: LISTEN on `url`); returns the matching stop. */
  follow(url: string | null): () => Promise<void> {
    return this.feed.attach(url);
  }

  private fresh(view: MasterView): boolean {
    return this.feed.listening || this.feed.alone || this.clock() - view.loadedAt < STALE_MS;
  }

  private view(mode: Mode): Promise<MasterView> {
    const entry = this.entries.get(mode);
    if (entry && (entry.view === null || this.fresh(entry.view))) return entry.loading;
    const next = { loading: this.load(mode), view: null as MasterView | null };
    next.loading.then(
      (view) => (next.view = view),
      () => this.entries.get(mode) === next && this.entries.delete(mode),
    );
    this.entries.set(mode, next);
    return next.loading;
  }

  /** Reads the generations and this process's keys; the first use of a mode records its key as generation 1. */
  private async load(mode: Mode): Promise<MasterView> {
    const { db, clock } = this.kernel;
    const loadedAt = this.clock();
    let generations = await listGenerations(db.kysely, mode);
    const keys = await heldKeys(this.kernel, mode, generations.length === 0);
    if (keys.generatedFile && !this.said.has(keys.generatedFile.path)) {
      this.said.add(keys.generatedFile.path);
      process.stderr.write(
        `tapproof: WARNING: TAPPROOF_MASTER_KEY is not set; production chip keys descend from the master key ${keys.generatedFile.generated ? 'just generated in' : 'kept in'} ${keys.generatedFile.path}. ` +
          'Losing that file makes every production chip unverifiable. Set TAPPROOF_MASTER_KEY to its content (or your own 64 hex characters before any chip is written).\n',
      );
    }
    if (generations.length === 0) {
      await refuseForeignSealed(this.kernel, mode, keys.own!);
      // Several processes may use a mode for the first time together: the first insert wins.
      await recordGeneration(db.kysely, mode, 1, keys.own!, clock.nowMicros());
      generations = await listGenerations(db.kysely, mode);
    }
    checkOwnKey(this.kernel, mode, generations, keys);
    const view = viewOf(mode, generations, keys, loadedAt);
    for (const g of generations)
      if (g.keyIds === null && view.held.has(g.checkValue)) await recordKeyIds(db.kysely, mode, g.generation, view.held.get(g.checkValue)!);
    this.latest.set(mode, view);
    this.sayIfLacking(view);
    return view;
  }

  private sayIfLacking(view: MasterView): void {
    const current = currentOf(view.generations);
    if (!current || view.held.has(current.checkValue)) return;
    const line = `${view.mode} ${current.generation}`;
    if (this.said.has(line)) return;
    this.said.add(line);
    this.kernel.log.warn(
      { mode: view.mode, generation: current.generation, check_value: current.checkValue },
      `this process lacks the current ${view.mode} master key generation; it serves what older generations derive and open, and refuses new chips and secrets (503) until restarted with it`,
    );
  }

  /** The current generation of `mode` and its key; throws MasterKeyError when this process does not hold it. */
  async current(mode: Mode): Promise<{ generation: number; key: Buffer }> {
    return this.currentOf(await this.view(mode));
  }

  private currentOf(view: MasterView): { generation: number; key: Buffer } {
    const current = currentOf(view.generations)!;
    const key = view.held.get(current.checkValue);
    if (!key) throw lackingError(this.kernel, view.mode, current, true);
    return { generation: current.generation, key };
  }

  /** The key of generation `n` of `mode`; throws MasterKeyError when it is retired, unknown, or not held. */
  async generation(mode: Mode, n: number): Promise<Buffer> {
    const view = await this.view(mode);
    const g = view.generations.find((x) => x.generation === n);
    if (!g || g.retired) {
      const state = g ? 'retired' : 'not recorded in this database';
      throw new MasterKeyError(`the ${mode} master key generation ${n} is ${state}`, `this needs the ${mode} master key generation ${n}, which is ${state}`);
    }
    const key = view.held.get(g.checkValue);
    if (!key) throw lackingError(this.kernel, mode, g, g === currentOf(view.generations));
    return key;
  }

  /** The live generation that sealed `sealed` for `purpose`, and its key (a value sealed before a rotation opens under its own). */
  async sealedBy(mode: Mode, purpose: string, sealed: string): Promise<{ generation: number; key: Buffer }> {
    const view = await this.view(mode);
    const key = keyOf(view, purpose, sealed);
    return { generation: view.generations.find((g) => view.held.get(g.checkValue) === key)!.generation, key };
  }

  /** The key of the current generation (what new chips and secrets use). */
  async of(mode: Mode): Promise<Buffer> {
    return (await this.current(mode)).key;
  }

  /**
   * Seals `purpose` values of `mode` under the current generation and opens them under whichever live
   * generation sealed them, as the process sees the generations at the time of each call.
   */
  async sealer(mode: Mode, purpose: string): Promise<Sealer> {
    await this.view(mode);
    const box = (key: Buffer) => {
      const id = `${checkValue(key)} ${purpose}`;
      let made = this.sealers.get(id);
      if (!made) this.sealers.set(id, (made = sealer(key, purpose)));
      return made;
    };
    return {
      seal: (plaintext) => box(this.currentOf(this.latest.get(mode)!).key).seal(plaintext),
      open: (sealed) => box(keyOf(this.latest.get(mode)!, purpose, sealed)).open(sealed),
    };
  }

  /** The modes whose current generation this process lacks (for /readyz); records nothing. */
  async lacking(): Promise<{ mode: Mode; generation: number; check_value: string }[]> {
    const out: { mode: Mode; generation: number; check_value: string }[] = [];
    for (const mode of MODES) {
      const known = this.latest.get(mode);
      let view = known && this.fresh(known) && this.entries.has(mode) ? known : null;
      if (view === null) {
        const generations = await listGenerations(this.kernel.db.kysely, mode);
        // A mode never used has nothing to lack; its first use records the key.
        if (generations.length === 0) continue;
        view = await this.view(mode);
      }
      const current = currentOf(view.generations)!;
      if (!view.held.has(current.checkValue)) out.push({ mode, generation: current.generation, check_value: current.checkValue });
    }
    return out;
  }
}

/** The current master key of a world's mode; records it as generation 1 on first use. */
export const modeMaster = (ctx: MastersState, mode: Mode): Promise<Buffer> => ctx.masters.of(mode);

/**
 * At the start of serve, worker and chip-touching commands: throws MasterKeyError (one line) when
 * this process's current key is no live generation of the database, or when it lacks a generation
 * something depends on. Returns warnings (it lacks the current generation, which nothing needs yet).
 * Records nothing.
 */
export async function verifyMasterKeys(ctx: MasterContext): Promise<string[]> {
  const warnings: string[] = [];
  for (const mode of MODES) {
    const generations = await listGenerations(ctx.db.kysely, mode);
    const keys = await heldKeys(ctx, mode, false);
    if (generations.length === 0) {
      if (keys.own !== null) await refuseForeignSealed(ctx, mode, keys.own);
      continue;
    }
    checkOwnKey(ctx, mode, generations, keys);
    const view = viewOf(mode, generations, keys, 0);
    const current = currentOf(generations)!;
    const live = generations.filter((g) => !g.retired);
    const missing = live.filter((g) => !view.held.has(g.checkValue));
    if (missing.length === 0) continue;
    if (missing.length === live.length) {
      const where = mode === 'sandbox' ? 'restore the settings table from the same backup as the rest of the database' : whereToPut(ctx, mode, true);
      throw new MasterKeyError(
        `this database holds ${mode} chip keys sealed or derived under a master key (check value ${current.checkValue}) this process does not have: ${where}`,
      );
    }
    const counts = await dependents(ctx.db.kysely, mode, generations);
    for (const g of missing) {
      if (dependsOn(counts.get(g.generation))) {
        const d = counts.get(g.generation)!;
        throw new MasterKeyError(
          `this database holds ${d.chips} ${mode} chips and ${d.sealed} sealed values under master key generation ${g.generation} (check value ${g.checkValue}) this process does not have: ${whereToPut(ctx, mode, g === current)}`,
        );
      }
    }
    if (missing.includes(current))
      warnings.push(
        `this process lacks the current ${mode} master key generation ${current.generation} (check value ${current.checkValue}): it refuses new ${mode} chips and secrets until ${whereToPut(ctx, mode, true)}`,
      );
  }
  return warnings;
}

/** Follows other processes' changes of the generations while serve or a worker runs; returns the stop. */
export const followGenerations = ({ masters, config }: MastersState & Pick<Kernel, 'config'>): (() => Promise<void>) =>
  masters.follow(config.database.kind === 'postgres' ? config.database.url : null);

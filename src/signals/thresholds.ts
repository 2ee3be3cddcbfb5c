// A team's signal thresholds, per mode (docs/signals.md): what `counter_gap`, `country_jump` and
// `replay_burst` count as suspicious. Unset thresholds are the defaults. Scans read them from a
// per-process cache: the server that takes a PATCH uses the new values at once, every other
// process within REFRESH_MS (a scan never waits for the database while an entry, even an old one, is at hand).
import * as signalsRepo from './repository.js';
import { Type } from '@sinclair/typebox';
import { BoundedCache } from '../bounded-cache.js';
import type { Db, Executor } from '../db/database.js';
import { validationFailed, type FieldProblem } from '../errors.js';
import { fieldProblems, type FieldRule } from '../http/field-rules.js';
import { isObject } from '../json.js';
import type { World } from '../world.js';

export interface Thresholds {
  /** A genuine counter more than this above the last genuine one is a counter_gap. */
  counter_gap: number;
  /** Seconds: a genuine scan from another country less than this after the previous one is a country_jump (0: off). */
  country_jump_window: number;
  /** This many refused scans of a tag within an hour (the scan included) make a replay_burst. */
  replay_burst: number;
}

export const DEFAULT_THRESHOLDS: Readonly<Thresholds> = Object.freeze({ counter_gap: 5, country_jump_window: 6 * 3600, replay_burst: 3 });

const RANGES: Record<keyof Thresholds, { min: number; max: number; description: string }> = {
  // The read counter is 24 bits: a larger threshold could never be passed.
  counter_gap: { min: 1, max: 16_777_215, description: 'Unverified reads between two genuine scans before counter_gap (default 5)' },
  country_jump_window: {
    min: 0,
    max: 30 * 86_400,
    description: 'Seconds after a genuine scan within which another country is a country_jump; 0 turns it off (default 21600)',
  },
  replay_burst: { min: 1, max: 10_000, description: "Refused scans of a tag within an hour, the scan's own included, that make a replay_burst (default 3)" },
};
const NAMES = Object.keys(RANGES) as (keyof Thresholds)[];

const integerRule = (name: keyof Thresholds): FieldRule => {
  const { min, max, description } = RANGES[name];
  return {
    schema: Type.Integer({ minimum: min, maximum: max, description }),
    explain: (v) => (Number.isInteger(v) && (v as number) >= min && (v as number) <= max ? null : `${name} must be an integer from ${min} to ${max}`),
  };
};
const RULES = Object.fromEntries(NAMES.map((name) => [name, integerRule(name)])) as Record<keyof Thresholds, FieldRule>;

export const ThresholdsSchema = Type.Object({
  counter_gap: RULES.counter_gap.schema,
  country_jump_window: RULES.country_jump_window.schema,
  replay_burst: RULES.replay_burst.schema,
});

/** `signal_thresholds` of PATCH /teams/current: any of the three, each checked (422 at `signal_thresholds/<name>`). */
export const THRESHOLDS_RULE: FieldRule = {
  schema: Type.Partial(ThresholdsSchema, { description: 'Any of the thresholds to change; the others keep their values' }),
  explain: (value) => {
    if (!isObject(value)) return 'signal_thresholds must be an object';
    const problems: { path: string; detail: string }[] = [];
    for (const [name, v] of Object.entries(value)) {
      if (!(NAMES as string[]).includes(name)) {
        problems.push({ path: `signal_thresholds/${name}`, detail: `${name} is not a signal threshold; one of ${NAMES.join(', ')}` });
        continue;
      }
      const why = RULES[name as keyof Thresholds].explain(v, undefined);
      if (typeof why === 'string') problems.push({ path: `signal_thresholds/${name}`, detail: why });
    }
    return problems;
  },
};

/** The problems of a `signal_thresholds` value (empty when it is valid). */
export const thresholdProblems = (value: unknown): FieldProblem[] => fieldProblems('signal_thresholds', THRESHOLDS_RULE, value, undefined);

export async function findThresholds(db: Executor, world: World): Promise<Thresholds> {
  return { ...DEFAULT_THRESHOLDS, ...(await signalsRepo.findThresholdRow(db, world, NAMES)) };
}

/** Applies `changes` to a world's thresholds; returns them all. */
export async function changeThresholds(db: Executor, world: World, changes: Partial<Thresholds>, at: number): Promise<Thresholds> {
  const problems = thresholdProblems(changes);
  if (problems.length > 0) throw validationFailed(problems);
  // Only the thresholds named are written: two changes of different thresholds at once both stay.
  await signalsRepo.upsertThresholds(db, world, DEFAULT_THRESHOLDS, changes, at);
  return findThresholds(db, world);
}

const REFRESH_MS = 5_000;

interface Entry {
  thresholds: Thresholds;
  readAt: number;
  refreshing: boolean;
}

/** Each world's thresholds as this process last read them. */
export class ThresholdsCache {
  private readonly entries = new BoundedCache<string, Entry>(10_000);
  /** Milliseconds; tests move it instead of sleeping. */
  clock: () => number = Date.now;

  constructor(private readonly db: Db) {}

  /**
   * The world's thresholds as cached, or undefined when this process has not read them yet (then `read`). Not
   * async: the verify path asks for every scan. An entry REFRESH_MS old is served while one call reads it again.
   */
  cached(world: World): Thresholds | undefined {
    const key = `${world.teamId} ${world.mode}`;
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (!entry.refreshing && this.clock() - entry.readAt >= REFRESH_MS) {
      entry.refreshing = true;
      this.read(world).catch(() => (entry.refreshing = false));
    }
    return entry.thresholds;
  }

  /** The world's thresholds from the database, cached. */
  async read(world: World): Promise<Thresholds> {
    const thresholds = await findThresholds(this.db.kysely, world);
    this.set(world, thresholds);
    return thresholds;
  }

  /** After a change through this process: its next scan reads the new values. */
  set(world: World, thresholds: Thresholds): void {
    this.entries.set(`${world.teamId} ${world.mode}`, { thresholds, readAt: this.clock(), refreshing: false });
  }
}

// A world's day of cases as the daily digest tells it (docs/cases.md#email): what is still open, what
// opened and what was resolved in the window. Each part is one index range (cases_world_state_opened,
// cases_world_opened, cases_world_resolved), so a team of a million tags reads only its cases.
import type { Executor } from '../db/database.js';
import { inWorld } from '../db/in-world.js';
import type { World } from '../world.js';
import type { CaseRow } from './repository.js';

/** Cases the digest names one by one, per part; the counts are whole. */
export const DIGEST_SHOWN = 20;

export interface DigestPart {
  count: number;
  /** The newest `DIGEST_SHOWN` of the part. */
  cases: CaseRow[];
}

export interface CaseDigest {
  world: World;
  since: number;
  until: number;
  /** Open or acknowledged now. */
  unresolved: { open: number; acknowledged: number };
  /** Opened in [since, until). */
  opened: DigestPart;
  /** Resolved in [since, until). */
  resolved: DigestPart;
}

/** Nothing opened or resolved and nothing left to work: a quiet day, which is not emailed. */
export const isQuiet = (digest: CaseDigest): boolean =>
  digest.unresolved.open + digest.unresolved.acknowledged + digest.opened.count + digest.resolved.count === 0;

export async function caseDigest(db: Executor, world: World, window: { since: number; until: number }, shown = DIGEST_SHOWN): Promise<CaseDigest> {
  const cases = () => db.selectFrom('cases').$call(inWorld(world));
  const part = async (column: 'opened_at' | 'resolved_at'): Promise<DigestPart> => {
    const inWindow = () => cases().where(column, '>=', window.since).where(column, '<', window.until);
    const [counted, rows] = await Promise.all([
      inWindow()
        .select((eb) => eb.fn.countAll<number | string>().as('count'))
        .executeTakeFirstOrThrow(),
      inWindow().selectAll().orderBy(column, 'desc').orderBy('id', 'desc').limit(shown).execute(),
    ]);
    return { count: Number(counted.count), cases: rows };
  };
  const [states, opened, resolved] = await Promise.all([
    cases()
      .select(['state', (eb) => eb.fn.countAll<number | string>().as('count')])
      // Named, not `<> 'resolved'`: the range then reads the unresolved cases only, however many were resolved.
      .where('state', 'in', ['open', 'acknowledged'])
      .groupBy('state')
      .execute(),
    part('opened_at'),
    part('resolved_at'),
  ]);
  const inState = (state: string) => Number(states.find((s) => s.state === state)?.count ?? 0);
  return { world, ...window, unresolved: { open: inState('open'), acknowledged: inState('acknowledged') }, opened, resolved };
}

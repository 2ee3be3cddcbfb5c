// The counterfeit signals a scan can carry (GET /verifications ?signal=, docs/signals.md), in the API's
// order, each with a short label for its badge, a line on what it means and a line on what to do. A
// signal never changes the verdict: it says what looks wrong around a scan, genuine or not.
import type { Verification } from './api.ts';

export type Signal = Verification['attributes']['signals'][number];

export const SIGNALS = ['counter_gap', 'country_jump', 'replay_burst', 'tamper_opened', 'tamper_open'] as const satisfies readonly Signal[];

export const SIGNAL_LABELS: Record<Signal, string> = {
  counter_gap: 'Counter gap',
  country_jump: 'Country jump',
  replay_burst: 'Replay burst',
  tamper_opened: 'Seal opened',
  tamper_open: 'Seal open',
};

export const SIGNAL_MEANINGS: Record<Signal, string> = {
  counter_gap:
    'The chip was read more times than the threshold since its last genuine scan, and those reads were never verified: URLs were harvested from the genuine tag.',
  country_jump:
    'Scanned in another country than the previous genuine scan of this tag, within the country jump window: cloned keys or harvested URLs used abroad.',
  replay_burst:
    'This tag had at least the threshold of refused scans (replayed or forged) in the last hour, this one included: someone is replaying or forging its URLs.',
  tamper_opened: 'The first scan that reports the tamper loop open: the seal of this item has been opened.',
  tamper_open: 'The seal of this item was opened before this scan.',
};

export const SIGNAL_ACTIONS: Record<Signal, string> = {
  counter_gap: 'Treat copies of its URLs as counterfeit, and look for scans of this tag elsewhere.',
  country_jump: 'Compare the two scans’ countries and times, and check whether the tag was sold into that region.',
  replay_burst: 'Look at the addresses and countries of the refused scans of this tag: they show where its copied URLs circulate.',
  tamper_opened: 'The item is no longer sealed: do not treat it as new.',
  tamper_open: 'The item is no longer sealed: do not treat it as new.',
};

/** `counter_gap` → true; anything else the URL might carry → false. */
export function isSignal(value: string): value is Signal {
  return (SIGNALS as readonly string[]).includes(value);
}

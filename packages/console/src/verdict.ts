// How a scan's verdict reads. A genuine scan of an item whose seal has been opened is still genuine (the
// chip is the brand's), but the item is no longer new: it never reads as plain "genuine".
import type { Verification } from './api.ts';

/** What the verdict is read from: a verification's attributes. */
export type JudgedScan = Pick<Verification['attributes'], 'genuine' | 'reason' | 'signals' | 'tamper'>;

export interface Verdict {
  label: string;
  /** ok: genuine; warn: genuine, seal opened; bad: not genuine. */
  tone: 'ok' | 'warn' | 'bad';
}

/** The seal was opened: a signal says so, or the chip itself reports its permanent tamper status open. */
export function sealOpened(scan: Pick<JudgedScan, 'signals' | 'tamper'>): boolean {
  return scan.signals.includes('tamper_opened') || scan.signals.includes('tamper_open') || scan.tamper?.permanent === 'open';
}

export function verdictOf(scan: JudgedScan): Verdict {
  if (!scan.genuine) return { label: `not genuine: ${scan.reason}`, tone: 'bad' };
  if (sealOpened(scan)) return { label: 'genuine — seal opened', tone: 'warn' };
  return { label: 'genuine', tone: 'ok' };
}

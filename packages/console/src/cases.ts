// What the console says of a case (GET /cases, docs/cases.md): its states, its resolutions, and who holds it.
import type { operations } from '../../sdk/src/generated/platform-api.ts';

type CaseList = operations['listCases']['responses'][200]['content']['application/vnd.api+json'];
export type Case = CaseList['data'][number];
export type CaseState = Case['attributes']['state'];
export type Resolution = NonNullable<Case['attributes']['resolution']>;
export type CaseCounts = CaseList['meta']['counts'];

export const CASE_STATES: readonly CaseState[] = ['open', 'acknowledged', 'resolved'];

export const STATE_LABELS: Record<CaseState, string> = { open: 'Open', acknowledged: 'Acknowledged', resolved: 'Resolved' };

export const RESOLUTIONS: readonly Resolution[] = ['counterfeit_confirmed', 'false_positive', 'expected', 'other'];

export const RESOLUTION_LABELS: Record<Resolution, string> = {
  counterfeit_confirmed: 'Counterfeit confirmed',
  false_positive: 'False positive',
  expected: 'Expected (travel, a reseller abroad, a test)',
  other: 'Other (say what in the note)',
};

/** Who holds a case, as the signed-in person reads it. */
export function assigneeLabel(assigneeId: string | null, me: string | null): string {
  if (assigneeId === null) return 'Nobody';
  return assigneeId === me ? 'You' : assigneeId;
}

/** How long ago `iso` was, in the largest whole unit: "3 h", "2 d". */
export function ageOf(iso: string, now = Date.now()): string {
  const seconds = Math.max(0, Math.floor((now - Date.parse(iso)) / 1000));
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['min', 60],
  ] as const)
    if (seconds >= size) return `${Math.floor(seconds / size)} ${unit}`;
  return `${seconds} s`;
}

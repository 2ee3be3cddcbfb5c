// Tamper loop status as NTAG 424 DNA TagTamper mirrors it (NT4H2421Tx, TTStatus: permanent status,
// then current status, one ASCII character each) and as NTAG 223 DNA StatusDetect mirrors it in its
// SUN text. 'I' is what a chip reports when tamper detection is not enabled.

export type TamperState = 'closed' | 'open' | 'not_enabled';
export type Tamper = { permanent: TamperState; current: TamperState } | null;

const BY_CHAR: Record<string, TamperState> = { C: 'closed', O: 'open', I: 'not_enabled' };
const CHAR_OF: Record<TamperState, string> = { closed: 'C', open: 'O', not_enabled: 'I' };

/** The state for one status character ('C', 'O', 'I'; upper case only), or undefined. */
export function tamperStateOf(ch: string): TamperState | undefined {
  return Object.prototype.hasOwnProperty.call(BY_CHAR, ch) ? BY_CHAR[ch] : undefined;
}

/** The status character a chip mirrors for a state. */
export function tamperCharOf(state: TamperState): string {
  const c = CHAR_OF[state];
  if (c === undefined) throw new TypeError(`unknown tamper state ${String(state)}`);
  return c;
}

/** Parses "<permanent><current>" (e.g. "CO"); undefined when either character is not C/O/I. */
export function parseTamperChars(two: string): NonNullable<Tamper> | undefined {
  if (two.length !== 2) return undefined;
  const permanent = tamperStateOf(two[0]!);
  const current = tamperStateOf(two[1]!);
  if (permanent === undefined || current === undefined) return undefined;
  return { permanent, current };
}

/** "<permanent><current>" for a tamper status, e.g. { closed, open } -> "CO". */
export function tamperChars(t: NonNullable<Tamper>): string {
  return tamperCharOf(t.permanent) + tamperCharOf(t.current);
}

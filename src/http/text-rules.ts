// The one rule for text the API stores (tag url and comment, webhook url) or
// looks up (a scanned url). C0 controls and DEL are never part of a url or a
// one-line comment: NUL is refused by PostgreSQL (22021, a 500) but stored by
// SQLite, and tab/newline would be stored and echoed verbatim. Ill-formed UTF-16
// (a lone surrogate) is stored differently by each engine (three U+FFFD on
// SQLite, one on PostgreSQL), so two distinct urls could collide after the fact.
// Refusing them up front keeps what is read back exactly what was written.

// eslint-disable-next-line no-control-regex -- control characters are what this pattern is for
export const CONTROL = /[\u0000-\u001f\u007f]/;
// Without the u flag the pattern sees UTF-16 code units: a high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Length as JSON Schema's maxLength counts it: in code points, not UTF-16 units. */
export function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** False for ill-formed UTF-16: a lone surrogate, which each engine would store differently. */
export const isWellFormed = (value: string): boolean => !LONE_SURROGATE.test(value);
export const WELL_FORMED = 'must be well-formed Unicode (no lone UTF-16 surrogates)';

// Text shown to the public beside a verdict (a claim's note on a landing page) must not steer how a
// terminal or a page draws it: C1 controls (which terminals obey like escapes) and the bidirectional
// overrides, embeddings and isolates that can make one text read as another.
// eslint-disable-next-line no-control-regex -- control characters are what this pattern is for
const DISPLAY_CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
export const DISPLAY_CONTROLS =
  'must not contain control characters (U+0000 to U+001F, U+007F to U+009F) or bidirectional formatting characters (U+202A to U+202E, U+2066 to U+2069)';

/** False when public text contains a character of DISPLAY_CONTROLS. */
export const isDisplayable = (value: string): boolean => !DISPLAY_CONTROL.test(value);

/** Why `value` cannot be stored as the attribute `name`, or null when it can. */
export function textProblem(name: string, value: string): string | null {
  if (CONTROL.test(value)) return `${name} must not contain control characters (U+0000 to U+001F, U+007F)`;
  if (!isWellFormed(value)) return `${name} ${WELL_FORMED}`;
  return null;
}

// How GET /tags `q` compares with comments, identically on both engines: the
// database never folds case. Each comment is stored a second time folded by
// this function (tags.comment_folded, written with the comment), `q` is folded
// by it too, and the database looks for the folded q as an exact substring.
// SQLite's lower() and PostgreSQL's under collation "C" fold ASCII only, while
// JavaScript folds all of Unicode: folding on one side only made `q=CAFÉ` miss
// `CAFÉ ÜNÏ` and let the Kelvin sign K find `kelvin` but not the other way round.

/**
 * NFKC, then Unicode full case folding as JavaScript's locale-independent case
 * mappings give it: lower, upper, lower again (so ß, ẞ and SS all become ss),
 * and final sigma ς as σ (the one context-dependent mapping). NFKC makes the
 * Kelvin sign K a K (so k), ﬁ fi, full-width Ａ A, and a decomposed é the
 * composed one. Changing this function needs a migration that refolds every
 * stored comment (0010_comment_folded keeps its own copy of the fold it wrote).
 */
export function foldForSearch(text: string): string {
  return text.normalize('NFKC').toLowerCase().toUpperCase().toLowerCase().normalize('NFKC').replace(/ς/g, 'σ');
}

export const foldComment = (comment: string | null): string | null => (comment === null ? null : foldForSearch(comment));

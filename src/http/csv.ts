// CSV records for the exports (RFC 4180): every field quoted when it must be, lines ended with CRLF.
// A field that a spreadsheet would run as a formula (it starts with =, +, -, @, a tab or a carriage
// return: a tag comment is anyone's text) is prefixed with an apostrophe, as OWASP's CSV injection
// guidance says, so opening an export never executes what a tag's comment holds.

export type CsvField = string | number | boolean | null;

const FORMULA = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

function field(value: CsvField): string {
  if (value === null) return '';
  if (typeof value !== 'string') return String(value);
  const safe = FORMULA.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export const csvRecord = (fields: readonly CsvField[]): string => fields.map(field).join(',') + '\r\n';

// Tag rows from CSV text (RFC 4180: quoted fields, doubled quotes, CRLF or LF). The first line names
// the columns: url is required; protocol, comment and session_duration are optional.
export const TAG_COLUMNS = ['protocol', 'url', 'comment', 'session_duration'] as const;

export interface TagRow {
  /** The line of the file the row came from (the header is line 1), for error messages. */
  line: number;
  attributes: Record<string, string | number | null>;
}

export type Parsed = { rows: TagRow[] } | { error: string };

function records(text: string): { line: number; fields: string[] }[] {
  const out: { line: number; fields: string[] }[] = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let line = 1;
  let startLine = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else {
        if (c === '\n') line++;
        field += c;
      }
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      fields.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      fields.push(field);
      out.push({ line: startLine, fields });
      fields = [];
      field = '';
      startLine = ++line;
    } else field += c;
  }
  if (field !== '' || fields.length > 0) {
    fields.push(field);
    out.push({ line: startLine, fields });
  }
  return out.filter((r) => !(r.fields.length === 1 && r.fields[0].trim() === ''));
}

/** CSV text → rows of tag attributes; a protocol column left out (or empty) takes `defaultProtocol`. */
export function parseTagCsv(text: string, defaultProtocol: string): Parsed {
  const [header, ...body] = records(text.replace(/^\uFEFF/, ''));
  if (!header) return { error: 'The CSV is empty: its first line must name the columns (url, and optionally protocol, comment, session_duration).' };
  const names = header.fields.map((name) => name.trim().toLowerCase());
  const unknown = names.filter((name) => !(TAG_COLUMNS as readonly string[]).includes(name));
  if (unknown.length > 0) return { error: `Unknown column ${unknown.map((n) => `"${n}"`).join(', ')}: the columns are ${TAG_COLUMNS.join(', ')}.` };
  if (!names.includes('url')) return { error: 'The first line must name the columns, and one of them must be url.' };
  if (body.length === 0) return { error: 'The CSV names its columns but has no rows.' };
  const rows = body.map(({ line, fields }) => {
    const attributes: Record<string, string | number | null> = { protocol: defaultProtocol };
    names.forEach((name, i) => {
      const value = (fields[i] ?? '').trim();
      if (name === 'session_duration') {
        if (value !== '') attributes[name] = /^-?\d+$/.test(value) ? Number(value) : value;
      } else if (name === 'comment') attributes[name] = value === '' ? null : value;
      else if (name !== 'protocol' || value !== '') attributes[name] = value;
    });
    return { line, attributes };
  });
  return { rows };
}

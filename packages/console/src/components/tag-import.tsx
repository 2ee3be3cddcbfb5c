// Creating tags from CSV (pasted or uploaded). The API takes at most 500 tags a request and creates all
// of a request or none of it; the console sends the file in such requests, in order, shows the progress,
// and stops at the first refused request, naming the CSV line of each error.
import { useMemo, useState } from 'preact/hooks';
import { problemOf, type Api } from '../api.ts';
import { parseTagCsv, type TagRow } from '../csv.ts';
import { phoneCanOpen, UNOPENABLE } from '../urls.ts';

/** The API's largest create request (docs/api.md, Tags). */
export const BATCH = 500;
const PROTOCOLS = ['ntag_424_dna', 'ntag_424_dna_tag_tamper', 'ntag_223_dna'] as const;

interface RowError {
  line: number | null;
  text: string;
}

interface Outcome {
  created: number;
  total: number;
  errors: RowError[];
  /** The CSV lines of the refused request. */
  refused?: { from: number; to: number };
}

/** "/data/3/attributes/url" in request k → the CSV line of the row and the attribute. */
function rowErrors(batch: TagRow[], error: unknown, response: Response): RowError[] {
  return problemOf(error, response).errors.map((e) => {
    const at = /^\/data\/(\d+)(?:\/attributes\/(\w+))?/.exec(e.source?.pointer ?? '');
    const row = at ? batch[Number(at[1])] : undefined;
    const text = [e.title, e.detail].filter(Boolean).join(': ');
    return { line: row?.line ?? null, text: at?.[2] ? `${at[2]}: ${e.detail ?? e.title}` : text };
  });
}

export function TagImport(props: { api: Api; onCreated: () => void }) {
  const [text, setText] = useState('');
  const [protocol, setProtocol] = useState<string>(PROTOCOLS[0]);
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  // Read as the text changes, so the warning is there before anything is created. An empty url is the
  // server's to refuse, with its line.
  const unopenable = useMemo(() => {
    const parsed = parseTagCsv(text, protocol);
    if ('error' in parsed) return [];
    return parsed.rows.filter((row) => typeof row.attributes.url === 'string' && row.attributes.url !== '' && !phoneCanOpen(row.attributes.url));
  }, [text, protocol]);

  const run = async () => {
    setOutcome(null);
    const parsed = parseTagCsv(text, protocol);
    if ('error' in parsed) return setProblem(parsed.error);
    setProblem(null);
    const rows = parsed.rows;
    let created = 0;
    setProgress({ done: 0, total: rows.length });
    for (let start = 0; start < rows.length; start += BATCH) {
      const batch = rows.slice(start, start + BATCH);
      const body = { data: batch.map((row) => ({ type: 'tags' as const, attributes: row.attributes })) };
      // The attributes are checked by the server (422 per field); the CSV gives strings.
      const { error, response } = await props.api.POST('/tags', { body: body as never });
      if (!response.ok) {
        setProgress(null);
        const refused = { from: batch[0].line, to: batch[batch.length - 1].line };
        setOutcome({ created, total: rows.length, errors: rowErrors(batch, error, response), refused });
        if (created > 0) props.onCreated();
        return;
      }
      created += batch.length;
      setProgress({ done: created, total: rows.length });
    }
    setProgress(null);
    setOutcome({ created, total: rows.length, errors: [] });
    setText('');
    props.onCreated();
  };

  return (
    <section aria-labelledby="create-heading" class="panel">
      <h2 id="create-heading">Create tags</h2>
      <p class="muted">
        CSV with a header line: <code>url</code> and optionally <code>protocol</code>, <code>comment</code>, <code>session_duration</code>. One row is one tag.
        Up to {BATCH} rows go in one request, created all together or not at all.
      </p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void run();
        }}
      >
        <label for="tags-csv">Tags as CSV</label>
        <textarea
          id="tags-csv"
          rows={5}
          value={text}
          onInput={(e) => setText(e.currentTarget.value)}
          placeholder={'url,comment\nhttps://brand.example/p/1,first'}
          spellcheck={false}
        />
        <div class="row">
          <label for="tags-file">Or upload a CSV file</label>
          <input
            id="tags-file"
            type="file"
            accept=".csv,text/csv"
            onChange={(e) => {
              const file = e.currentTarget.files?.[0];
              if (file) void file.text().then(setText);
            }}
          />
        </div>
        <div role="status">
          {unopenable.length > 0 && (
            <div class="warning">
              <p>
                {unopenable.length === 1 ? 'This url is' : 'These urls are'} {UNOPENABLE}. The tags are still created and written as given.
              </p>
              <ul>
                {unopenable.map((row) => (
                  <li key={row.line}>
                    Line {row.line}: {String(row.attributes.url)}
                  </li>
                ))}
              </ul>
            </div>
          )}
        </div>
        <label for="tags-protocol">Protocol for rows without one</label>
        <select id="tags-protocol" value={protocol} onChange={(e) => setProtocol(e.currentTarget.value)}>
          {PROTOCOLS.map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </select>
        <div class="actions">
          <button type="submit" disabled={progress !== null || text.trim() === ''}>
            Create tags
          </button>
        </div>
      </form>
      {progress && (
        <div>
          <label for="create-progress">
            Creating tags: {progress.done} of {progress.total}
          </label>
          <progress id="create-progress" max={progress.total} value={progress.done} />
        </div>
      )}
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      {outcome && (
        <div role={outcome.errors.length ? 'alert' : 'status'}>
          {outcome.errors.length === 0 ? (
            <p class="success">
              Created {outcome.created} of {outcome.total} tags.
            </p>
          ) : (
            <>
              <p class="error">
                Created {outcome.created} of {outcome.total} tags. The request with lines {outcome.refused?.from} to {outcome.refused?.to} was refused, and none
                of its tags was created:
              </p>
              <ul class="errors">
                {outcome.errors.map((e, i) => (
                  <li key={i}>{e.line !== null ? `Line ${e.line}: ${e.text}` : e.text}</li>
                ))}
              </ul>
            </>
          )}
        </div>
      )}
    </section>
  );
}

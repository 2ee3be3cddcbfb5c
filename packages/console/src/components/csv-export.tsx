// A button that downloads one of the API's CSV exports with the filters a page shows. The API wants the
// key in a header, which a plain link cannot send (and a key never goes in a URL), so the button reads
// the file through the API client and hands it to the browser as a download, under the name the
// server gives it (Content-Disposition).
import { useState } from 'preact/hooks';
import { describeProblem, problemOf } from '../api.ts';
import { ErrorLine } from './ui.tsx';

/** What openapi-fetch answers for a request made with `parseAs: 'blob'`. */
type Download = Promise<{ data?: Blob; error?: unknown; response: Response }>;

function save(file: Blob, name: string): void {
  const url = URL.createObjectURL(file);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  // Released once the browser has taken the file (revoking at once can cancel the download in some browsers).
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function CsvExport(props: { label: string; fallbackName: string; load: () => Download }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const download = async () => {
    setBusy(true);
    setError(null);
    try {
      const { data, error: refusal, response } = await props.load();
      if (data === undefined) setError(describeProblem(problemOf(refusal, response)));
      else save(data, /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? props.fallbackName);
    } catch (cause) {
      setError(cause instanceof Error ? cause.message : String(cause));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <div class="actions">
        <button type="button" class="secondary" disabled={busy} onClick={() => void download()}>
          {props.label}
        </button>
        {busy && (
          <span class="muted" role="status">
            Preparing the CSV…
          </span>
        )}
      </div>
      <ErrorLine error={error} />
    </>
  );
}

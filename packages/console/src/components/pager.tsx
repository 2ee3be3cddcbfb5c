// Keyset pages (Scans, Alerts): forward by the cursor links.next carries, back by the cursors seen on the
// way there, since the API has no link back. The cursor is in the page's URL, so a page can be linked to.
import { useState } from 'preact/hooks';

/** The cursor a links.next path carries. */
export function cursorOf(next: string | null): string | null {
  return next === null ? null : new URL(next, location.origin).searchParams.get('cursor');
}

/** The cursors of the pages before this one; a page clears it when its filters change. */
export function useTrail() {
  return useState<(string | undefined)[]>([]);
}

export function Pager(props: {
  label: string;
  /** This page's cursor (undefined on the first page) and links.next of its answer. */
  cursor: string | undefined;
  next: string | null | undefined;
  trail: ReturnType<typeof useTrail>;
  /** Opens the page at a cursor. */
  open: (cursor: string | undefined) => void;
}) {
  const [previous, setPrevious] = props.trail;
  const next = cursorOf(props.next ?? null);
  return (
    <nav class="pager" aria-label={props.label}>
      <button
        type="button"
        class="secondary"
        disabled={previous.length === 0}
        onClick={() => {
          setPrevious(previous.slice(0, -1));
          props.open(previous[previous.length - 1]);
        }}
      >
        Previous page
      </button>
      <button
        type="button"
        class="secondary"
        disabled={next === null}
        onClick={() => {
          setPrevious([...previous, props.cursor]);
          props.open(next ?? undefined);
        }}
      >
        Next page
      </button>
    </nav>
  );
}

// Small pieces every page uses: links that route inside the app, a status line, a scrollable table
// region (focusable, so keyboard users can scroll it: axe's scrollable-region-focusable), dates.
import type { ComponentChildren, JSX } from 'preact';
import { href, navigate } from '../router.ts';
import { verdictOf, type JudgedScan } from '../verdict.ts';

export function Link(props: { to: string; children: ComponentChildren } & Omit<JSX.HTMLAttributes<HTMLAnchorElement>, 'href'>) {
  const { to, children, ...rest } = props;
  const onClick = (event: MouseEvent) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return (
    <a {...rest} href={href(to)} onClick={onClick}>
      {children}
    </a>
  );
}

/** A request's failure, read out by screen readers as it appears. */
export function ErrorLine(props: { error: string | null }) {
  return props.error ? (
    <p class="error" role="alert">
      {props.error}
    </p>
  ) : null;
}

/** What an action came to: a success, read out politely, or a refusal, read out at once. */
export type Message = { error: boolean; text: string } | null;

export function MessageLine(props: { message: Message }) {
  const { message } = props;
  return message ? (
    <p class={message.error ? 'error' : 'success'} role={message.error ? 'alert' : 'status'}>
      {message.text}
    </p>
  ) : null;
}

export function Loading(props: { loading: boolean }) {
  return props.loading ? (
    <p class="muted" role="status">
      Loading…
    </p>
  ) : null;
}

export function TableRegion(props: { label: string; children: ComponentChildren }) {
  return (
    <div class="table-region" role="region" aria-label={props.label} tabIndex={0}>
      {props.children}
    </div>
  );
}

/** `2026-01-02T03:04:05.123456Z` → `2026-01-02 03:04:05 UTC` (the API's times are UTC; so is the console). */
export function When(props: { iso: string | null | undefined }) {
  if (!props.iso) return <span class="muted">—</span>;
  return <time dateTime={props.iso}>{props.iso.slice(0, 19).replace('T', ' ')} UTC</time>;
}

/** A scan's verdict as a badge; a genuine scan of an opened seal reads as such, in the warning colour. */
export function Outcome(props: { scan: JudgedScan }) {
  const verdict = verdictOf(props.scan);
  return <span class={`badge ${verdict.tone}`}>{verdict.label}</span>;
}

/** A definition list of label → value pairs (a resource's attributes). */
export function Facts(props: { items: [string, ComponentChildren][] }) {
  return (
    <dl class="facts">
      {props.items.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value ?? <span class="muted">—</span>}</dd>
        </div>
      ))}
    </dl>
  );
}

/** A table's header row; a `{ hidden }` column is named for screen readers only (a column of checkboxes or buttons). */
export function Head(props: { columns: (string | { hidden: string } | false)[] }) {
  return (
    <thead>
      <tr>
        {props.columns
          .filter((column) => column !== false)
          .map((column) => (
            <th scope="col" key={typeof column === 'string' ? column : column.hidden}>
              {typeof column === 'string' ? column : <span class="visually-hidden">{column.hidden}</span>}
            </th>
          ))}
      </tr>
    </thead>
  );
}

/** A filter form's buttons: Apply submits the form, Clear resets it. */
export function FilterActions(props: { onClear: () => void }) {
  return (
    <div class="actions">
      <button type="submit">Apply filters</button>
      <button type="button" class="secondary" onClick={props.onClear}>
        Clear
      </button>
    </div>
  );
}

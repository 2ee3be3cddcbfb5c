// Flagged scans as a list (Alerts, a tag's signal history): each scan on one wrapping line, then each of
// its signals with what it means and what to do. Not a table: the explanations are sentences, which a
// column would squeeze, and a phone could not read without scrolling sideways.
import type { Verification } from '../api.ts';
import { SignalNotes } from './signal-badges.tsx';
import { Link, Outcome, When } from './ui.tsx';

export function AlertList(props: { label: string; scans: Verification[]; showTag?: boolean; empty: string }) {
  if (props.scans.length === 0) return <p class="muted">{props.empty}</p>;
  const showTag = props.showTag ?? true;
  return (
    <ol class="alerts" aria-label={props.label}>
      {props.scans.map((scan) => {
        const a = scan.attributes;
        return (
          <li key={scan.id}>
            <div class="alert-scan">
              <Link to={`/scans/${scan.id}`}>
                <When iso={a.scanned_at} />
              </Link>
              <Outcome scan={a} />
              {showTag && (
                <span>
                  <span class="muted">Tag</span> <Link to={`/tags/${a.tag_id}`}>{a.tag_id}</Link>
                </span>
              )}
              <span>
                <span class="muted">Counter</span> {a.read_counter ?? '—'}
              </span>
              <span>
                <span class="muted">Country</span> {a.country ?? '—'}
              </span>
            </div>
            <SignalNotes signals={a.signals} />
          </li>
        );
      })}
    </ol>
  );
}

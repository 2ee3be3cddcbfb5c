// Flagged scans as a list (Alerts, a tag's signal history): each scan on one wrapping line, then each of
// its signals with what it means and what to do. Not a table: the explanations are sentences, which a
// column would squeeze, and a phone could not read without scrolling sideways.
import type { Api, Verification } from '../api.ts';
import { SignalNotes } from './signal-badges.tsx';
import { Link, Outcome, When } from './ui.tsx';

/** The scan a country jump jumped from: its id and country. */
export interface JumpOrigin {
  id: string;
  country: string | null;
}

/**
 * The scan each country jump of the list jumped from. A verification names only its signals, but the signal
 * compares with the tag's previous genuine scan (docs/signals.md), which the list of the tag's genuine scans
 * before it names; one request per jump, none for other signals. A jump whose origin cannot be read shows none.
 */
export async function jumpOrigins(api: Api, scans: readonly Verification[]): Promise<Record<string, JumpOrigin>> {
  const pairs = await Promise.all(
    scans
      .filter((scan) => scan.attributes.signals.includes('country_jump'))
      .map(async (scan) => {
        const { data } = await api.GET('/verifications', {
          params: { query: { tag_id: scan.attributes.tag_id, genuine: 'true', until: scan.attributes.scanned_at, page_size: 1 } },
        });
        const before = data?.data[0];
        return before ? ([[scan.id, { id: before.id, country: before.attributes.country ?? null }]] as const) : [];
      }),
  );
  return Object.fromEntries(pairs.flat());
}

export function AlertList(props: {
  label: string;
  scans: Verification[];
  showTag?: boolean;
  empty: string;
  /** Tag comments by tag id: shown first, the id beside it. */
  comments?: Record<string, string | null>;
  jumpedFrom?: Record<string, JumpOrigin>;
}) {
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
                  <span class="muted">Tag</span>{' '}
                  {props.comments?.[a.tag_id] ? (
                    <>
                      <Link to={`/tags/${a.tag_id}`}>{props.comments[a.tag_id]}</Link> <span class="muted">{a.tag_id}</span>
                    </>
                  ) : (
                    <Link to={`/tags/${a.tag_id}`}>{a.tag_id}</Link>
                  )}
                </span>
              )}
              <span>
                <span class="muted">Counter</span> {a.read_counter ?? '—'}
              </span>
              <span>
                <span class="muted">Country</span> {a.country ?? '—'}
              </span>
              {props.jumpedFrom?.[scan.id] && (
                <span>
                  <span class="muted">Jumped from</span>{' '}
                  <Link to={`/scans/${props.jumpedFrom[scan.id].id}`}>the scan in {props.jumpedFrom[scan.id].country ?? 'an unknown country'}</Link>
                </span>
              )}
            </div>
            <SignalNotes signals={a.signals} />
          </li>
        );
      })}
    </ol>
  );
}

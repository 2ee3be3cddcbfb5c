// A list of scans, as every page shows them: when (linking to the scan), the verdict, the tag and its
// comment (src/tag-comments.ts; a page that knows the comments passes them), the counter, the country
// and the signals as badges.
import type { Verification } from '../api.ts';
import { SignalBadges } from './signal-badges.tsx';
import { Head, Link, Outcome, TableRegion, When } from './ui.tsx';

export function ScanTable(props: { label: string; scans: Verification[]; showTag?: boolean; comments?: Record<string, string | null> }) {
  if (props.scans.length === 0) return <p class="muted">No scans.</p>;
  const showTag = props.showTag ?? true;
  const comments = showTag ? props.comments : undefined;
  return (
    <TableRegion label={props.label}>
      <table>
        <Head columns={['Scanned', 'Outcome', showTag && 'Tag', comments !== undefined && 'Tag comment', 'Counter', 'Country', 'Signals']} />
        <tbody>
          {props.scans.map((scan) => (
            <tr key={scan.id}>
              <td>
                <Link to={`/scans/${scan.id}`}>
                  <When iso={scan.attributes.scanned_at} />
                </Link>
              </td>
              <td>
                <Outcome scan={scan.attributes} />
              </td>
              {showTag && (
                <td>
                  <Link to={`/tags/${scan.attributes.tag_id}`}>{scan.attributes.tag_id}</Link>
                </td>
              )}
              {comments !== undefined && <td>{comments[scan.attributes.tag_id] ?? '—'}</td>}
              <td>{scan.attributes.read_counter ?? '—'}</td>
              <td>{scan.attributes.country ?? '—'}</td>
              <td>
                <SignalBadges signals={scan.attributes.signals} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableRegion>
  );
}

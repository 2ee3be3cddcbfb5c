import type { Verification } from '../api.ts';
import { Head, Link, Outcome, TableRegion, When } from './ui.tsx';

export function ScanTable(props: { label: string; scans: Verification[]; showTag?: boolean }) {
  if (props.scans.length === 0) return <p class="muted">No scans.</p>;
  const showTag = props.showTag ?? true;
  return (
    <TableRegion label={props.label}>
      <table>
        <Head columns={['Scanned', 'Outcome', showTag && 'Tag', 'Counter', 'Country']} />
        <tbody>
          {props.scans.map((scan) => (
            <tr key={scan.id}>
              <td>
                <Link to={`/scans/${scan.id}`}>
                  <When iso={scan.attributes.scanned_at} />
                </Link>
              </td>
              <td>
                <Outcome genuine={scan.attributes.genuine} reason={scan.attributes.reason} />
              </td>
              {showTag && (
                <td>
                  <Link to={`/tags/${scan.attributes.tag_id}`}>{scan.attributes.tag_id}</Link>
                </td>
              )}
              <td>{scan.attributes.read_counter ?? '—'}</td>
              <td>{scan.attributes.country ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableRegion>
  );
}

// A tag's writes (remote personalizations), newest first, with why a failed one failed.
import { must } from '../api.ts';
import { useLoad } from '../hooks.ts';
import { useSession } from '../session.ts';
import { ErrorLine, Head, TableRegion, When } from './ui.tsx';

export function TagWrites(props: { tagId: string }) {
  const { api } = useSession();
  const writes = useLoad(() => must(api.GET('/tags/{id}/writes', { params: { path: { id: props.tagId } } })), [api, props.tagId]);
  return (
    <section aria-labelledby="writes-heading">
      <h2 id="writes-heading">Writes</h2>
      <ErrorLine error={writes.error} />
      {writes.data && writes.data.data.length === 0 && <p class="muted">Never written.</p>}
      {writes.data && writes.data.data.length > 0 && (
        <TableRegion label={`Writes of ${props.tagId}`}>
          <table>
            <Head columns={['Write', 'Status', 'Step', 'Round trips', 'Started', 'Last change', 'Reason']} />
            <tbody>
              {writes.data.data.map((w) => (
                <tr key={w.id}>
                  <td>{w.id}</td>
                  <td>{w.attributes.status}</td>
                  <td>{w.attributes.step}</td>
                  <td>{w.attributes.round_trips}</td>
                  <td>
                    <When iso={w.attributes.started_at} />
                  </td>
                  <td>
                    <When iso={w.attributes.updated_at} />
                  </td>
                  <td>{w.attributes.reason ? `${w.attributes.reason.code}: ${w.attributes.reason.detail}` : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
    </section>
  );
}

// The pages a scan was claimed on through the extension API (POST /claims), newest first; the API lists
// the newest 100 and counts them all.
import { must } from '../api.ts';
import { useLoad } from '../hooks.ts';
import { useSession } from '../session.ts';
import { ErrorLine, Head, TableRegion, When } from './ui.tsx';

/** Only an http(s) URL becomes a link: the API accepts no other, and a `javascript:` one must never reach an href. */
const linkable = (url: string) => /^https?:\/\//i.test(url);

export function ScanClaims(props: { scanId: string }) {
  const { api } = useSession();
  const claims = useLoad(() => must(api.GET('/verifications/{id}/claims', { params: { path: { id: props.scanId } } })), [api, props.scanId]);
  const shown = claims.data?.data ?? [];
  const total = claims.data?.meta.total_count ?? 0;
  return (
    <section aria-labelledby="claims-heading">
      <h2 id="claims-heading">Claims</h2>
      <ErrorLine error={claims.error} />
      {claims.data && shown.length === 0 && <p class="muted">No claims.</p>}
      {shown.length > 0 && total > shown.length && (
        <p class="muted">
          The newest {shown.length} of {total} claims.
        </p>
      )}
      {shown.length > 0 && (
        <TableRegion label={`Claims of ${props.scanId}`}>
          <table>
            <Head columns={['Page', 'Note', 'Claimed']} />
            <tbody>
              {shown.map((c) => (
                <tr key={c.id}>
                  <td class="url">
                    {linkable(c.attributes.resource_url) ? (
                      <a href={c.attributes.resource_url} target="_blank" rel="noopener">
                        {c.attributes.resource_url}
                      </a>
                    ) : (
                      c.attributes.resource_url
                    )}
                  </td>
                  <td>{c.attributes.note ?? <span class="muted">—</span>}</td>
                  <td>
                    <When iso={c.attributes.created_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
    </section>
  );
}

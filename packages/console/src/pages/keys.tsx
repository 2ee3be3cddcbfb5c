// Keys: the team's keys of this mode, never their text (the API keeps only hashes).
import { must } from '../api.ts';
import { ErrorLine, Head, Loading, TableRegion, When } from '../components/ui.tsx';
import { useLoad } from '../hooks.ts';
import { useSession } from '../session.ts';

export function KeysPage() {
  const { api, mode } = useSession();
  const keys = useLoad(() => must(api.GET('/keys')), [api]);
  return (
    <>
      <h1>Keys</h1>
      <p class="muted">
        The team's {mode} keys. A key's text is shown only when it is created (<code>tapproof keys create</code>); tapproof keeps its hash.
      </p>
      <ErrorLine error={keys.error} />
      <Loading loading={keys.loading} />
      {keys.data && (
        <TableRegion label="Keys">
          <table>
            <Head columns={['Key', 'Mode', 'Created', 'Revoked']} />
            <tbody>
              {keys.data.data.map((k) => (
                <tr key={k.id}>
                  <td>{k.id}</td>
                  <td>{k.attributes.mode}</td>
                  <td>
                    <When iso={k.attributes.created_at} />
                  </td>
                  <td>{k.attributes.revoked_at ? <When iso={k.attributes.revoked_at} /> : 'active'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
    </>
  );
}

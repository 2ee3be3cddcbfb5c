// Who proved, with a wallet holding the item's token, that they own the scanned item (the extension API's
// proofs), oldest first: each later owner's proof replaced the one before, and the last one not replaced
// names the current owner.
import { must } from '../api.ts';
import { useLoad } from '../hooks.ts';
import { useSession } from '../session.ts';
import { ErrorLine, Head, TableRegion, When } from './ui.tsx';

export function ScanOwnershipProofs(props: { scanId: string }) {
  const { api } = useSession();
  const proofs = useLoad(() => must(api.GET('/verifications/{id}/ownership-proofs', { params: { path: { id: props.scanId } } })), [api, props.scanId]);
  return (
    <section aria-labelledby="ownership-proofs-heading">
      <h2 id="ownership-proofs-heading">Ownership proofs</h2>
      <ErrorLine error={proofs.error} />
      {proofs.data && proofs.data.data.length === 0 && <p class="muted">No ownership proof.</p>}
      {proofs.data && proofs.data.data.length > 0 && (
        <TableRegion label={`Ownership proofs of ${props.scanId}`}>
          <table>
            <Head columns={['Chain', 'Wallet address', 'Token', 'Verified', 'State']} />
            <tbody>
              {proofs.data.data.map((p) => (
                <tr key={p.id}>
                  <td>{p.attributes.chain}</td>
                  <td class="url">
                    <code>{p.attributes.wallet_address}</code>
                  </td>
                  <td>{p.attributes.token_id}</td>
                  <td>
                    <When iso={p.attributes.verified_at} />
                  </td>
                  <td>
                    {p.attributes.replaced_at ? (
                      <>
                        replaced <When iso={p.attributes.replaced_at} />
                      </>
                    ) : (
                      'current'
                    )}
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

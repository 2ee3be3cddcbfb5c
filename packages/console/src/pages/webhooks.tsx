// Webhooks: the world's webhooks and creating one (its secret shown once).
import { useState } from 'preact/hooks';
import { must } from '../api.ts';
import { SecretOnce } from '../components/secret.tsx';
import { WebhookForm } from '../components/webhook-form.tsx';
import { ErrorLine, Head, Link, Loading, TableRegion, When } from '../components/ui.tsx';
import { useLoad } from '../hooks.ts';
import { useSession } from '../session.ts';

export function WebhooksPage() {
  const { api, can } = useSession();
  const list = useLoad(() => must(api.GET('/webhooks')), [api]);
  const [secret, setSecret] = useState<{ id: string; secret: string } | null>(null);
  // Each creation mounts a new form: a clean url and the default events.
  const [created, setCreated] = useState(0);

  return (
    <>
      <h1>Webhooks</h1>
      <ErrorLine error={list.error} />
      <Loading loading={list.loading} />
      {list.data && list.data.data.length === 0 && <p class="muted">No webhooks yet.</p>}
      {list.data && list.data.data.length > 0 && (
        <TableRegion label="Webhooks">
          <table>
            <Head columns={['Webhook', 'URL', 'Events', 'State', 'Created']} />
            <tbody>
              {list.data.data.map((w) => (
                <tr key={w.id}>
                  <td>
                    <Link to={`/webhooks/${w.id}`}>{w.id}</Link>
                  </td>
                  <td class="url">{w.attributes.url}</td>
                  <td>{w.attributes.events.join(', ')}</td>
                  <td>{w.attributes.enabled ? 'enabled' : `disabled${w.attributes.disabled_reason ? ` (${w.attributes.disabled_reason})` : ''}`}</td>
                  <td>
                    <When iso={w.attributes.created_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
      {secret && (
        <>
          <p role="status">Created webhook {secret.id}.</p>
          <SecretOnce secret={secret.secret} onDone={() => setSecret(null)} />
        </>
      )}
      <section aria-labelledby="new-webhook-heading" class="panel" hidden={!can.write}>
        <h2 id="new-webhook-heading">Create a webhook</h2>
        <WebhookForm
          key={created}
          api={api}
          onCreated={(webhook) => {
            setSecret(webhook);
            setCreated((n) => n + 1);
            list.reload();
          }}
        />
      </section>
    </>
  );
}

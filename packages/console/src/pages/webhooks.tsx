// Webhooks: the world's webhooks and creating one (its secret shown once).
import { useState } from 'preact/hooks';
import { describeProblem, must, problemOf } from '../api.ts';
import { SecretOnce } from '../components/secret.tsx';
import { ErrorLine, Head, Link, Loading, TableRegion, When } from '../components/ui.tsx';
import { useLoad } from '../hooks.ts';
import { useSession } from '../session.ts';

export const EVENT_TYPES = ['tag.created', 'tag.configured', 'tag.configuration_failed', 'tag.deleted'] as const;

export function WebhooksPage() {
  const { api, can } = useSession();
  const list = useLoad(() => must(api.GET('/webhooks')), [api]);
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<Set<string>>(new Set(EVENT_TYPES));
  const [problem, setProblem] = useState<string | null>(null);
  const [secret, setSecret] = useState<{ id: string; secret: string } | null>(null);

  const create = async () => {
    const { data, error, response } = await api.POST('/webhooks', {
      body: { data: { type: 'webhooks', attributes: { url, events: [...events] } } } as never,
    });
    if (!data) return setProblem(describeProblem(problemOf(error, response)));
    setProblem(null);
    setUrl('');
    setSecret({ id: data.data.id, secret: data.data.attributes.secret ?? '' });
    list.reload();
  };

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
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void create();
          }}
        >
          <label for="webhook-url">Receiver URL</label>
          <input id="webhook-url" type="url" required value={url} onInput={(e) => setUrl(e.currentTarget.value)} placeholder="https://example.com/hooks" />
          <fieldset>
            <legend>Events</legend>
            {EVENT_TYPES.map((type) => (
              <label key={type} class="check">
                <input
                  type="checkbox"
                  checked={events.has(type)}
                  onChange={(e) => {
                    const next = new Set(events);
                    if (e.currentTarget.checked) next.add(type);
                    else next.delete(type);
                    setEvents(next);
                  }}
                />
                {type}
              </label>
            ))}
          </fieldset>
          <div class="actions">
            <button type="submit">Create webhook</button>
          </div>
          <ErrorLine error={problem} />
        </form>
      </section>
    </>
  );
}

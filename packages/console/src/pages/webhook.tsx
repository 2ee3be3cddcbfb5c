// One webhook: enable/disable, rotate its secret (the new one shown once), send it a test event, change
// its events, delete it, its deliveries with every attempt, and sending a delivery again.
import { useEffect, useState } from 'preact/hooks';
import { must, type Delivery } from '../api.ts';
import { SecretOnce } from '../components/secret.tsx';
import { EVENT_TYPES, EventChecks } from '../components/webhook-form.tsx';
import { ErrorLine, Head, Facts, Link, Loading, TableRegion, When, MessageLine } from '../components/ui.tsx';
import { useLoad, useWrite } from '../hooks.ts';
import { navigate } from '../router.ts';
import { useSession } from '../session.ts';

export function WebhookPage(props: { id: string }) {
  const { api, can } = useSession();
  const path = { id: props.id };
  const hook = useLoad(() => must(api.GET('/webhooks/{id}', { params: { path } })), [api, props.id]);
  const deliveries = useLoad(() => must(api.GET('/webhooks/{id}/deliveries', { params: { path, query: { page_size: 25 } } })), [api, props.id]);
  const [secret, setSecret] = useState<string | null>(null);
  const writes = useWrite();

  const update = (attributes: { enabled?: boolean; rotate_secret?: boolean; events?: string[] }, done: string) =>
    writes.send(api.PATCH('/webhooks/{id}', { params: { path }, body: { data: { type: 'webhooks', id: props.id, attributes } } as never }), (data) => {
      if (data.data.attributes.secret) setSecret(data.data.attributes.secret);
      hook.reload();
      return done;
    });
  const remove = async () => {
    if (!confirm(`Delete webhook ${props.id}? It receives nothing from now on.`)) return;
    await writes.send(api.DELETE('/webhooks/{id}', { params: { path } }), () => navigate('/webhooks'));
  };
  const sendTest = () =>
    writes.send(api.POST('/webhooks/{id}/test', { params: { path } }), (data) => {
      deliveries.reload();
      return `Sent test event ${data.data.id}: its delivery is below.`;
    });
  const redeliver = (delivery: Delivery) =>
    writes.send(api.POST('/webhooks/{id}/deliveries/{eventId}/redeliver', { params: { path: { id: props.id, eventId: delivery.id } } }), () => {
      deliveries.reload();
      return `Sending ${delivery.id} again.`;
    });

  const a = hook.data?.data.attributes;
  return (
    <>
      <h1>Webhook {props.id}</h1>
      <p>
        <Link to="/webhooks">All webhooks</Link>
      </p>
      <ErrorLine error={hook.error} />
      <Loading loading={hook.loading && !a} />
      {a && (
        <>
          <Facts
            items={[
              ['URL', <span class="url">{a.url}</span>],
              ['Events', a.events.join(', ')],
              ['State', a.enabled ? 'enabled' : `disabled${a.disabled_reason ? ` (${a.disabled_reason})` : ''}`],
              ['Previous secret signs until', a.previous_secret_expires_at ? <When iso={a.previous_secret_expires_at} /> : 'no previous secret'],
              ['Created', <When iso={a.created_at} />],
            ]}
          />
          <div class="actions" hidden={!can.write}>
            <button
              type="button"
              class="secondary"
              onClick={() => void update({ enabled: !a.enabled }, a.enabled ? 'Disabled the webhook.' : 'Enabled the webhook.')}
            >
              {a.enabled ? 'Disable' : 'Enable'}
            </button>
            <button
              type="button"
              class="secondary"
              onClick={() => void update({ rotate_secret: true }, 'Rotated the secret: the old one keeps signing for 24 hours.')}
            >
              Rotate secret
            </button>
            <button type="button" class="secondary" disabled={!a.enabled} onClick={() => void sendTest()}>
              Send a test event
            </button>
            <button type="button" class="danger" onClick={() => void remove()}>
              Delete webhook
            </button>
          </div>
          <MessageLine message={writes.message} />
          {secret && <SecretOnce secret={secret} onDone={() => setSecret(null)} />}
          {can.write && <EventsForm stored={a.events} save={(ticked) => void update({ events: ticked }, `The webhook now receives ${ticked.join(', ')}.`)} />}
        </>
      )}
      <section aria-labelledby="deliveries-heading">
        <h2 id="deliveries-heading">Deliveries</h2>
        <button type="button" class="secondary" onClick={deliveries.reload}>
          Refresh deliveries
        </button>
        <ErrorLine error={deliveries.error} />
        {deliveries.data && deliveries.data.data.length === 0 && <p class="muted">No deliveries yet.</p>}
        {deliveries.data && deliveries.data.data.length > 0 && (
          <TableRegion label="Deliveries">
            <table>
              <Head columns={['Event', 'Kind', 'Tag', 'Status', 'Attempts', can.write && { hidden: 'Actions' }]} />
              <tbody>
                {deliveries.data.data.map((d) => (
                  <DeliveryRow key={d.id} d={d} canWrite={can.write} redeliver={redeliver} />
                ))}
              </tbody>
            </table>
          </TableRegion>
        )}
      </section>
    </>
  );
}

/** The events the webhook receives, ticked anew from what is stored whenever that changes. */
function EventsForm(props: { stored: string[]; save: (events: string[]) => void }) {
  const [events, setEvents] = useState<Set<string>>(new Set(props.stored));
  const stored = props.stored.join(',');
  useEffect(() => setEvents(new Set(props.stored)), [stored]);
  return (
    <section aria-labelledby="events-heading" class="panel">
      <h2 id="events-heading">Change its events</h2>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          // In the API's order, whatever order they were ticked in.
          props.save(EVENT_TYPES.filter((type) => events.has(type)));
        }}
      >
        <EventChecks events={events} onChange={setEvents} />
        <div class="actions">
          <button type="submit">Save events</button>
        </div>
      </form>
    </section>
  );
}

/** One event's delivery: its state and every attempt, each with the answer's first bytes where there were any. */
function DeliveryRow(props: { d: Delivery; canWrite: boolean; redeliver: (d: Delivery) => Promise<boolean> }) {
  const { d } = props;
  return (
    <tr>
      <td>{d.id}</td>
      <td>{d.attributes.event_type}</td>
      <td>{d.attributes.tag_id ? <Link to={`/tags/${d.attributes.tag_id}`}>{d.attributes.tag_id}</Link> : <span class="muted">none</span>}</td>
      <td>
        {d.attributes.status}
        {d.attributes.next_attempt_at && (
          <span class="muted">
            {' '}
            (next attempt <When iso={d.attributes.next_attempt_at} />)
          </span>
        )}
      </td>
      <td>
        <ol class="attempts">
          {d.attributes.attempts.map((t) => (
            <li key={t.attempt}>
              #{t.attempt} <When iso={t.started_at} />: {t.status_code ?? 'no answer'} in {t.duration_ms} ms
              {/* An error that only repeats the status ("HTTP 500") is not said twice. */}
              {t.error && t.error !== `HTTP ${t.status_code}` ? ` (${t.error})` : ''}
              {t.response_body ? (
                <details class="response-body">
                  <summary>Response body (first bytes)</summary>
                  <pre>{t.response_body}</pre>
                </details>
              ) : null}
            </li>
          ))}
        </ol>
      </td>
      {props.canWrite && (
        <td>
          <button type="button" class="secondary" aria-label={`Redeliver ${d.id}`} onClick={() => void props.redeliver(d)}>
            Redeliver
          </button>
        </td>
      )}
    </tr>
  );
}

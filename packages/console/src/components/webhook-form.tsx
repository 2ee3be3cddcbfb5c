// Creating a webhook: its receiver and the events it takes. The page mounts a fresh form after each
// creation, so a second webhook never inherits the first one's ticks.
import { useState } from 'preact/hooks';
import { describeProblem, problemOf, type Api } from '../api.ts';
import { ErrorLine } from './ui.tsx';

// The API's events (src/webhooks/event-types.ts): the four tag events it subscribes a webhook to by default,
// then those received only when asked for.
const DEFAULT_EVENTS = ['tag.created', 'tag.configured', 'tag.configuration_failed', 'tag.deleted'] as const;
export const EVENT_TYPES = [...DEFAULT_EVENTS, 'verification.flagged', 'tag.rekeyed', 'case.opened', 'case.updated'] as const;

/** The events a webhook takes, as ticks, in the API's order. */
export function EventChecks(props: { events: Set<string>; onChange: (events: Set<string>) => void }) {
  return (
    <fieldset>
      <legend>Events</legend>
      {EVENT_TYPES.map((type) => (
        <label key={type} class="check">
          <input
            type="checkbox"
            checked={props.events.has(type)}
            onChange={(e) => {
              const next = new Set(props.events);
              if (e.currentTarget.checked) next.add(type);
              else next.delete(type);
              props.onChange(next);
            }}
          />
          {type}
        </label>
      ))}
    </fieldset>
  );
}

export function WebhookForm(props: { api: Api; onCreated: (created: { id: string; secret: string }) => void }) {
  const [url, setUrl] = useState('');
  // The API's default when `events` is left out: the four tag events.
  const [events, setEvents] = useState<Set<string>>(() => new Set(DEFAULT_EVENTS));
  const [problem, setProblem] = useState<string | null>(null);

  const create = async () => {
    // In the form's order, whatever order they were ticked in.
    const ticked = EVENT_TYPES.filter((type) => events.has(type));
    const { data, error, response } = await props.api.POST('/webhooks', {
      body: { data: { type: 'webhooks', attributes: { url, events: ticked } } } as never,
    });
    if (!data) return setProblem(describeProblem(problemOf(error, response)));
    props.onCreated({ id: data.data.id, secret: data.data.attributes.secret ?? '' });
  };

  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        void create();
      }}
    >
      <label for="webhook-url">Receiver URL</label>
      <input id="webhook-url" type="url" required value={url} onInput={(e) => setUrl(e.currentTarget.value)} placeholder="https://example.com/hooks" />
      <EventChecks events={events} onChange={setEvents} />
      <div class="actions">
        <button type="submit">Create webhook</button>
      </div>
      <ErrorLine error={problem} />
    </form>
  );
}

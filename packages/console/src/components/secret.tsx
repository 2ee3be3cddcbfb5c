// What the API shows once (a webhook's signing secret, a key's text, a user's one-time link): shown in
// one panel that says so, until the person says they have kept it.
import type { ComponentChildren } from 'preact';

export function ShownOnce(props: { heading: ComponentChildren; value: string; note: string; done: string; onDone: () => void }) {
  return (
    <div class="panel secret" role="status">
      <p>
        <strong>{props.heading}</strong>
      </p>
      <p>
        <code class="secret-value">{props.value}</code>
      </p>
      <p class="muted">{props.note}</p>
      <button type="button" class="secondary" onClick={props.onDone}>
        {props.done}
      </button>
    </div>
  );
}

export function SecretOnce(props: { secret: string; onDone: () => void }) {
  return (
    <ShownOnce
      heading="The signing secret, shown this once:"
      value={props.secret}
      note="Keep it in your receiver's configuration now: tapproof stores it sealed and never shows it again."
      done="I have kept it"
      onDone={props.onDone}
    />
  );
}

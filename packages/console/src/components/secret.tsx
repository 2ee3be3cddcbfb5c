// What the API shows once (a webhook's signing secret, a key's text, a user's one-time link): shown in
// one panel that says so, until the person says they have kept it.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';

export function ShownOnce(props: { heading: ComponentChildren; value: string; note: string; done: string; onDone: () => void; what?: string }) {
  const [copied, setCopied] = useState<string | null>(null);
  // A value shown once is easy to mistype and long to select on a phone: one click puts it on the clipboard.
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.value);
      setCopied('Copied');
    } catch {
      setCopied('Could not copy: select the text and copy it by hand');
    }
  };
  return (
    <div class="panel secret" role="status">
      <p>
        <strong>{props.heading}</strong>
      </p>
      <p>
        <code class="secret-value">{props.value}</code>
      </p>
      <p class="muted">{props.note}</p>
      <div class="actions">
        <button type="button" aria-label={`Copy ${props.what ?? 'it'}`} onClick={() => void copy()}>
          Copy
        </button>
        <button type="button" class="secondary" onClick={props.onDone}>
          {props.done}
        </button>
        {copied && <span class="muted said">{copied}</span>}
      </div>
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
      what="the signing secret"
    />
  );
}

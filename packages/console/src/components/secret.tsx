// A webhook secret as the API shows it: once, in the answer that created or rotated it.
export function SecretOnce(props: { secret: string; onDone: () => void }) {
  return (
    <div class="panel secret" role="status">
      <p>
        <strong>The signing secret, shown this once:</strong>
      </p>
      <p>
        <code class="secret-value">{props.secret}</code>
      </p>
      <p class="muted">Keep it in your receiver's configuration now: tapproof stores it sealed and never shows it again.</p>
      <button type="button" class="secondary" onClick={props.onDone}>
        I have kept it
      </button>
    </div>
  );
}

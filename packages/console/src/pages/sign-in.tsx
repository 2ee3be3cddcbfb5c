import { useState } from 'preact/hooks';

export function SignIn(props: { onSubmit: (key: string) => void; refusal: string | null; checking: boolean }) {
  const [key, setKey] = useState('');
  return (
    <main id="main" class="sign-in">
      <h1>tapproof console</h1>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (key.trim()) props.onSubmit(key.trim());
        }}
      >
        <label for="api-key">API key</label>
        <input
          id="api-key"
          name="api-key"
          type="password"
          autoComplete="off"
          spellcheck={false}
          required
          value={key}
          onInput={(event) => setKey(event.currentTarget.value)}
          aria-describedby="api-key-help"
        />
        <p id="api-key-help" class="muted">
          A sandbox (tp_sandbox_…) or production (tp_live_…) key. It is kept in this tab only and cleared on sign-out.
        </p>
        <button type="submit" disabled={props.checking}>
          {props.checking ? 'Checking…' : 'Sign in'}
        </button>
        {props.refusal && (
          <p class="error" role="alert">
            {props.refusal}
          </p>
        )}
      </form>
    </main>
  );
}

// Signing in: email and password, a passkey, single sign-on when the deployment has it, and, where the
// deployment allows it (development), a pasted API key.
import { useState } from 'preact/hooks';
import type { SignInMethods } from '../auth.ts';

interface Props {
  /** What the deployment offers; null until known. */
  methods: SignInMethods | null;
  refusal: string | null;
  checking: boolean;
  onPassword: (email: string, password: string) => void;
  onPasskey: () => void;
  onKey: (key: string) => void;
}

export function SignIn(props: Props) {
  const { methods, checking } = props;
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [key, setKey] = useState('');
  return (
    <main id="main" class="sign-in">
      <h1>tapproof console</h1>
      {props.refusal && (
        <p class="error" role="alert">
          {props.refusal}
        </p>
      )}
      <form
        aria-labelledby="password-heading"
        onSubmit={(event) => {
          event.preventDefault();
          props.onPassword(email.trim(), password);
        }}
      >
        <h2 id="password-heading">Sign in</h2>
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autoComplete="username webauthn" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        <label for="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
        <button type="submit" disabled={checking}>
          {checking ? 'Checking…' : 'Sign in'}
        </button>
      </form>
      <div class="alternatives">
        <button type="button" class="secondary" disabled={checking} onClick={props.onPasskey}>
          Sign in with a passkey
        </button>
        {methods?.oidc && (
          <a class="button secondary" href="/auth/oidc/start">
            Sign in with single sign-on
          </a>
        )}
      </div>
      {methods?.key && (
        <form
          aria-labelledby="key-heading"
          onSubmit={(event) => {
            event.preventDefault();
            if (key.trim()) props.onKey(key.trim());
          }}
        >
          <h2 id="key-heading">Or with an API key (development)</h2>
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
          <button type="submit" class="secondary" disabled={checking}>
            Sign in with the key
          </button>
        </form>
      )}
    </main>
  );
}

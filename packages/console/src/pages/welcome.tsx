// A one-time link's page (/console/welcome#<token>): an invitee or a reset user sets a password or
// registers a passkey, and is signed in. The token is read from the fragment, which no server sees.
import { useEffect, useState } from 'preact/hooks';
import { auth, passkeys, type LinkInfo, type SignedIn } from '../auth.ts';

const PASSWORD_MIN = 12;

export function Welcome(props: { onSignedIn: (who: SignedIn) => void }) {
  const [token] = useState(() => location.hash.slice(1));
  const [link, setLink] = useState<LinkInfo | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    // The token leaves the address bar: a shared screen or a bookmark does not carry it on.
    history.replaceState(null, '', location.pathname);
    if (!token) setError('This page needs the link you were sent, whole.');
    else auth.inspectLink(token).then(setLink, (e: Error) => setError(e.message));
  }, []);

  const finish = async (attempt: () => Promise<SignedIn>) => {
    setBusy(true);
    setError(null);
    try {
      props.onSignedIn(await attempt());
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main id="main" class="sign-in">
      <h1>Welcome to the tapproof console</h1>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {link && (
        <>
          <p>
            {link.purpose === 'invite' ? 'You are invited' : 'Your sign-in was reset'}: <strong>{link.email}</strong>, {link.role} of{' '}
            {link.team.name ?? link.team.id}. Choose how you will sign in.
          </p>
          <form
            aria-labelledby="set-password-heading"
            onSubmit={(event) => {
              event.preventDefault();
              if (password !== repeat) return setError('The two passwords differ.');
              void finish(() => auth.setPassword(token, password));
            }}
          >
            <h2 id="set-password-heading">Set a password</h2>
            {/* For password managers: the account the new password belongs to. */}
            <input type="email" name="email" autoComplete="username" aria-label="Email" value={link.email} hidden readOnly />
            <label for="new-password">New password</label>
            <input
              id="new-password"
              type="password"
              autoComplete="new-password"
              minLength={PASSWORD_MIN}
              required
              value={password}
              onInput={(e) => setPassword(e.currentTarget.value)}
              aria-describedby="new-password-help"
            />
            <p id="new-password-help" class="muted">
              At least {PASSWORD_MIN} characters.
            </p>
            <label for="repeat-password">Repeat the password</label>
            <input id="repeat-password" type="password" autoComplete="new-password" required value={repeat} onInput={(e) => setRepeat(e.currentTarget.value)} />
            <button type="submit" disabled={busy}>
              Set password and sign in
            </button>
          </form>
          <div class="alternatives">
            <button type="button" class="secondary" disabled={busy} onClick={() => void finish(() => passkeys.registerWithLink(token))}>
              Register a passkey instead
            </button>
          </div>
        </>
      )}
    </main>
  );
}

// Keys: the team's keys of this mode, never their text (the API keeps only hashes). An admin key
// creates keys of a role, rolls them with an overlap and revokes them; a new key's text is shown once.
import { useState } from 'preact/hooks';
import { describeProblem, must, problemOf, problemsAt, type Key, type Role } from '../api.ts';
import { ErrorLine, Head, Loading, TableRegion, When, MessageLine, type Message } from '../components/ui.tsx';
import { ShownOnce } from '../components/secret.tsx';
import { useLoad } from '../hooks.ts';
import { useSession } from '../session.ts';

const ROLES: { role: Role; what: string }[] = [
  { role: 'admin', what: 'everything, keys included' },
  { role: 'write', what: 'everything but keys' },
  { role: 'read', what: 'reads only' },
  { role: 'verify', what: "verifies scans and reads verifications and sessions: a landing page's backend" },
];

const OVERLAPS = [
  { seconds: 0, label: 'ends now' },
  { seconds: 3600, label: 'works 1 more hour' },
  { seconds: 86_400, label: 'works 1 more day' },
  { seconds: 604_800, label: 'works 7 more days' },
];

function state(k: Key): string {
  const a = k.attributes;
  if (a.revoked_at) return 'revoked';
  if (a.expires_at && Date.parse(a.expires_at) <= Date.now()) return a.replaced_by ? `rolled to ${a.replaced_by}` : 'expired';
  if (a.replaced_by) return `rolled to ${a.replaced_by}, ends soon`;
  return 'active';
}

export function KeysPage() {
  const { api, mode, can, user } = useSession();
  if (!can.admin)
    return (
      <>
        <h1>Keys</h1>
        <p>
          {user
            ? 'Keys are managed by admins: ask an admin of your team to create, roll or revoke a key, or to make you an admin.'
            : 'Keys are managed with an admin key: sign in with one to create, roll or revoke keys.'}
        </p>
      </>
    );
  return <ManageKeys api={api} mode={mode} />;
}

function ManageKeys(props: { api: ReturnType<typeof useSession>['api']; mode: string }) {
  const { api, mode } = props;
  const keys = useLoad(() => must(api.GET('/keys')), [api]);
  const [made, setMade] = useState<{ id: string; text: string } | null>(null);
  const [message, setMessage] = useState<Message>(null);
  const [role, setRole] = useState<Role>('read');
  const [name, setName] = useState('');
  const [expires, setExpires] = useState('');
  const [problems, setProblems] = useState<Record<string, string[]>>({});
  const [overlap, setOverlap] = useState<Record<string, number>>({});

  const create = async () => {
    setMessage(null);
    const attributes = { role, ...(name ? { name } : {}), ...(expires ? { expires_at: new Date(expires).toISOString() } : {}) };
    const { data, error, response } = await api.POST('/keys', { body: { data: { type: 'keys', attributes } } });
    if (data) {
      setProblems({});
      setMade({ id: data.data.id, text: data.data.attributes.key! });
      setName('');
      setExpires('');
      keys.reload();
    } else {
      const problem = problemOf(error, response);
      setProblems(problemsAt(problem, '/data/attributes'));
      setMessage({ error: true, text: describeProblem(problem) });
    }
  };

  const roll = async (k: Key) => {
    const seconds = overlap[k.id] ?? 0;
    if (!confirm(`Roll ${k.id}? A new key replaces it; the old one ${OVERLAPS.find((o) => o.seconds === seconds)!.label}.`)) return;
    const { data, error, response } = await api.POST('/keys/{id}/roll', {
      params: { path: { id: k.id } },
      body: { data: { type: 'keys', attributes: { expires_in: seconds } } },
    });
    if (data) {
      setMade({ id: data.data.id, text: data.data.attributes.key! });
      setMessage({ error: false, text: `Rolled ${k.id} to ${data.data.id}.` });
      keys.reload();
    } else setMessage({ error: true, text: describeProblem(problemOf(error, response)) });
  };

  const revoke = async (k: Key) => {
    if (!confirm(`Revoke ${k.id}? Every request with it is refused from now on.`)) return;
    const { error, response } = await api.DELETE('/keys/{id}', { params: { path: { id: k.id } } });
    if (response.status === 204) {
      setMessage({ error: false, text: `Revoked ${k.id}.` });
      keys.reload();
    } else setMessage({ error: true, text: describeProblem(problemOf(error, response)) });
  };

  return (
    <>
      <h1>Keys</h1>
      <p class="muted">The team's {mode} keys. A key's text is shown only when it is created or rolled; tapproof keeps its hash.</p>
      <ErrorLine error={keys.error} />
      <Loading loading={keys.loading} />
      {made && (
        <ShownOnce
          heading={`Key ${made.id}, shown this once:`}
          value={made.text}
          note="Keep it where it will be used now: tapproof stores only its hash and never shows it again."
          done="I have kept it"
          onDone={() => setMade(null)}
          what="the key"
        />
      )}
      <MessageLine message={message} />
      {keys.data && (
        <TableRegion label="Keys">
          <table>
            <Head columns={['Key', 'Name', 'Role', 'Created', 'Expires', 'Last used', 'State', { hidden: 'Actions' }]} />
            <tbody>
              {keys.data.data.map((k) => {
                const live = state(k) === 'active';
                // A rolled key still works until its overlap ends; it can be cut short, not rolled again.
                const overlapping = state(k).startsWith('rolled to') && state(k).endsWith('ends soon');
                return (
                  <tr key={k.id}>
                    <td>{k.id}</td>
                    <td>{k.attributes.name ?? ''}</td>
                    <td>{k.attributes.role}</td>
                    <td>
                      <When iso={k.attributes.created_at} />
                    </td>
                    <td>{k.attributes.expires_at ? <When iso={k.attributes.expires_at} /> : 'never'}</td>
                    <td>{k.attributes.last_used_at ? <When iso={k.attributes.last_used_at} /> : 'never'}</td>
                    <td>
                      {k.attributes.revoked_at ? (
                        <>
                          revoked <When iso={k.attributes.revoked_at} />
                        </>
                      ) : (
                        state(k)
                      )}
                    </td>
                    <td>
                      {live && (
                        <div class="row-actions">
                          <label class="visually-hidden" for={`overlap-${k.id}`}>
                            After rolling {k.id}, the old key
                          </label>
                          <select
                            id={`overlap-${k.id}`}
                            value={overlap[k.id] ?? 0}
                            onChange={(e) => setOverlap({ ...overlap, [k.id]: Number(e.currentTarget.value) })}
                          >
                            {OVERLAPS.map((o) => (
                              <option key={o.seconds} value={o.seconds}>
                                {o.label}
                              </option>
                            ))}
                          </select>
                          <button type="button" class="secondary" aria-label={`Roll ${k.id}`} onClick={() => void roll(k)}>
                            Roll
                          </button>
                          <button type="button" class="danger" aria-label={`Revoke ${k.id}`} onClick={() => void revoke(k)}>
                            Revoke
                          </button>
                        </div>
                      )}
                      {overlapping && (
                        <div class="row-actions">
                          <button type="button" class="danger" aria-label={`Revoke ${k.id}`} onClick={() => void revoke(k)}>
                            Revoke
                          </button>
                        </div>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableRegion>
      )}
      <section aria-labelledby="new-key-heading" class="panel">
        <h2 id="new-key-heading">Create a key</h2>
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void create();
          }}
        >
          <fieldset>
            <legend>Role</legend>
            {ROLES.map((r) => (
              <label key={r.role} class="check">
                <input type="radio" name="role" value={r.role} checked={role === r.role} onChange={() => setRole(r.role)} />
                {r.role}: {r.what}
              </label>
            ))}
          </fieldset>
          <label for="key-name">Name (optional)</label>
          <input id="key-name" value={name} maxLength={100} onInput={(e) => setName(e.currentTarget.value)} aria-invalid={problems.name ? 'true' : undefined} />
          {problems.name && <p class="error">{problems.name.join(' ')}</p>}
          <label for="key-expires">Expires (optional, your local time)</label>
          <input
            id="key-expires"
            type="datetime-local"
            value={expires}
            onInput={(e) => setExpires(e.currentTarget.value)}
            aria-invalid={problems.expires_at ? 'true' : undefined}
          />
          {problems.expires_at && <p class="error">{problems.expires_at.join(' ')}</p>}
          <div class="actions">
            <button type="submit">Create key</button>
          </div>
        </form>
      </section>
    </>
  );
}

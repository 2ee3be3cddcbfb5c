// Keys: the team's keys of this mode, never their text (the API keeps only hashes). An admin key
// creates keys of a role, rolls them with an overlap and revokes them; a new key's text is shown once.
import { useState } from 'preact/hooks';
import { must, problemsAt, type Api, type Key, type Role } from '../api.ts';
import { ErrorLine, Head, Loading, TableRegion, When, MessageLine } from '../components/ui.tsx';
import { ShownOnce } from '../components/secret.tsx';
import { useLoad, useWrite, type Writes } from '../hooks.ts';
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

function ManageKeys(props: { api: Api; mode: string }) {
  const { api, mode } = props;
  const keys = useLoad(() => must(api.GET('/keys')), [api]);
  const [made, setMade] = useState<{ id: string; text: string } | null>(null);
  const writes = useWrite();

  const roll = async (k: Key, seconds: number) => {
    if (!confirm(`Roll ${k.id}? A new key replaces it; the old one ${OVERLAPS.find((o) => o.seconds === seconds)!.label}.`)) return;
    await writes.send(
      api.POST('/keys/{id}/roll', { params: { path: { id: k.id } }, body: { data: { type: 'keys', attributes: { expires_in: seconds } } } }),
      (data) => {
        setMade({ id: data.data.id, text: data.data.attributes.key! });
        keys.reload();
        return `Rolled ${k.id} to ${data.data.id}.`;
      },
    );
  };

  const revoke = async (k: Key) => {
    if (!confirm(`Revoke ${k.id}? Every request with it is refused from now on.`)) return;
    await writes.send(api.DELETE('/keys/{id}', { params: { path: { id: k.id } } }), () => {
      keys.reload();
      return `Revoked ${k.id}.`;
    });
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
      <MessageLine message={writes.message} />
      {keys.data && (
        <TableRegion label="Keys">
          <table>
            <Head columns={['Key', 'Name', 'Role', 'Created', 'Expires', 'Last used', 'State', { hidden: 'Actions' }]} />
            <tbody>
              {keys.data.data.map((k) => (
                <KeyRow key={k.id} k={k} roll={roll} revoke={revoke} />
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
      <NewKeyForm
        api={api}
        writes={writes}
        onMade={(key) => {
          setMade(key);
          keys.reload();
        }}
      />
    </>
  );
}

/** A key and what can be done to it: a live one rolled (the old one kept for a chosen overlap) or revoked, a rolled one cut short. */
function KeyRow(props: { k: Key; roll: (k: Key, seconds: number) => Promise<void>; revoke: (k: Key) => Promise<void> }) {
  const { k, roll, revoke } = props;
  const [overlap, setOverlap] = useState(0);
  const live = state(k) === 'active';
  // A rolled key still works until its overlap ends; it can be cut short, not rolled again.
  const overlapping = state(k).startsWith('rolled to') && state(k).endsWith('ends soon');
  return (
    <tr>
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
            <select id={`overlap-${k.id}`} value={overlap} onChange={(e) => setOverlap(Number(e.currentTarget.value))}>
              {OVERLAPS.map((o) => (
                <option key={o.seconds} value={o.seconds}>
                  {o.label}
                </option>
              ))}
            </select>
            <button type="button" class="secondary" aria-label={`Roll ${k.id}`} onClick={() => void roll(k, overlap)}>
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
}

/** Creates a key of a role, with an optional name and expiry; a refusal marks the fields it names, and shows on the page's line. */
function NewKeyForm(props: { api: Api; writes: Writes; onMade: (key: { id: string; text: string }) => void }) {
  const [role, setRole] = useState<Role>('read');
  const [name, setName] = useState('');
  const [expires, setExpires] = useState('');
  const [problems, setProblems] = useState<Record<string, string[]>>({});

  const create = async () => {
    const attributes = { role, ...(name ? { name } : {}), ...(expires ? { expires_at: new Date(expires).toISOString() } : {}) };
    await props.writes.send(
      props.api.POST('/keys', { body: { data: { type: 'keys', attributes } } }),
      (data) => {
        setProblems({});
        setName('');
        setExpires('');
        props.onMade({ id: data.data.id, text: data.data.attributes.key! });
      },
      (problem) => setProblems(problemsAt(problem, '/data/attributes')),
    );
  };

  return (
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
  );
}

// Users: the people of the team who sign in to the console. An admin invites one (a one-time link to
// hand over), changes a role, disables or enables, and resets a lost password or passkey (a new link).
import { useState } from 'preact/hooks';
import { must, problemsAt, type Api, type User } from '../api.ts';
import { ErrorLine, Head, Loading, TableRegion, When, MessageLine, type Message } from '../components/ui.tsx';
import { ShownOnce } from '../components/secret.tsx';
import { useLoad, useWrite, type Writes } from '../hooks.ts';
import { useSession } from '../session.ts';

type UserRole = 'admin' | 'write' | 'read';
const ROLES: { role: UserRole; what: string }[] = [
  { role: 'admin', what: 'everything, users and keys included' },
  { role: 'write', what: 'everything but users and keys' },
  { role: 'read', what: 'looks only' },
];

function sign(u: User): string {
  const a = u.attributes;
  const ways = [a.password && 'password', a.passkeys > 0 && `${a.passkeys} passkey${a.passkeys > 1 ? 's' : ''}`, a.single_sign_on && 'single sign-on'].filter(
    Boolean,
  );
  return ways.length > 0 ? ways.join(', ') : 'link not used yet';
}

export function UsersPage() {
  const { api, can } = useSession();
  if (!can.admin)
    return (
      <>
        <h1>Users</h1>
        <p>Users are managed by admins.</p>
      </>
    );
  return <ManageUsers api={api} />;
}

function ManageUsers(props: { api: Api }) {
  const { api } = props;
  const { user: me } = useSession();
  const users = useLoad(() => must(api.GET('/users')), [api]);
  const [link, setLink] = useState<{ email: string; url: string } | null>(null);
  const writes = useWrite();
  // Disabling ends the person's sessions at once, so it takes a second, explicit click.
  const [disabling, setDisabling] = useState<string | null>(null);

  const update = async (u: User, attributes: { role?: UserRole; disabled?: boolean }, done: string) => {
    await writes.send(api.PATCH('/users/{id}', { params: { path: { id: u.id } }, body: { data: { type: 'users', id: u.id, attributes } } }), () => {
      users.reload();
      return done;
    });
  };

  const reset = async (u: User) => {
    if (!confirm(`Reset ${u.attributes.email}? Their password and passkeys are removed and their sessions end; a new link lets them set new ones.`)) return;
    await writes.send(api.POST('/users/{id}/reset', { params: { path: { id: u.id } } }), (data) => {
      const { url, emailed_to } = data.data.attributes.link!;
      if (url !== null) setLink({ email: data.data.attributes.email, url });
      users.reload();
      return emailed_to === null ? `Reset ${u.attributes.email}.` : `Reset ${u.attributes.email}: their new link was emailed to ${emailed_to}.`;
    });
  };

  return (
    <>
      <h1>Users</h1>
      <p class="muted">The people of this team who sign in to the console, in both modes. A role or an account change ends their sessions at once.</p>
      <ErrorLine error={users.error} />
      <Loading loading={users.loading} />
      {link && (
        <ShownOnce
          heading={`The one-time link for ${link.email}, shown this once:`}
          value={link.url}
          note="Hand it to them over a channel you trust: it signs them in once, within 72 hours."
          done="I have handed it over"
          onDone={() => setLink(null)}
          what="the link"
        />
      )}
      <MessageLine message={writes.message} />
      {users.data && (
        <TableRegion label="Users">
          <table>
            <Head columns={['Email', 'Role', 'Signs in with', 'Last sign-in', 'State', { hidden: 'Actions' }]} />
            <tbody>
              {users.data.data.map((u) => (
                <UserRow
                  key={u.id}
                  u={u}
                  self={me?.id === u.id}
                  update={update}
                  reset={reset}
                  disabling={disabling === u.id}
                  setDisabling={(on) => setDisabling(on ? u.id : null)}
                  say={writes.setMessage}
                />
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
      <InviteForm
        api={api}
        writes={writes}
        onInvited={(invited) => {
          setLink(invited);
          users.reload();
        }}
      />
    </>
  );
}

/** A person of the team: their role changed in place, their account disabled (after a second click) or enabled, or reset. */
function UserRow(props: {
  u: User;
  self: boolean;
  update: (u: User, attributes: { role?: UserRole; disabled?: boolean }, done: string) => Promise<void>;
  reset: (u: User) => Promise<void>;
  disabling: boolean;
  setDisabling: (on: boolean) => void;
  say: (message: Message) => void;
}) {
  const { u, self, update, reset } = props;
  const a = u.attributes;
  return (
    <tr>
      <td>
        {a.email}
        {self && ' (you)'}
      </td>
      <td>
        <label class="visually-hidden" for={`role-${u.id}`}>
          Role of {a.email}
        </label>
        <select
          id={`role-${u.id}`}
          value={a.role}
          onChange={(e) => void update(u, { role: e.currentTarget.value as UserRole }, `${a.email} is now ${e.currentTarget.value}.`)}
        >
          {ROLES.map((r) => (
            <option key={r.role} value={r.role}>
              {r.role}
            </option>
          ))}
        </select>
      </td>
      <td>{sign(u)}</td>
      <td>{a.last_sign_in_at ? <When iso={a.last_sign_in_at} /> : 'never'}</td>
      <td>{a.disabled_at ? 'disabled' : 'enabled'}</td>
      <td>
        <div class="row-actions">
          {a.disabled_at ? (
            <button type="button" class="secondary" aria-label={`Enable ${a.email}`} onClick={() => void update(u, { disabled: false }, `Enabled ${a.email}.`)}>
              Enable
            </button>
          ) : props.disabling ? (
            <>
              <button
                type="button"
                class="danger"
                aria-label={`Confirm disable ${a.email}`}
                onClick={() => {
                  props.setDisabling(false);
                  void update(u, { disabled: true }, `Disabled ${a.email}.`);
                }}
              >
                Confirm disable
              </button>
              <button type="button" class="secondary" aria-label={`Keep ${a.email} enabled`} onClick={() => props.setDisabling(false)}>
                Cancel
              </button>
            </>
          ) : (
            <button
              type="button"
              class="danger"
              aria-label={`Disable ${a.email}`}
              onClick={() => {
                props.setDisabling(true);
                props.say({ error: false, text: `Disabling ${a.email} ends their sessions at once: confirm or cancel.` });
              }}
            >
              Disable
            </button>
          )}
          <button type="button" class="secondary" aria-label={`Reset ${a.email}`} onClick={() => void reset(u)}>
            Reset
          </button>
        </div>
      </td>
    </tr>
  );
}

/** Invites a person by email with a role; their one-time link is the page's to show. */
function InviteForm(props: { api: Api; writes: Writes; onInvited: (link: { email: string; url: string }) => void }) {
  // With email on (docs/email.md) the server mails the link and never shows it.
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<UserRole>('read');
  const [problems, setProblems] = useState<Record<string, string[]>>({});

  const invite = async () => {
    await props.writes.send(
      props.api.POST('/users', { body: { data: { type: 'users', attributes: { email, role } } } }),
      (data) => {
        setProblems({});
        setEmail('');
        const { url, emailed_to } = data.data.attributes.link!;
        if (url !== null) props.onInvited({ email: data.data.attributes.email, url });
        if (emailed_to !== null) return `Invited ${emailed_to}: their one-time link was emailed to them.`;
      },
      (problem) => setProblems(problemsAt(problem, '/data/attributes')),
    );
  };

  return (
    <section aria-labelledby="invite-heading" class="panel">
      <h2 id="invite-heading">Invite someone</h2>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void invite();
        }}
      >
        <label for="invite-email">Email</label>
        <input
          id="invite-email"
          type="email"
          required
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
          aria-invalid={problems.email ? 'true' : undefined}
        />
        {problems.email && <p class="error">{problems.email.join(' ')}</p>}
        <fieldset>
          <legend>Role</legend>
          {ROLES.map((r) => (
            <label key={r.role} class="check">
              <input type="radio" name="invite-role" value={r.role} checked={role === r.role} onChange={() => setRole(r.role)} />
              {r.role}: {r.what}
            </label>
          ))}
        </fieldset>
        <div class="actions">
          <button type="submit">Invite</button>
        </div>
      </form>
    </section>
  );
}

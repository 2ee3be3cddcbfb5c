// The shell: sign-in until a person (or, in development, a key) is accepted, then the navigation and the
// page the path names; a one-time link's page (/welcome) stands apart.
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { apiClient, describeProblem, modeOfKey, problemOf, storedKey, type Role, type Team } from './api.ts';
import { auth, passkeys, type SignInMethods, type SignedIn } from './auth.ts';
import { Link } from './components/ui.tsx';
import { match, navigate, useLocation } from './router.ts';
import { ProfilePage } from './pages/profile.tsx';
import { SessionContext, abilities, useSession, type Session } from './session.ts';
import { SignIn } from './pages/sign-in.tsx';
import { Welcome } from './pages/welcome.tsx';
import { UsersPage } from './pages/users.tsx';
import { Overview } from './pages/overview.tsx';
import { TagsPage } from './pages/tags.tsx';
import { TagPage } from './pages/tag.tsx';
import { ScansPage } from './pages/scans.tsx';
import { ScanPage } from './pages/scan.tsx';
import { AlertsPage } from './pages/alerts.tsx';
import { CasesPage } from './pages/cases.tsx';
import { CasePage } from './pages/case.tsx';
import { WebhooksPage } from './pages/webhooks.tsx';
import { WebhookPage } from './pages/webhook.tsx';
import { KeysPage } from './pages/keys.tsx';
import { CatalogPage } from './pages/catalog.tsx';
import { AuditPage } from './pages/audit.tsx';

const NAV = [
  { to: '/', label: 'Overview', section: '' },
  { to: '/tags', label: 'Tags', section: 'tags' },
  { to: '/scans', label: 'Scans', section: 'scans' },
  { to: '/alerts', label: 'Alerts', section: 'alerts' },
  { to: '/cases', label: 'Cases', section: 'cases' },
  { to: '/webhooks', label: 'Webhooks', section: 'webhooks' },
  { to: '/catalog', label: 'Catalog', section: 'catalog' },
  { to: '/keys', label: 'Keys', section: 'keys', admin: true },
  { to: '/users', label: 'Users', section: 'users', admin: true },
  { to: '/audit', label: 'Audit', section: 'audit', admin: true },
];

/** Checks a key: its role (GET /keys/current), then its team (GET /teams/current); or the refusal to show. */
async function acceptKey(key: string): Promise<{ team: Team; role: Role } | { refused: string }> {
  const client = apiClient({ key });
  const self = await client.GET('/keys/current');
  if (self.response.status === 401) return { refused: 'That API key was refused: it is wrong, revoked or expired.' };
  if (!self.data) return { refused: describeProblem(problemOf(self.error, self.response)) };
  const role = self.data.data.attributes.role;
  if (role === 'verify') return { refused: 'That is a verify key: it can only verify scans. Sign in with an admin, write or read key.' };
  const { data, error, response } = await client.GET('/teams/current');
  if (data) return { team: data.data, role };
  return { refused: describeProblem(problemOf(error, response)) };
}

/** A person's session with its team read through the API, or the refusal to show. */
async function acceptSession(who: SignedIn): Promise<{ who: SignedIn; team: Team } | { refused: string }> {
  const { data, error, response } = await apiClient({ csrf: who.csrf_token }).GET('/teams/current');
  return data ? { who, team: data.data } : { refused: describeProblem(problemOf(error, response)) };
}

type Signed = { kind: 'user'; who: SignedIn; team: Team } | { kind: 'key'; key: string; role: Role; team: Team };

/** Single sign-on comes back to /console/?sign_in_error=… when the identity provider's answer was refused. */
function ssoRefusal(): string | null {
  const code = new URLSearchParams(location.search).get('sign_in_error');
  return code ? `Single sign-on was refused (${code}). Ask an admin, or sign in another way.` : null;
}

export function App() {
  const where = useLocation();
  const [signed, setSigned] = useState<Signed | null>(null);
  const [methods, setMethods] = useState<SignInMethods | null>(null);
  const [refusal, setRefusal] = useState<string | null>(ssoRefusal);
  const [checking, setChecking] = useState(true);

  const signOut = useCallback(async () => {
    // The sign-in page shows once the server has ended the session and cleared its cookie, not before:
    // signing in again at once must not race the old session's end.
    if (signed?.kind === 'user') await auth.signOut(signed.who.csrf_token).catch(() => undefined);
    storedKey.clear();
    setSigned(null);
  }, [signed]);
  const expire = useCallback(() => {
    storedKey.clear();
    setSigned(null);
    setRefusal('Your session has ended (signed out elsewhere, expired, or your access changed). Sign in again.');
  }, []);

  const enter = useCallback(async (who: SignedIn) => {
    const answer = await acceptSession(who);
    if ('refused' in answer) setRefusal(answer.refused);
    else {
      setRefusal(null);
      setSigned({ kind: 'user', ...answer });
    }
  }, []);

  const run = useCallback(async (attempt: () => Promise<void>) => {
    setChecking(true);
    try {
      await attempt();
    } catch (error) {
      setRefusal(error instanceof Error ? error.message : String(error));
    } finally {
      setChecking(false);
    }
  }, []);

  const signInWithKey = (candidate: string) =>
    run(async () => {
      const answer = await acceptKey(candidate);
      if ('refused' in answer) return setRefusal(answer.refused);
      storedKey.set(candidate);
      setRefusal(null);
      setSigned({ kind: 'key', key: candidate, ...answer });
    });

  // On load: a live session first; else a key kept from earlier in this tab, checked again (it may have
  // been revoked since), when key sign-in is offered at all.
  useEffect(() => {
    void run(async () => {
      const [offered, who] = await Promise.all([auth.methods(), auth.session()]);
      setMethods(offered);
      if (who) return enter(who);
      const key = storedKey.get();
      if (key === null) return;
      if (!offered.key) return storedKey.clear();
      const answer = await acceptKey(key);
      if ('refused' in answer) {
        storedKey.clear();
        setRefusal(answer.refused);
      } else setSigned({ kind: 'key', key, ...answer });
    });
  }, []);

  const switchMode = useCallback(
    async (mode: Session['mode']) => {
      if (signed?.kind !== 'user') return;
      await enter(await auth.setMode(signed.who.csrf_token, mode));
    },
    [signed, enter],
  );

  const session = useMemo<Session | null>(() => {
    if (!signed) return null;
    if (signed.kind === 'key')
      return {
        api: apiClient({ key: signed.key }, expire),
        team: signed.team,
        mode: modeOfKey(signed.key),
        role: signed.role,
        user: null,
        can: abilities(signed.role),
        switchMode: null,
        signOut,
      };
    const { who } = signed;
    return {
      api: apiClient({ csrf: who.csrf_token }, expire),
      team: signed.team,
      mode: who.mode,
      role: who.user.role,
      user: who.user,
      can: abilities(who.user.role),
      switchMode,
      signOut,
    };
  }, [signed, expire, signOut, switchMode]);

  // A one-time link is redeemed whoever is signed in on this browser: it signs its own user in.
  if (match('/welcome', where.path))
    return (
      <Welcome
        onSignedIn={(who) => {
          storedKey.clear();
          void enter(who).then(() => navigate('/', { replace: true }));
        }}
      />
    );
  if (!session)
    return (
      <SignIn
        methods={methods}
        refusal={refusal}
        checking={checking}
        onPassword={(email, password) => void run(async () => enter(await auth.signIn(email, password)))}
        onPasskey={() => void run(async () => enter(await passkeys.signIn()))}
        onKey={(key) => void signInWithKey(key)}
      />
    );
  return (
    <SessionContext.Provider value={session}>
      <Shell />
    </SessionContext.Provider>
  );
}

function Shell() {
  const where = useLocation();
  const section = where.path.split('/')[1] ?? '';
  const session = useSession();
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">tapproof</span>
        <nav aria-label="Main">
          <ul>
            {NAV.filter((item) => !item.admin || session.can.admin).map((item) => (
              <li key={item.to}>
                <Link to={item.to} aria-current={item.section === section ? 'page' : undefined}>
                  {item.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          {session.user ? (
            <>
              <span>
                <Link to="/profile" aria-current={section === 'profile' ? 'page' : undefined}>
                  {session.user.email}
                </Link>{' '}
                · {session.team.attributes.name} · {session.role}
              </span>
              <ModeSwitch />
            </>
          ) : (
            <span>
              {session.team.attributes.name} · <span class={`mode ${session.mode}`}>{session.mode}</span> · {session.role} key
            </span>
          )}
          <button
            type="button"
            onClick={() => {
              void session.signOut();
              navigate('/', { replace: true });
            }}
          >
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Page path={where.path} query={where.query} />
      </main>
    </>
  );
}

/** A person's session acts in one world at a time; a key is bound to its own. */
function ModeSwitch() {
  const session = useSession();
  const [busy, setBusy] = useState(false);
  return (
    <label class={`mode ${session.mode}`}>
      <span class="visually-hidden">Mode</span>
      <select
        value={session.mode}
        disabled={busy}
        onChange={(event) => {
          setBusy(true);
          void session.switchMode!(event.currentTarget.value as Session['mode']).finally(() => setBusy(false));
        }}
      >
        <option value="sandbox">sandbox</option>
        <option value="production">production</option>
      </select>
    </label>
  );
}

function Page(props: { path: string; query: URLSearchParams }) {
  const { path, query } = props;
  let params: Record<string, string> | null;
  if (path === '/' || path === '') return <Overview query={query} />;
  if (match('/tags', path)) return <TagsPage query={query} />;
  if ((params = match('/tags/:id', path))) return <TagPage id={params.id} />;
  if (match('/scans', path)) return <ScansPage query={query} />;
  if ((params = match('/scans/:id', path))) return <ScanPage id={params.id} />;
  if (match('/alerts', path)) return <AlertsPage query={query} />;
  if (match('/cases', path)) return <CasesPage query={query} />;
  if ((params = match('/cases/:id', path))) return <CasePage id={params.id} />;
  if (match('/webhooks', path)) return <WebhooksPage />;
  if ((params = match('/webhooks/:id', path))) return <WebhookPage id={params.id} />;
  if (match('/catalog', path)) return <CatalogPage />;
  if (match('/keys', path)) return <KeysPage />;
  if (match('/users', path)) return <UsersPage />;
  if (match('/audit', path)) return <AuditPage query={query} />;
  if (match('/profile', path)) return <ProfilePage />;
  return (
    <>
      <h1>Not found</h1>
      <p>
        No console page at this address. <Link to="/">Go to the overview</Link>.
      </p>
    </>
  );
}

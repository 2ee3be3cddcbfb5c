// The shell: sign-in until a key is accepted, then the navigation and the page the path names.
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { apiClient, describeProblem, modeOfKey, problemOf, storedKey, type Role, type Team } from './api.ts';
import { Link } from './components/ui.tsx';
import { match, navigate, useLocation } from './router.ts';
import { SessionContext, abilities, useSession, type Session } from './session.ts';
import { SignIn } from './pages/sign-in.tsx';
import { Overview } from './pages/overview.tsx';
import { TagsPage } from './pages/tags.tsx';
import { TagPage } from './pages/tag.tsx';
import { ScansPage } from './pages/scans.tsx';
import { ScanPage } from './pages/scan.tsx';
import { AlertsPage } from './pages/alerts.tsx';
import { WebhooksPage } from './pages/webhooks.tsx';
import { WebhookPage } from './pages/webhook.tsx';
import { KeysPage } from './pages/keys.tsx';
import { AuditPage } from './pages/audit.tsx';

const NAV = [
  { to: '/', label: 'Overview', section: '' },
  { to: '/tags', label: 'Tags', section: 'tags' },
  { to: '/scans', label: 'Scans', section: 'scans' },
  { to: '/alerts', label: 'Alerts', section: 'alerts' },
  { to: '/webhooks', label: 'Webhooks', section: 'webhooks' },
  { to: '/keys', label: 'Keys', section: 'keys', admin: true },
  { to: '/audit', label: 'Audit', section: 'audit', admin: true },
];

/** Checks a key: its role (GET /keys/current), then its team (GET /teams/current); or the refusal to show. */
async function acceptKey(key: string): Promise<{ team: Team; role: Role } | { refused: string }> {
  const client = apiClient(key);
  const self = await client.GET('/keys/current');
  if (self.response.status === 401) return { refused: 'That API key was refused: it is wrong, revoked or expired.' };
  if (!self.data) return { refused: describeProblem(problemOf(self.error, self.response)) };
  const role = self.data.data.attributes.role;
  if (role === 'verify') return { refused: 'That is a verify key: it can only verify scans. Sign in with an admin, write or read key.' };
  const { data, error, response } = await client.GET('/teams/current');
  if (data) return { team: data.data, role };
  return { refused: describeProblem(problemOf(error, response)) };
}

export function App() {
  const [key, setKey] = useState<string | null>(() => storedKey.get());
  const [team, setTeam] = useState<Team | null>(null);
  const [role, setRole] = useState<Role | null>(null);
  const [refusal, setRefusal] = useState<string | null>(null);
  const [checking, setChecking] = useState(key !== null);

  const signOut = useCallback(() => {
    storedKey.clear();
    setKey(null);
    setTeam(null);
  }, []);
  const expire = useCallback(() => {
    signOut();
    setRefusal('The API key is no longer accepted (revoked or expired?). Sign in again.');
  }, [signOut]);

  const signIn = useCallback(async (candidate: string) => {
    setChecking(true);
    const answer = await acceptKey(candidate);
    setChecking(false);
    if ('refused' in answer) {
      setRefusal(answer.refused);
      return;
    }
    storedKey.set(candidate);
    setRefusal(null);
    setKey(candidate);
    setTeam(answer.team);
    setRole(answer.role);
  }, []);

  // A key kept from earlier in this tab is checked again on load: it may have been revoked since.
  useEffect(() => {
    if (key !== null && team === null) {
      void acceptKey(key).then((answer) => {
        setChecking(false);
        if ('refused' in answer) {
          storedKey.clear();
          setKey(null);
          setRefusal(answer.refused);
        } else {
          setTeam(answer.team);
          setRole(answer.role);
        }
      });
    }
    // Only on load: signIn sets the team itself.
  }, []);

  const session = useMemo<Session | null>(
    () => (key && team && role ? { api: apiClient(key, expire), team, mode: modeOfKey(key), role, can: abilities(role), signOut } : null),
    [key, team, role, expire, signOut],
  );

  if (!session) return <SignIn onSubmit={(key) => void signIn(key)} refusal={refusal} checking={checking} />;
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
          <span>
            {session.team.attributes.name} · <span class={`mode ${session.mode}`}>{session.mode}</span> · {session.role} key
          </span>
          <button
            type="button"
            onClick={() => {
              session.signOut();
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

function Page(props: { path: string; query: URLSearchParams }) {
  const { path, query } = props;
  let params: Record<string, string> | null;
  if (path === '/' || path === '') return <Overview query={query} />;
  if (match('/tags', path)) return <TagsPage query={query} />;
  if ((params = match('/tags/:id', path))) return <TagPage id={params.id} />;
  if (match('/scans', path)) return <ScansPage query={query} />;
  if ((params = match('/scans/:id', path))) return <ScanPage id={params.id} />;
  if (match('/alerts', path)) return <AlertsPage query={query} />;
  if (match('/webhooks', path)) return <WebhooksPage />;
  if ((params = match('/webhooks/:id', path))) return <WebhookPage id={params.id} />;
  if (match('/keys', path)) return <KeysPage />;
  if (match('/audit', path)) return <AuditPage query={query} />;
  return (
    <>
      <h1>Not found</h1>
      <p>
        No console page at this address. <Link to="/">Go to the overview</Link>.
      </p>
    </>
  );
}

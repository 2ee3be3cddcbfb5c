// Who is signed in: a person (a console session: its user, team, world and role) or, for development,
// a pasted API key; the role decides what the pages offer (the API refuses the rest with 403 anyway).
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Api, Role, Team } from './api.ts';
import type { SignedIn } from './auth.ts';

export interface Session {
  api: Api;
  team: Team;
  mode: 'sandbox' | 'production';
  role: Role;
  /** The signed-in person; null when the console was opened with an API key. */
  user: SignedIn['user'] | null;
  /** What the role may do beyond reading: change tags, webhooks and settings; manage keys and users. */
  can: { write: boolean; admin: boolean };
  /** A person's session changes world in place; a key has one world. */
  switchMode: ((mode: Session['mode']) => Promise<void>) | null;
  signOut: () => Promise<void>;
}

export const abilities = (role: Role): Session['can'] => ({ write: role === 'admin' || role === 'write', admin: role === 'admin' });

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in console');
  return session;
}

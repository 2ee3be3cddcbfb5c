// Who is signed in: the key (sessionStorage), its client, the team it answered for, and its role,
// which decides what the pages offer (the API refuses the rest with 403 anyway).
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Api, Role, Team } from './api.ts';

export interface Session {
  api: Api;
  team: Team;
  mode: 'sandbox' | 'production';
  role: Role;
  /** What the role may do beyond reading: change tags, webhooks and settings; manage keys. */
  can: { write: boolean; admin: boolean };
  signOut: () => void;
}

export const abilities = (role: Role): Session['can'] => ({ write: role === 'admin' || role === 'write', admin: role === 'admin' });

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in console');
  return session;
}

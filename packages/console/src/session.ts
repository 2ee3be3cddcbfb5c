// Who is signed in: the key (sessionStorage), its client, and the team it answered for.
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Api, Team } from './api.ts';

export interface Session {
  api: Api;
  team: Team;
  mode: 'sandbox' | 'production';
  signOut: () => void;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in console');
  return session;
}

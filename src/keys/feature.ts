// API keys as a feature: the principal cache and the key-use recorder of one
// process, and the authentication the platform API's scope installs.
import type { Kernel } from '../kernel.js';
import type { Principal } from '../world.js';
import { PrincipalCache } from './cache.js';
import type { KeysState } from './context.js';
import { KeyUses } from './last-use.js';
import { authenticate } from './service.js';

export function createKeys({ db, clock }: Pick<Kernel, 'db' | 'clock'>): KeysState {
  return { principals: new PrincipalCache(db), keyUses: new KeyUses(db, clock) };
}

/** The bearer authentication of the platform API (src/http/auth.ts): resolves a key text, and follows revokes while the app runs. */
export function keyAuthentication(ctx: Pick<Kernel, 'db' | 'config' | 'clock'> & KeysState) {
  const { config } = ctx;
  return {
    authenticate: (keyText: string): Principal | null | Promise<Principal | null> => authenticate(ctx, keyText),
    // PostgreSQL: listen for revokes while the app runs (the principal cache is bypassed until then).
    follow: () => ctx.principals.attach(config.database.kind === 'postgres' ? config.database.url : null),
  };
}

// Shared steps of the verification tests: the real CLI, and the emulator and
// API calls a scan goes through.
import { call, freshStorage, type ApiResponse, type DatabaseKind, type Storage, type TestServer } from '../kit/harness.js';
import { createEmulatedChip, setTamper, tap } from '../../src/emulator/service.js';
import { loadConfig } from '../../src/config.js';
import { createContext, type AppContext } from '../../src/context.js';
import { migrate } from '../../src/db/migrations.js';
import { createKey } from '../../src/keys/service.js';
import { createTeam } from '../../src/teams/service.js';
import { systemClock } from '../../src/time.js';
import { startServe, type ServeProcess } from '../cli/process.js';
import { cliActor } from '../../src/audit/record.js';

export { cli } from '../cli/process.js';

/**
 * A fresh migrated database with one team and a sandbox key, for tests that run real `tapproof serve`
 * processes on it and read the data in-process through `ctx`.
 */
export async function seededStorage(kind: DatabaseKind, teamName: string): Promise<{ storage: Storage; ctx: AppContext; teamId: string; key: string }> {
  const storage = await freshStorage(kind);
  const db = storage.open();
  await migrate(db);
  const ctx = createContext(db, { ...loadConfig({ ...storage.env }), database: storage.target });
  const teamId = (await createTeam(db.kysely, teamName, null, systemClock)).id;
  const key = (await createKey(db.kysely, teamId, 'sandbox', systemClock)).key;
  return { storage, ctx, teamId, key };
}

/** `tapproof serve` on that database, rate limit out of the way. */
export const startServeOn = (storage: Storage, args: string[] = []): Promise<ServeProcess> =>
  startServe({ ...storage.env, TAPPROOF_RATE_LIMIT: '1000000' }, args);

/** A configured sandbox tag on an emulated chip (in-process, like the CLI command). */
export async function emulated(
  server: TestServer,
  teamId: string,
  protocol: string,
  options: { crypto?: 'aes' | 'lrp'; sessionDuration?: number; url?: string } = {},
) {
  const url = options.url ?? `https://example.com/p/${Math.random().toString(36).slice(2)}`;
  const { id } = await createEmulatedChip(server.ctx, {
    teamId,
    url,
    protocol,
    crypto: options.crypto,
    sessionDuration: options.sessionDuration,
    actor: cliActor(),
  });
  return { id, url };
}

export const tapUrl = async (server: TestServer, tagId: string) => (await tap(server.ctx, tagId)).url;
export const tamper = (server: TestServer, tagId: string, state: 'open' | 'closed') => setTamper(server.ctx, tagId, state);

export function verify(server: { base: string }, key: string, url: unknown, extra: Record<string, unknown> = {}): Promise<ApiResponse> {
  return call(server, 'POST', '/verifications', { key, body: { data: { type: 'verifications', attributes: { url, ...extra } } } });
}

/** The url with the hex digit at `index` (counted from the end) changed. */
export function flipHexDigit(url: string, fromEnd = 1): string {
  const i = url.length - fromEnd;
  const c = url[i]!;
  const flipped = c === '0' ? '1' : c.toLowerCase() === 'f' ? 'E' : (parseInt(c, 16) ^ 1).toString(16).toUpperCase();
  return url.slice(0, i) + flipped + url.slice(i + 1);
}

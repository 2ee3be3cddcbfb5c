// Shared steps of the verification tests: the real CLI, and the emulator and
// API calls a scan goes through.
import { call, type ApiResponse, type TestServer } from '../harness.js';
import { createEmulatedChip, setTamper, tap } from '../../src/emulator/service.js';

export { cli } from '../cli/process.js';

/** A configured sandbox tag on an emulated chip (in-process, like the CLI command). */
export async function emulated(server: TestServer, teamId: string, protocol: string, options: { crypto?: 'aes' | 'lrp'; sessionDuration?: number; url?: string } = {}) {
  const url = options.url ?? `https://example.com/p/${Math.random().toString(36).slice(2)}`;
  const { id } = await createEmulatedChip(server.ctx, { teamId, url, protocol, crypto: options.crypto, sessionDuration: options.sessionDuration });
  return { id, url };
}

export const tapUrl = async (server: TestServer, tagId: string) => (await tap(server.ctx, tagId)).url;
export const tamper = (server: TestServer, tagId: string, state: 'open' | 'closed') => setTamper(server.ctx, tagId, state);

export function verify(server: TestServer, key: string, url: unknown, extra: Record<string, unknown> = {}): Promise<ApiResponse> {
  return call(server, 'POST', '/verifications', { key, body: { data: { type: 'verifications', attributes: { url, ...extra } } } });
}

/** The url with the hex digit at `index` (counted from the end) changed. */
export function flipHexDigit(url: string, fromEnd = 1): string {
  const i = url.length - fromEnd;
  const c = url[i]!;
  const flipped = c === '0' ? '1' : c.toLowerCase() === 'f' ? 'E' : (parseInt(c, 16) ^ 1).toString(16).toUpperCase();
  return url.slice(0, i) + flipped + url.slice(i + 1);
}

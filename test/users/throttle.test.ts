// The sign-in and link throttles under concurrency, on both databases: an attempt is counted before its
// password or token is checked, so attempts made at once cannot all slip under a limit — in one server,
// and across two `tapproof serve` processes sharing the database. The small limit falls on an account
// from one address, so a stranger's failures do not lock the owner out; the account-wide cap is larger.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cliActor } from '../../src/audit/record.js';
import { loadConfig } from '../../src/config.js';
import { createContext, type AppContext } from '../../src/context.js';
import { createTeam } from '../../src/teams/service.js';
import { inviteUser } from '../../src/users/service.js';
import { ACCOUNT_ADDRESS_FAILURES, ACCOUNT_FAILURES, LINK_ADDRESS_FAILURES } from '../../src/users/throttle.js';
import { startServe, type ServeProcess } from '../cli/process.js';
import { DATABASES, freshStorage, randomIp, sharedServer, type Storage } from '../kit/harness.js';
import { PASSWORD, authCall, invited, redeemed, tokenOf } from './helpers.js';

const WRONG = 'not the password at all';

/** How many of each status, e.g. `{401: 5, 429: 35}`. */
const tally = (statuses: number[]) => statuses.reduce<Record<number, number>>((counts, s) => ({ ...counts, [s]: (counts[s] ?? 0) + 1 }), {});

/** A sign-in as a browser at `address` sends it to `origin` (a test server or a `serve` process). */
async function signIn(origin: string, email: string, password: string, address: string): Promise<number> {
  const response = await fetch(`${origin}/auth/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
    body: JSON.stringify({ email, password }),
  });
  await response.arrayBuffer();
  return response.status;
}

for (const kind of DATABASES) {
  describe(`the sign-in throttle under concurrency (${kind})`, () => {
    const suite = sharedServer(kind, { TAPPROOF_TRUST_PROXY: 'true' });
    let n = 0;
    /** A fresh account with PASSWORD set. */
    const account = async () => {
      const email = `throttle-${++n}-${kind}@example.com`;
      await redeemed(suite.server, (await invited(suite.server, suite.world.teamId, email, 'read')).token);
      return email;
    };

    test(`40 wrong passwords at once from one address: exactly ${ACCOUNT_ADDRESS_FAILURES} are checked (401), the rest wait (429)`, async () => {
      const email = await account();
      const address = randomIp();
      const statuses = await Promise.all(Array.from({ length: 40 }, () => signIn(suite.server.origin, email, WRONG, address)));
      assert.deepEqual(tally(statuses), { 401: ACCOUNT_ADDRESS_FAILURES, 429: 40 - ACCOUNT_ADDRESS_FAILURES });
    });

    test('after 4 failures, 30 guesses at once with the right one among them: one is checked, 29 wait', async () => {
      const email = await account();
      const address = randomIp();
      for (let i = 0; i < ACCOUNT_ADDRESS_FAILURES - 1; i++) assert.equal(await signIn(suite.server.origin, email, WRONG, address), 401);
      const guesses = Array.from({ length: 30 }, (_, i) => (i === 15 ? PASSWORD : `${WRONG} ${i}`));
      const statuses = await Promise.all(guesses.map((password) => signIn(suite.server.origin, email, password, address)));
      assert.equal(tally(statuses)[429], 29, JSON.stringify(tally(statuses)));
      const checked = statuses.filter((s) => s !== 429);
      assert.ok(checked.length === 1 && [200, 401].includes(checked[0]!), JSON.stringify(tally(statuses)));
    });

    test('a success takes its attempt back: the right password does not count towards the limit', async () => {
      const email = await account();
      const address = randomIp();
      for (let i = 0; i < 10; i++) assert.equal(await signIn(suite.server.origin, email, PASSWORD, address), 200);
      for (let i = 0; i < ACCOUNT_ADDRESS_FAILURES; i++) assert.equal(await signIn(suite.server.origin, email, WRONG, address), 401);
      assert.equal(await signIn(suite.server.origin, email, PASSWORD, address), 429);
    });

    test(`${ACCOUNT_ADDRESS_FAILURES} failures from one address do not lock the owner out from another`, async () => {
      const email = await account();
      const stranger = randomIp();
      for (let i = 0; i < ACCOUNT_ADDRESS_FAILURES; i++) assert.equal(await signIn(suite.server.origin, email, WRONG, stranger), 401);
      assert.equal(await signIn(suite.server.origin, email, PASSWORD, stranger), 429);
      assert.equal(await signIn(suite.server.origin, email, PASSWORD, randomIp()), 200);
    });

    test(`an account waits everywhere after ${ACCOUNT_FAILURES} failures from any addresses`, async () => {
      const email = await account();
      // Each from an address of its own: no address, and no account from one address, reaches its own limit.
      const statuses = await Promise.all(
        Array.from({ length: ACCOUNT_FAILURES }, (_, i) => signIn(suite.server.origin, email, WRONG, `10.200.${i >> 8}.${(i & 255) + 1}`)),
      );
      assert.deepEqual(tally(statuses), { 401: ACCOUNT_FAILURES });
      assert.equal(await signIn(suite.server.origin, email, PASSWORD, randomIp()), 429);
    });

    test(`the link routes: an unknown token counts against the address, which waits after ${LINK_ADDRESS_FAILURES}`, async () => {
      const { server } = suite;
      const address = randomIp();
      const link = await invited(server, suite.world.teamId, `linked-${kind}@example.com`, 'read');
      // A live link does not count.
      for (let i = 0; i < 3; i++) {
        const inspected = await authCall(server, 'POST', '/auth/links/inspect', { body: { token: link.token }, headers: { 'x-forwarded-for': address } });
        assert.equal(inspected.status, 200, inspected.text);
      }
      const statuses = await Promise.all(
        Array.from({ length: LINK_ADDRESS_FAILURES + 5 }, async (_, i) => {
          const path = i % 2 === 0 ? '/auth/links/inspect' : '/auth/links/password';
          const body = { token: `${'A'.repeat(40)}${String(i).padStart(3, '0')}`, password: PASSWORD };
          return (await authCall(server, 'POST', path, { body, headers: { 'x-forwarded-for': address } })).status;
        }),
      );
      assert.deepEqual(tally(statuses), { 400: LINK_ADDRESS_FAILURES, 429: 5 });
      const waiting = await authCall(server, 'POST', '/auth/links/inspect', { body: { token: link.token }, headers: { 'x-forwarded-for': address } });
      assert.equal(waiting.status, 429);
      assert.equal(waiting.text, 'Too Many Requests');
      const wait = Number(waiting.headers.get('retry-after'));
      assert.ok(wait > 14 * 60 && wait <= 15 * 60, String(wait));
      // Another address redeems the link.
      const other = await authCall(server, 'POST', '/auth/links/password', {
        body: { token: link.token, password: PASSWORD },
        headers: { 'x-forwarded-for': randomIp() },
      });
      assert.equal(other.status, 200, other.text);
    });
  });

  describe(`the sign-in throttle across two servers on one database (${kind})`, () => {
    let storage: Storage;
    let ctx: AppContext;
    let teamId: string;
    let n = 0;
    const servers: ServeProcess[] = [];

    before(async () => {
      storage = await freshStorage(kind);
      const env = { ...storage.env, TAPPROOF_RATE_LIMIT: '100000', TAPPROOF_TRUST_PROXY: '127.0.0.1' };
      // One after the other: the first migrates and makes the database, the second joins it.
      while (servers.length < 2) servers.push(await startServe(env));
      ctx = createContext(storage.open(), loadConfig(env));
      teamId = (await createTeam(ctx.db.kysely, 'throttled on two servers', null, ctx.clock)).id;
    });

    after(async () => {
      await Promise.all(servers.map((server) => server.stop()));
      await ctx?.db.close();
      await storage?.drop();
    });

    /** Request `i` goes to one server or the other in turn. */
    const either = (i: number) => servers[i % 2]!.origin;

    /** A fresh account with PASSWORD set through the first server. */
    const account = async () => {
      const email = `two-${++n}-${kind}@example.com`;
      const { link } = await inviteUser(ctx, { teamId, actor: cliActor() }, { email, role: 'read' }, either(0));
      const set = await fetch(`${either(0)}/auth/links/password`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': randomIp() },
        body: JSON.stringify({ token: tokenOf(link.url), password: PASSWORD }),
      });
      assert.equal(set.status, 200, await set.text());
      return email;
    };

    test('40 wrong passwords at once, half to each server: exactly 5 are checked', async () => {
      const email = await account();
      const address = randomIp();
      const statuses = await Promise.all(Array.from({ length: 40 }, (_, i) => signIn(either(i), email, WRONG, address)));
      assert.deepEqual(tally(statuses), { 401: ACCOUNT_ADDRESS_FAILURES, 429: 40 - ACCOUNT_ADDRESS_FAILURES });
    });

    test('after 4 failures, 30 guesses at once over both servers with the right one among them: one is checked', async () => {
      const email = await account();
      const address = randomIp();
      for (let i = 0; i < ACCOUNT_ADDRESS_FAILURES - 1; i++) assert.equal(await signIn(either(0), email, WRONG, address), 401);
      const guesses = Array.from({ length: 30 }, (_, i) => (i === 15 ? PASSWORD : `${WRONG} ${i}`));
      const statuses = await Promise.all(guesses.map((password, i) => signIn(either(i), email, password, address)));
      assert.equal(tally(statuses)[429], 29, JSON.stringify(tally(statuses)));
      const checked = statuses.filter((s) => s !== 429);
      assert.ok(checked.length === 1 && [200, 401].includes(checked[0]!), JSON.stringify(tally(statuses)));
    });
  });
}

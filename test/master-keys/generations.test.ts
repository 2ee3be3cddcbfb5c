// Master key generations (docs/operations.md, Master keys), with real CLI and server processes on both
// engines: a rotation keeps the old chips genuine and puts new chips on the new generation, running
// servers follow it within 5 s (one that lacks the new key says so in its log and /readyz); a rewrap
// killed with SIGKILL resumes where it stopped and a second run changes nothing; a retirement is
// refused while anything depends on the generation and accepted after, and then no process needs it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, test } from 'node:test';
import { generateSun424 } from '../../src/chips/index.js';
import type { Db } from '../../src/db/database.js';
import { checkValue } from '../../src/master-keys/masters.js';
import { sealer, sealerKeyId } from '../../src/secrets/index.js';
import { DATABASES, call, freshStorage, type Storage } from '../kit/harness.js';
import { REPO, runCli, startServe, type ServeProcess } from '../cli/process.js';
import type { Finished } from '../cli/process.js';

const SLOW = 600_000;
const dir = mkdtempSync(join(tmpdir(), 'tapproof-generations-'));
let files = 0;
const hex = (n: number) => randomBytes(n).toString('hex').toUpperCase();

async function json(env: Record<string, string>, ...args: string[]): Promise<any> {
  const result = await runCli(env, ...args, '--json');
  assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

/** Exit 1 with exactly one stderr line matching `pattern`. */
function assertOneLine(result: Finished, pattern: RegExp, what: string): void {
  assert.equal(result.code, 1, `${what}: ${result.stdout}${result.stderr}`);
  const lines = result.stderr.split('\n').filter((l) => l !== '');
  assert.equal(lines.length, 1, `${what}: ${result.stderr}`);
  assert.match(lines[0]!, pattern, what);
}

const verifyBody = (url: string) => ({ data: { type: 'verifications', attributes: { url } } });

/** Asks `server` until `check` passes, for at most `ms` (what a change may take to reach a running process). */
async function within<T>(ms: number, attempt: () => Promise<T>, check: (value: T) => boolean): Promise<T> {
  const deadline = performance.now() + ms;
  for (;;) {
    const value = await attempt();
    if (check(value) || performance.now() > deadline) return value;
    await sleep(100);
  }
}

const chipEntry = () => ({
  url: `https://brand.example/g/${hex(6)}`,
  protocol: 'ntag_424_dna',
  uid: '04' + hex(6),
  sdm_meta_read_key: hex(16),
  sdm_file_read_key: hex(16),
});
type Entry = ReturnType<typeof chipEntry>;
let counter = 0;
function scanUrl(entry: Entry): string {
  const sun = generateSun424({
    crypto: 'aes',
    uid: Buffer.from(entry.uid, 'hex'),
    counter: ++counter,
    sdmMetaReadKey: Buffer.from(entry.sdm_meta_read_key, 'hex'),
    sdmFileReadKey: Buffer.from(entry.sdm_file_read_key, 'hex'),
  });
  return `${entry.url}?picc_data=${sun.piccData}&cmac=${sun.cmac}`;
}

async function genuine(server: ServeProcess, key: string, url: string): Promise<{ status: number; genuine?: boolean; detail?: string }> {
  const r = await call(server, 'POST', '/verifications', { key, body: verifyBody(url) });
  return { status: r.status, genuine: r.body?.data?.attributes?.genuine, detail: r.body?.errors?.[0]?.detail };
}

/** Webhook rows sealed under `master`, written straight into the table (a rewrap's bulk). */
async function sealedWebhooks(db: Db, teamId: string, master: Buffer, count: number): Promise<void> {
  const box = sealer(master, 'webhook-secret');
  const rows = Array.from({ length: count }, (_, i) => ({
    id: `whk_${String(i).padStart(22, '0')}`,
    team_id: teamId,
    mode: 'production' as const,
    url: `https://hooks.example.com/${i}`,
    events: '["tag.created"]',
    enabled: 0,
    disabled_reason: null,
    secret_sealed: box.seal(`whsec_${hex(24)}`),
    previous_secret_sealed: i % 2 === 0 ? box.seal(`whsec_${hex(24)}`) : null,
    previous_secret_until: i % 2 === 0 ? 1 : null,
    failing_since: null,
    created_at: 1,
    updated_at: 1,
  }));
  for (let i = 0; i < rows.length; i += 50)
    await db.kysely
      .insertInto('webhooks')
      .values(rows.slice(i, i + 50))
      .execute();
}

const underKey = async (db: Db, master: Buffer) =>
  (await db.kysely.selectFrom('webhooks').select('secret_sealed').execute()).filter((r) =>
    r.secret_sealed.startsWith(`v1.${sealerKeyId(master, 'webhook-secret')}.`),
  ).length;

for (const kind of DATABASES) {
  describe(`master key generations (${kind})`, () => {
    const storages: Storage[] = [];
    after(() => Promise.all(storages.map((s) => s.drop())));

    test(
      'sandbox: a rotation keeps old chips genuine, puts new chips on the new generation, reaches a running server; retire refused while a chip depends',
      { timeout: SLOW },
      async () => {
        const storage = await freshStorage(kind);
        storages.push(storage);
        const env = storage.env;
        // Only serve and migrate make a database (docs/operations.md, start-up errors).
        assert.equal((await runCli(env, 'migrate')).code, 0);
        const team = await json(env, 'teams', 'create', '--name', 'gen');
        const key = (await json(env, 'keys', 'create', '--team', team.id, '--mode', 'sandbox')).key as string;
        const old = (await json(env, 'emulator', 'create', '--team', team.id, '--url', 'https://e.example/old', '--protocol', 'ntag_424_dna')).id;
        const server = await startServe(env);
        const db = storage.open();
        try {
          const tap = async (id: string) => (await json(env, 'emulator', 'tap', id)).url as string;
          assert.deepEqual(await genuine(server, key, await tap(old)), { status: 201, genuine: true, detail: undefined });

          const rotated = await json(env, 'master', 'rotate', '--mode', 'sandbox');
          assert.equal(rotated.generation, 2);
          assert.equal(rotated.rotated, true);
          const fresh = (await json(env, 'emulator', 'create', '--team', team.id, '--url', 'https://e.example/new', '--protocol', 'ntag_424_dna')).id;
          const chips = await db.kysely.selectFrom('chips').select(['tag_id', 'master_generation']).orderBy('master_generation').execute();
          assert.deepEqual(chips, [
            { tag_id: old, master_generation: 1 },
            { tag_id: fresh, master_generation: 2 },
          ]);
          // The running server learns of generation 2 (its key is in the database's settings) within 5 s.
          const url = await tap(fresh);
          const seen = await within(
            5_000,
            () => genuine(server, key, url),
            (r) => r.status === 201,
          );
          assert.deepEqual(seen, { status: 201, genuine: true, detail: undefined });
          assert.deepEqual(await genuine(server, key, await tap(old)), { status: 201, genuine: true, detail: undefined });

          const status = await json(env, 'master', 'status', '--mode', 'sandbox');
          const sandbox = await db.kysely
            .selectFrom('master_generations')
            .select(['generation', 'check_value'])
            .where('mode', '=', 'sandbox')
            .orderBy('generation')
            .execute();
          assert.deepEqual(status, [
            { mode: 'sandbox', generation: 1, current: false, retired: false, check_value: sandbox[0]!.check_value, chips: 1, sealed: 0 },
            { mode: 'sandbox', generation: 2, current: true, retired: false, check_value: sandbox[1]!.check_value, chips: 1, sealed: 0 },
          ]);
          // The derived chip of generation 1 keeps it until it is rekeyed: retiring it is refused, and so is the current one.
          assertOneLine(
            await runCli(env, 'master', 'retire', '--mode', 'sandbox', '--generation', '1'),
            /^tapproof: sandbox master key generation 1 still has 1 chips and 0 sealed values depending on it: run tapproof master rewrap --mode sandbox/,
            'retire 1',
          );
          assertOneLine(
            await runCli(env, 'master', 'retire', '--mode', 'sandbox', '--generation', '2'),
            /^tapproof: sandbox master key generation 2 is the current one/,
            'retire 2',
          );
          assert.equal((await db.kysely.selectFrom('master_generations').select('retired_at').where('retired_at', 'is not', null).execute()).length, 0);
        } finally {
          await db.close();
          assert.equal(await server.stop(), 0);
        }
      },
    );

    test(
      'production: rotate, a server without the new key says so and serves the old chips, rewrap killed and resumed, retire refused then accepted',
      { timeout: SLOW },
      async () => {
        const storage = await freshStorage(kind);
        storages.push(storage);
        const A = randomBytes(32);
        const B = randomBytes(32);
        const envA = { ...storage.env, TAPPROOF_MASTER_KEY: A.toString('hex') };
        const envBoth = { ...storage.env, TAPPROOF_MASTER_KEY: B.toString('hex'), TAPPROOF_PREVIOUS_MASTER_KEYS: A.toString('hex') };
        const envB = { ...storage.env, TAPPROOF_MASTER_KEY: B.toString('hex') };
        assert.equal((await runCli(envA, 'migrate')).code, 0);
        const team = await json(envA, 'teams', 'create', '--name', 'prod');
        const key = (await json(envA, 'keys', 'create', '--team', team.id, '--mode', 'production')).key as string;
        const entries = [chipEntry(), chipEntry(), chipEntry()];
        const path = join(dir, `chips-${++files}.json`);
        writeFileSync(path, JSON.stringify(entries));
        await json(envA, 'tags', 'import', '--team', team.id, '--mode', 'production', '--file', path);
        const db = storage.open();
        const WEBHOOKS = 120;
        await sealedWebhooks(db, team.id, A, WEBHOOKS);
        const old = await startServe(envA);
        let both: ServeProcess | null = null;
        try {
          assert.equal((await genuine(old, key, scanUrl(entries[0]!))).genuine, true);

          // A rotation needs a key no generation has had; then the configured one is generation 2.
          assert.deepEqual(await json(envA, 'master', 'rotate', '--mode', 'production'), {
            mode: 'production',
            generation: 1,
            check_value: checkValue(A),
            rotated: false,
          });
          const rotated = await json(envBoth, 'master', 'rotate', '--mode', 'production');
          assert.deepEqual(rotated, { mode: 'production', generation: 2, check_value: checkValue(B), rotated: true });
          assert.deepEqual(await json(envBoth, 'master', 'rotate', '--mode', 'production'), { ...rotated, rotated: false });

          // The server started with only A hears of it within 5 s: /readyz and its log say so; old chips still verify.
          const ready = await within(
            5_000,
            async () => (await fetch(old.origin + '/readyz')).json() as Promise<any>,
            (b) => b.status === 'degraded',
          );
          assert.deepEqual(ready, {
            status: 'degraded',
            database: 'ok',
            lacking_master_keys: [{ mode: 'production', generation: 2, check_value: checkValue(B) }],
          });
          await old.waitFor('this process lacks the current production master key generation');
          assert.equal((await genuine(old, key, scanUrl(entries[1]!))).genuine, true);
          // New secrets need the current generation: 503, whose detail says which one.
          const hook = await call(old, 'POST', '/webhooks', {
            key,
            body: { data: { type: 'webhooks', attributes: { url: 'https://hooks.example.com/new' } } },
          });
          assert.equal(hook.status, 503, hook.text);
          assert.equal(
            hook.body.errors[0].detail,
            'this needs the production master key generation 2, which this server does not have: its operator must start it with that key in TAPPROOF_MASTER_KEY; the server log says why',
          );
          // Started now with only A, a server says it lacks generation 2 at once, on stderr, and starts.
          const late = await startServe(envA);
          assert.match(late.stderr(), /^tapproof: WARNING: this process lacks the current production master key generation 2 \(check value [0-9a-f]{16}\)/m);
          assert.equal(await late.stop(), 0);

          // Nothing moved yet: generation 1 cannot be retired.
          assertOneLine(
            await runCli(envBoth, 'master', 'retire', '--mode', 'production', '--generation', '1'),
            new RegExp(`^tapproof: production master key generation 1 still has 3 chips and ${3 * 2 + WEBHOOKS + WEBHOOKS / 2} sealed values depending on it`),
            'retire refused',
          );

          // Rewrap online (a server with both keys answers meanwhile), killed with SIGKILL part way.
          both = await startServe(envBoth);
          const child = spawn(process.execPath, [join(REPO, 'dist', 'main.js'), 'master', 'rewrap', '--mode', 'production', '--batch', '5', '--pause', '150'], {
            cwd: REPO,
            env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...envBoth },
            stdio: 'ignore',
          });
          const exited = new Promise((resolve) => child.on('close', (code, signal) => resolve(signal)));
          await within(
            60_000,
            () => underKey(db, B),
            (n) => n >= 10,
          );
          child.kill('SIGKILL');
          assert.equal(await exited, 'SIGKILL');
          const moved = await underKey(db, B);
          assert.ok(moved >= 10 && moved < WEBHOOKS, `moved ${moved}`);
          assert.equal(moved + (await underKey(db, A)), WEBHOOKS, 'every secret is under one generation or the other, none lost');
          assert.equal((await genuine(both, key, scanUrl(entries[2]!))).genuine, true);

          // Resumed: it does what is left, and a third run nothing.
          const resumed = await json(envBoth, 'master', 'rewrap', '--mode', 'production', '--batch', '7');
          assert.equal(resumed.generation, 2);
          assert.deepEqual(resumed.unreadable, []);
          assert.ok((resumed.rewrapped.webhooks ?? 0) === WEBHOOKS - moved, JSON.stringify(resumed));
          assert.equal(await underKey(db, B), WEBHOOKS);
          assert.deepEqual(await json(envBoth, 'master', 'rewrap', '--mode', 'production'), {
            mode: 'production',
            generation: 2,
            rewrapped: {},
            unreadable: [],
          });
          const status = await json(envBoth, 'master', 'status', '--mode', 'production');
          assert.deepEqual(status, [
            { mode: 'production', generation: 1, current: false, retired: false, check_value: checkValue(A), chips: 0, sealed: 0 },
            { mode: 'production', generation: 2, current: true, retired: false, check_value: checkValue(B), chips: 3, sealed: 3 * 2 + WEBHOOKS + WEBHOOKS / 2 },
          ]);
          for (const entry of entries) assert.equal((await genuine(both, key, scanUrl(entry))).genuine, true);

          // Retired: no process needs A any more; a process whose current key is A is refused.
          assert.deepEqual(await json(envBoth, 'master', 'retire', '--mode', 'production', '--generation', '1'), {
            mode: 'production',
            generation: 1,
            check_value: checkValue(A),
            retired: true,
          });
          assertOneLine(
            await runCli(envA, 'worker'),
            new RegExp(`^tapproof: TAPPROOF_MASTER_KEY is the retired production master key generation 1 \\(check value ${checkValue(A)}\\)`),
            'retired key',
          );
          const onlyB = await startServe(envB);
          try {
            for (const entry of entries) assert.equal((await genuine(onlyB, key, scanUrl(entry))).genuine, true);
            assert.equal(onlyB.stderr(), '');
          } finally {
            assert.equal(await onlyB.stop(), 0);
          }
          // The server that had both keys still serves every chip (all on generation 2 now).
          assert.equal((await genuine(both, key, scanUrl(entries[0]!))).genuine, true);
        } finally {
          await db.close();
          await both?.stop();
          assert.equal(await old.stop(), 0);
        }
      },
    );
  });
}

// A production rotation rehearsed on emulated chips: with TAPPROOF_REHEARSAL=1 production accepts the
// emulator's originality signature, so `tapproof writer --key tp_live_… --reader emulator` writes a chip whose
// card lives in the data dir, and the rotation's rekey moves it to the new generation. Without the setting
// production accepts NXP silicon only; serve warns at start, doctor fails, NODE_ENV=production refuses it.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { runCli, startServe, type ServeProcess } from '../cli/process.js';
import { DATABASES, freshStorage, type Storage } from '../kit/harness.js';

const REHEARSAL_LINE = /^tapproof: (WARNING: )?TAPPROOF_REHEARSAL is on: production accepts emulated chips/m;

for (const kind of DATABASES) {
  describe(`rehearsing a production rotation on emulated chips (${kind})`, () => {
    const storages: Storage[] = [];
    const servers: ServeProcess[] = [];
    after(async () => {
      await Promise.all(servers.map((s) => s.stop()));
      await Promise.all(storages.map((s) => s.drop()));
    });

    test('written, tapped genuine, rotated, rekeyed, retired; refused without the setting', async () => {
      const storage = await freshStorage(kind);
      storages.push(storage);
      const first: Record<string, string> = kind === 'postgres' ? { TAPPROOF_MASTER_KEY: storage.env.TAPPROOF_MASTER_KEY! } : {};
      let env: Record<string, string> = { ...storage.env, ...first };
      const ok = async (...args: string[]) => {
        const r = await runCli(env, ...args);
        assert.equal(r.code, 0, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
        return r;
      };
      const json = async (...args: string[]) => JSON.parse((await ok(...args, '--json')).stdout);
      await ok('migrate');
      const team = (await json('teams', 'create', '--name', 'rehearsal')).id as string;
      const live = (await json('keys', 'create', '--team', team, '--mode', 'production', '--role', 'admin')).key as string;
      assert.match(live, /^tp_live_/);

      const serve = async (extra: Record<string, string>) => {
        const server = await startServe({ ...env, ...extra });
        servers.push(server);
        return server;
      };
      const api = async (server: ServeProcess, method: string, path: string, body?: unknown) => {
        const r = await fetch(server.base + path, {
          method,
          headers: { authorization: `Bearer ${live}`, 'content-type': 'application/vnd.api+json', accept: 'application/vnd.api+json' },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
        return { status: r.status, body: (await r.json()) as any };
      };
      const newTag = async (server: ServeProcess) => {
        const url = `https://rehearsal.example/${randomBytes(4).toString('hex')}`;
        const r = await api(server, 'POST', '/tags', { data: [{ type: 'tags', attributes: { protocol: 'ntag_424_dna', url } }] });
        assert.equal(r.status, 201, JSON.stringify(r.body));
        return r.body.data[0].id as string;
      };
      const writer = (server: ServeProcess, ...args: string[]) =>
        runCli(env, 'writer', '--key', live, '--server', server.base, '--reader', 'emulator', ...args);
      const tapsGenuine = async (server: ServeProcess, tagId: string) => {
        const url = (await ok('emulator', 'tap', tagId)).stdout.trim();
        const r = await api(server, 'POST', '/verifications', { data: { type: 'verifications', attributes: { url } } });
        assert.equal(r.status, 201, JSON.stringify(r.body));
        assert.equal(r.body.data.attributes.genuine, true, JSON.stringify(r.body));
      };

      // A real deployment: an emulated chip is not NXP silicon.
      const plain = await serve({});
      assert.doesNotMatch(plain.stderr(), REHEARSAL_LINE);
      const refusedTag = await newTag(plain);
      const refused = await writer(plain, refusedTag);
      assert.equal(refused.code, 1);
      assert.match(refused.stdout, /failed, not_genuine: the originality signature of chip \w+ does not verify: not genuine NXP silicon/);
      await plain.stop();

      // The rehearsal deployment: serve says so at start; doctor fails while it is on.
      const rehearsal = { TAPPROOF_REHEARSAL: '1' };
      let server = await serve(rehearsal);
      assert.match(server.stderr(), /^tapproof: WARNING: TAPPROOF_REHEARSAL is on: production accepts emulated chips/m);
      const doctor = await runCli({ ...env, ...rehearsal }, 'doctor');
      assert.equal(doctor.code, 1);
      assert.equal(doctor.stdout, 'no drift\n');
      assert.match(doctor.stderr, REHEARSAL_LINE);
      const refusedEnv = await runCli({ ...env, ...rehearsal, NODE_ENV: 'production' }, 'doctor');
      assert.equal(refusedEnv.code, 1);
      assert.match(
        refusedEnv.stderr,
        /^tapproof: TAPPROOF_REHEARSAL accepts emulated chips in production: a rehearsal deployment, never one with NODE_ENV=production\n$/,
      );

      const tag = await newTag(server);
      const written = await writer(server, tag);
      assert.equal(written.code, 0, written.stdout + written.stderr);
      assert.match(written.stdout, new RegExp(`^${tag}: configured \\(\\d+ round trips\\)\\n1 of 1 tag configured\\n$`));
      await tapsGenuine(server, tag);

      // The rotation as the runbook runs it: the new generation, servers restarted with both keys, the chip rekeyed.
      const next = randomBytes(32).toString('hex');
      if (kind === 'postgres') env = { ...env, TAPPROOF_MASTER_KEY: next, TAPPROOF_PREVIOUS_MASTER_KEYS: first.TAPPROOF_MASTER_KEY! };
      assert.equal((await json('master', 'rotate', '--mode', 'production')).generation, 2);
      await server.stop();
      server = await serve(rehearsal);
      await tapsGenuine(server, tag);
      const rekeyed = await writer(server, '--rekey', tag);
      assert.equal(rekeyed.code, 0, rekeyed.stdout + rekeyed.stderr);
      assert.match(rekeyed.stdout, new RegExp(`^${tag}: rekeyed \\(3 round trips\\)\\n`));
      await tapsGenuine(server, tag);
      await ok('master', 'rewrap', '--mode', 'production');
      const status = (await json('master', 'status', '--mode', 'production')) as { generation: number; chips: number; sealed: number }[];
      assert.deepEqual(
        status.map((g) => [g.generation, g.chips, g.sealed]),
        [
          [1, 0, 0],
          [2, 1, 0],
        ],
      );
      assert.equal((await json('master', 'retire', '--mode', 'production', '--generation', '1')).retired, true);
      await tapsGenuine(server, tag);
    });
  });
}

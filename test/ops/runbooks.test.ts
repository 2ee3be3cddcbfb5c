// The runbooks of docs/operations.md, run as written: each block marked `<!-- runbook: NAME -->` goes to bash
// unchanged but for where the deployment lives (/etc/tapproof and /var/backups become directories of a temp
// root). The deployment is deploy/tapproof.env's, with the key files it names; `tapproof` is bin/tapproof.js on
// PATH and `systemctl` a stand-in that restarts the one server. The server answers verifications of a production
// chip throughout, and every answer is genuine. PostgreSQL: the deployment the runbooks are for.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { after, describe, test } from 'node:test';
import { REPO, builtProgram } from '../cli/process.js';
import { DATABASES, POSTGRES_URL, REDIS_URL } from '../kit/harness.js';

const hex = (n: number) => randomBytes(n).toString('hex').toUpperCase();

/** The marked blocks of docs/operations.md, by runbook name, in the order they appear. */
function runbooks(): Map<string, string[]> {
  const doc = readFileSync(join(REPO, 'docs', 'operations.md'), 'utf8');
  const found = new Map<string, string[]>();
  for (const m of doc.matchAll(/<!-- runbook: ([a-z-]+) -->\n```sh\n([\s\S]*?)\n```/g)) found.set(m[1]!, [...(found.get(m[1]!) ?? []), m[2]!]);
  return found;
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

async function admin<T>(work: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: POSTGRES_URL });
  await c.connect();
  try {
    return await work(c);
  } finally {
    await c.end();
  }
}

for (const kind of DATABASES.filter((k) => k === 'postgres')) {
  describe(`the runbooks of docs/operations.md, as written (${kind})`, () => {
    const root = mkdtempSync(join(tmpdir(), 'tapproof-runbooks-'));
    const etc = join(root, 'etc', 'tapproof');
    const run = join(root, 'run');
    const bin = join(root, 'bin');
    const databases = [`rb_${randomBytes(5).toString('hex')}`, `rb_${randomBytes(5).toString('hex')}_restored`];
    const url = (db: string) => {
      const u = new URL(POSTGRES_URL);
      u.pathname = `/${db}`;
      u.search = '';
      return u.toString();
    };
    after(async () => {
      spawnSync('bash', ['-c', `kill $(cat ${run}/serve.pid) 2>/dev/null; sleep 0.5`]);
      await admin(async (c) => {
        for (const db of databases) await c.query(`drop database if exists ${db} with (force)`);
      });
      rmSync(root, { recursive: true, force: true });
    });

    test('leaked API key, scheduled rotation, leaked master key, restore: taps genuine throughout', async (t) => {
      builtProgram();
      const blocks = runbooks();
      assert.deepEqual([...blocks.keys()], ['leaked-api-key', 'scheduled-rotation', 'leaked-master-key', 'restore', 'rehearsal-write', 'rehearsal-rekey']);
      await admin(async (c) => {
        for (const db of databases) await c.query(`create database ${db}`);
      });
      for (const dir of [etc, run, bin, join(root, 'var', 'lib', 'tapproof'), join(root, 'var', 'backups')]) mkdirSync(dir, { recursive: true });
      const port = await freePort();

      // The deployment: deploy/tapproof.env with this machine's database and Redis, and the key files it names.
      const deployed = readFileSync(join(REPO, 'deploy', 'tapproof.env'), 'utf8')
        .replaceAll('/etc/tapproof', etc)
        .replace(/^DATABASE_URL=.*$/m, `DATABASE_URL=${url(databases[0]!)}`)
        .replace(/^REDIS_URL=.*$/m, `REDIS_URL=${REDIS_URL}`)
        .replace(/^TAPPROOF_TRUST_PROXY=.*\n/m, '');
      const envFile = join(etc, 'env');
      writeFileSync(
        envFile,
        deployed +
          [
            `PORT=${port}`,
            'HOST=127.0.0.1',
            `TAPPROOF_DATA_DIR=${join(root, 'var', 'lib', 'tapproof')}`,
            `TAPPROOF_REDIS_PREFIX=rb${hex(4)}`,
            'LOG_LEVEL=warn',
            'TAPPROOF_REHEARSAL=1',
            '',
          ].join('\n'),
      );
      writeFileSync(join(etc, 'master.key'), randomBytes(32).toString('hex') + '\n', { mode: 0o640 });
      writeFileSync(join(etc, 'previous-master.keys'), '', { mode: 0o640 });
      symlinkSync(join(REPO, 'bin', 'tapproof.js'), join(bin, 'tapproof'));
      // systemctl restart|stop|start tapproof [tapproof-worker]: the one server (its embedded worker delivers).
      writeFileSync(
        join(bin, 'systemctl'),
        `#!/bin/bash
set -e
stop() { if [ -f ${run}/serve.pid ]; then pid=$(cat ${run}/serve.pid); kill "$pid" 2>/dev/null || true; while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done; rm -f ${run}/serve.pid; fi; }
start() {
  (set -a; . ${envFile}; set +a; exec tapproof serve) </dev/null >>${run}/serve.out 2>>${run}/serve.err &
  echo $! > ${run}/serve.pid
  for i in $(seq 1 200); do curl -sf "http://127.0.0.1:${port}/readyz" >/dev/null && return 0; kill -0 $(cat ${run}/serve.pid) || break; sleep 0.1; done
  echo "systemctl: tapproof did not start" >&2; tail -5 ${run}/serve.err >&2; exit 1
}
case "$1" in restart) stop; start;; stop) stop;; start) start;; *) exit 1;; esac
`,
      );
      chmodSync(join(bin, 'systemctl'), 0o755);
      const PATH = `${bin}:${process.env.PATH}`;

      /** bash with the env file read, as an operator's shell; resolves with its output, rejects on failure. */
      const shell = (script: string, vars: Record<string, string> = {}) =>
        new Promise<string>((resolve, reject) => {
          const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], {
            cwd: root,
            env: { PATH, HOME: process.env.HOME ?? root, ...vars },
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          let out = '';
          let err = '';
          child.stdout.on('data', (c) => (out += c));
          child.stderr.on('data', (c) => (err += c));
          child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}\n${script}\n--- stdout\n${out}--- stderr\n${err}`))));
        });
      const tapproof = async (...args: string[]) => shell(`set -a; . ${envFile}; set +a; tapproof ${args.map((a) => `'${a}'`).join(' ')}`);
      const json = async (...args: string[]) => JSON.parse(await tapproof(...args, '--json'));
      /** Each production generation: [number, retired, chips]. */
      const generations = async () =>
        ((await json('master', 'status', '--mode', 'production')) as { generation: number; retired: unknown; chips: number }[]).map((g) => [
          g.generation,
          Boolean(g.retired),
          g.chips,
        ]);
      const asWritten = (block: string) => block.replaceAll('/etc/tapproof', etc).replaceAll('/var/backups', join(root, 'var', 'backups'));

      await tapproof('migrate');
      await shell('systemctl restart tapproof');
      const team = (await json('teams', 'create', '--name', 'runbooks')).id as string;
      const live = (await json('keys', 'create', '--team', team, '--mode', 'production', '--role', 'admin', '--name', 'operator')).key as string;
      const leaky = (await json('keys', 'create', '--team', team, '--mode', 'production', '--role', 'verify', '--name', 'landing page')).id as string;
      const api = async (method: string, path: string, body?: unknown) => {
        const r = await fetch(`http://127.0.0.1:${port}/api/v1${path}`, {
          method,
          headers: { authorization: `Bearer ${live}`, 'content-type': 'application/vnd.api+json', accept: 'application/vnd.api+json' },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
        return { status: r.status, body: (await r.json()) as any };
      };

      // An imported production chip, tapped in a loop; a written one (emulated: the rehearsal), rekeyed by the runbooks.
      const file = join(root, 'chips.json');
      writeFileSync(
        file,
        JSON.stringify([
          { url: `https://runbooks.example/i/${hex(4)}`, protocol: 'ntag_424_dna', uid: '04' + hex(6), sdm_meta_read_key: hex(16), sdm_file_read_key: hex(16) },
        ]),
      );
      const [imported] = (await json('tags', 'import', '--team', team, '--mode', 'production', '--file', file)) as string[];
      const created = await api('POST', '/tags', { data: [{ type: 'tags', attributes: { protocol: 'ntag_424_dna', url: 'https://runbooks.example/w' } }] });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const written = created.body.data[0].id as string;
      const vars = { KEY: live, TAGS: written, TAG: written, TEAM: team, KEY_ID: leaky };
      const runbook = async (name: string, index: number, extra: Record<string, string> = {}) =>
        shell(asWritten(blocks.get(name)![index]!), { ...vars, ...extra });

      const answers: { status: number; genuine: unknown; why?: unknown }[] = [];
      let unreachable = 0;
      let stopped = false;
      const verify = async (scanUrl: string) => {
        try {
          const r = await api('POST', '/verifications', { data: { type: 'verifications', attributes: { url: scanUrl } } });
          // A refusal says why, so that a failure here names its cause.
          const error = r.status === 201 ? {} : { why: r.body?.errors?.[0]?.detail ?? r.body?.errors?.[0]?.title ?? r.body };
          answers.push({ status: r.status, genuine: r.body?.data?.attributes?.genuine, ...error });
        } catch {
          unreachable++; // a restart: nothing listening for a moment
        }
      };
      let counter = 0;
      const taps = (async () => {
        while (!stopped) {
          const scanUrl = await tapproof('tags', 'tap', '--tag', imported!, '--team', team, '--mode', 'production', '--counter', String(++counter)).catch(
            () => null,
          );
          if (scanUrl !== null) await verify(scanUrl.trim());
        }
      })();
      const tapWritten = async () => verify((await tapproof('emulator', 'tap', written)).trim());
      const genuineSoFar = (what: string) => {
        assert.ok(answers.length > 0, what);
        assert.deepEqual(
          answers.filter((a) => a.status !== 201 || a.genuine !== true),
          [],
          what,
        );
      };

      try {
        const wrote = await runbook('rehearsal-write', 0);
        assert.match(wrote, new RegExp(`^${written}: configured \\(\\d+ round trips\\)\\n1 of 1 tag configured\\nhttps://runbooks\\.example/w\\?`));
        await verify(wrote.trim().split('\n').at(-1)!);

        const keys = await runbook('leaked-api-key', 0);
        assert.match(keys, /"roll|"key":"tp_live_/);
        assert.notEqual((await json('keys', 'list', '--team', team)).find((k: { id: string }) => k.id === leaky).revoked_at, null);

        // A scheduled rotation: generation 2; the written chip rekeyed in its step 5; generation 1 retired.
        const rotated = await runbook('scheduled-rotation', 0);
        assert.match(rotated, /"status":"ok"/);
        assert.doesNotMatch(rotated, /lacking_master_keys/);
        await tapWritten();
        assert.match(await runbook('rehearsal-rekey', 0), new RegExp(`^${written}: rekeyed \\(3 round trips\\)\\n`));
        await tapWritten();
        await runbook('scheduled-rotation', 1, { OLD_GENERATION: '1' });
        assert.deepEqual(await generations(), [
          [1, true, 0],
          [2, false, 2],
        ]);
        assert.equal(readFileSync(join(etc, 'previous-master.keys'), 'utf8'), '');
        genuineSoFar('through the scheduled rotation');

        // The current key leaked: generation 3, the chip rekeyed again, generation 2 retired.
        await runbook('leaked-master-key', 0);
        await tapWritten();
        await runbook('rehearsal-rekey', 0);
        await tapWritten();
        await runbook('leaked-master-key', 1, { LEAKED_GENERATION: '2' });
        assert.deepEqual(await generations(), [
          [1, true, 0],
          [2, true, 0],
          [3, false, 2],
        ]);
        genuineSoFar('through the leaked master key');

        // The rehearsal is over (doctor fails while it is on); then a dump, restored into an empty database.
        writeFileSync(envFile, readFileSync(envFile, 'utf8').replace(/^TAPPROOF_REHEARSAL=1\n/m, ''));
        await shell('systemctl restart tapproof');
        await runbook('restore', 0);
        const restored = await runbook('restore', 1, { NEW_DATABASE_URL: url(databases[1]!) });
        assert.match(restored, /^no drift\n$/);
        assert.match(readFileSync(envFile, 'utf8'), new RegExp(`^DATABASE_URL=${url(databases[1]!)}$`, 'm'));
        const before = answers.length;
        while (answers.length < before + 2) await new Promise((resolve) => setTimeout(resolve, 100));
        await tapWritten();
      } finally {
        stopped = true;
        await taps;
      }
      genuineSoFar('through the restore');
      assert.ok(answers.length >= 10, `${answers.length} verifications, ${unreachable} while restarting`);
      t.diagnostic(`${answers.length} verifications, all genuine; ${unreachable} taps sent while the server restarted`);
    });
  });
}

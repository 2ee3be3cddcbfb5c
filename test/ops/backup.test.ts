// The restore drill, both engines: scans and webhook deliveries under load, a backup in the middle (SQLite: `tapproof backup`;
// PostgreSQL: pg_dump, as docs/operations.md says), a restore into an empty place (`tapproof restore`;
// pg_restore into a new database), `tapproof doctor` on it; every scan answered 201 before the backup
// began is in the restored database, every chip's counter is at least its last genuine scan's, a tap
// newer than the backup verifies genuine on a server of the restored database and a tap it already saw
// is refused; every tag event the backup holds reaches the webhook (the restored server's worker sends
// what was still pending when the backup was taken; at least once, as always). Bad requests to backup and restore: an existing target, a non-empty data directory, a
// file that is no database.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { openDatabase } from '../../src/db/database.js';
import { runCli, startServe } from '../cli/process.js';
import { DATABASES, POSTGRES_URL, call, startServer, type DatabaseKind, type SeededTeam, type TestServer } from '../kit/harness.js';
import { emulated, tapUrl, verify } from '../verifications/helpers.js';
import { FAST_WEBHOOKS, startDelivery, verify as signedBy } from '../webhooks/receiver.js';

/** Takes a backup of the server's database now (the documented way for its engine) and returns how to restore it. */
async function takeBackup(server: TestServer, dir: string): Promise<{ restore: () => Promise<Record<string, string>>; drop: () => void }> {
  if (server.kind === 'sqlite') {
    const target = join(dir, 'nightly.db');
    const backup = await runCli(server.storage.env, 'backup', '--to', target, '--json');
    assert.equal(backup.code, 0, backup.stderr);
    const report = JSON.parse(backup.stdout);
    assert.deepEqual(
      { ...report, bytes: undefined, keys: undefined },
      { ok: true, path: target, bytes: undefined, integrity: 'ok', key_file: null, keys: undefined },
    );
    assert.equal(report.bytes, statSync(target).size);
    assert.deepEqual(report.keys, ['the sandbox master keys are in the database']);
    // One file: no partial, no -wal or -shm left beside it.
    assert.deepEqual(
      readdirSync(dir).filter((name) => name.startsWith('nightly')),
      ['nightly.db'],
    );
    return {
      restore: async () => {
        const restoredDir = join(dir, 'restored');
        const env = { DATABASE_URL: `sqlite:${join(restoredDir, 'tapproof.db')}`, TAPPROOF_DATA_DIR: restoredDir };
        const restored = await runCli(env, 'restore', '--from', target);
        assert.equal(restored.code, 0, restored.stderr);
        assert.equal(restored.stdout, `restored ${target} to ${join(restoredDir, 'tapproof.db')}; check it with: tapproof doctor\n`);
        return env;
      },
      drop: () => {},
    };
  }
  const schema = schemaOf(server.storage.env.DATABASE_URL!);
  const dump = join(dir, 'nightly.dump');
  execFileSync('pg_dump', ['--format=custom', `--schema=${schema}`, `--file=${dump}`, POSTGRES_URL]);
  const database = `tapproof_drill_${randomBytes(4).toString('hex')}`;
  const at = (db: string) => {
    const url = new URL(POSTGRES_URL);
    url.pathname = `/${db}`;
    return url;
  };
  return {
    restore: async () => {
      execFileSync('psql', [POSTGRES_URL, '-qc', `create database ${database}`]);
      // A dump of one schema carries no extension: the tag search's trigram index needs pg_trgm (docs/operations.md).
      execFileSync('psql', [at(database).toString(), '-qc', 'create extension pg_trgm with schema public']);
      execFileSync('pg_restore', ['--no-owner', `--dbname=${at(database).toString()}`, dump]);
      const restored = at(database);
      restored.searchParams.set('options', `-c search_path=${schema}`);
      return { DATABASE_URL: restored.toString(), TAPPROOF_DATA_DIR: join(dir, 'restored'), TAPPROOF_MASTER_KEY: server.storage.env.TAPPROOF_MASTER_KEY! };
    },
    drop: () => execFileSync('psql', [POSTGRES_URL, '-qc', `drop database if exists ${database} with (force)`]),
  };
}

/** The schema a test PostgreSQL url names in its search_path. */
const schemaOf = (url: string): string => /search_path=(\w+)/.exec(new URL(url).searchParams.get('options')!)![1]!;

function openRestored(env: Record<string, string>, kind: DatabaseKind) {
  const url = env.DATABASE_URL!;
  return kind === 'sqlite'
    ? openDatabase({ kind: 'sqlite', path: url.slice('sqlite:'.length) })
    : openDatabase({ kind: 'postgres', url: url.replace(/\?.*$/, '') }, { schema: schemaOf(url) });
}

/** Reads the restored database: its verification ids, and each chip's counter beside its last genuine scan's. */
async function restoredState(env: Record<string, string>, kind: DatabaseKind, chipIds: string[]) {
  const db = openRestored(env, kind);
  try {
    const ids = new Set((await db.kysely.selectFrom('verifications').select('id').execute()).map((r) => r.id));
    const counters = [];
    for (const id of chipIds) {
      const chip = await db.kysely.selectFrom('chips').select('last_counter').where('tag_id', '=', id).executeTakeFirstOrThrow();
      const last = await db.kysely
        .selectFrom('verifications')
        .select((eb) => eb.fn.max('read_counter').as('c'))
        .where('tag_id', '=', id)
        .where('genuine', '=', 1 as never)
        .executeTakeFirstOrThrow();
      counters.push({ id, counter: Number(chip.last_counter), lastGenuine: Number(last.c) });
    }
    return { ids, counters };
  } finally {
    await db.close();
  }
}

/** The restored database's tag.created events. */
async function restoredEvents(env: Record<string, string>, kind: DatabaseKind): Promise<{ id: string; tag_id: string }[]> {
  const db = openRestored(env, kind);
  try {
    return await db.kysely.selectFrom('events').select(['id', 'tag_id']).where('type', '=', 'tag.created').execute();
  } finally {
    await db.close();
  }
}

for (const kind of DATABASES)
  describe(`backup and restore (${kind})`, () => {
    let server: TestServer;
    let world: SeededTeam;
    let dir: string;
    let delivery: Awaited<ReturnType<typeof startDelivery>>;

    before(async () => {
      server = await startServer(kind, FAST_WEBHOOKS);
      world = await server.seedTeam({ name: 'drill' });
      dir = mkdtempSync(join(tmpdir(), 'tapproof-backup-'));
      delivery = await startDelivery(server.ctx);
    });
    after(async () => {
      await delivery.stop();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    });

    test('a backup under load restores every scan answered before it; newer taps verify, seen ones are refused', { timeout: 120_000 }, async () => {
      const chips = await Promise.all([0, 1, 2].map(() => emulated(server, world.teamId, 'ntag_424_dna')));
      const hook = await call(server, 'POST', '/webhooks', {
        key: world.sandbox.key,
        body: { data: { type: 'webhooks', attributes: { url: delivery.receiver.url('/drill'), events: ['tag.created'] } } },
      });
      assert.equal(hook.status, 201, hook.text);
      const secret: string = hook.body.data.attributes.secret;
      const answered: { id: string; url: string; at: number }[] = [];
      const created: { id: string; at: number }[] = [];
      let stop = false;
      // A fourth client creating tags: each a tag.created event whose delivery the backup may catch pending.
      const creating = (async () => {
        for (let n = 0; !stop; n++) {
          const r = await call(server, 'POST', '/tags', {
            key: world.sandbox.key,
            body: { data: [{ type: 'tags', attributes: { protocol: 'ntag_223_dna', url: `https://drill.example/${n}` } }] },
          });
          assert.equal(r.status, 201, r.text);
          created.push({ id: r.body.data[0].id, at: Date.now() });
        }
      })();
      // Three clients tapping their own chip in a loop: scans commit while the backup copies.
      const load = chips.map(async (chip) => {
        while (!stop) {
          const url = await tapUrl(server, chip.id);
          const r = await verify(server, world.sandbox.key, url);
          assert.equal(r.status, 201, r.text);
          assert.equal(r.body.data.attributes.genuine, true, r.text);
          answered.push({ id: r.body.data.id, url, at: Date.now() });
        }
      });
      while (answered.length < 60) await new Promise((resolve) => setTimeout(resolve, 20));
      const backupStarted = Date.now();
      const before = answered.filter((a) => a.at < backupStarted);
      const backup = await takeBackup(server, dir);
      while (answered.length < before.length + 60) await new Promise((resolve) => setTimeout(resolve, 20));
      stop = true;
      await Promise.all([...load, creating]);
      const createdBefore = created.filter((c) => c.at < backupStarted);
      assert.ok(createdBefore.length > 0, 'no tag was created before the backup');

      try {
        const env = await backup.restore();
        const doctor = await runCli(env, 'doctor');
        assert.deepEqual([doctor.code, doctor.stdout], [0, 'no drift\n'], doctor.stderr);
        const { ids, counters } = await restoredState(
          env,
          kind,
          chips.map((c) => c.id),
        );
        const missing = before.filter((a) => !ids.has(a.id));
        assert.deepEqual(missing, [], `${missing.length} of ${before.length} scans answered before the backup are missing`);
        for (const c of counters) assert.ok(c.counter >= c.lastGenuine, `${c.id}: counter ${c.counter} below its last genuine scan ${c.lastGenuine}`);
        // The chips' tags were created before the webhook: only the fourth client's tags are announced to it.
        const ours = new Set(created.map((c) => c.id));
        const announced = (await restoredEvents(env, kind)).filter((e) => ours.has(e.tag_id));
        const eventOf = new Map(announced.map((e) => [e.tag_id, e.id]));
        const unannounced = createdBefore.filter((c) => !eventOf.has(c.id));
        assert.deepEqual(unannounced, [], `${unannounced.length} tags created before the backup have no event in it`);

        // A server of the restored database: a tap it never saw is genuine, one it saw is refused.
        // Its embedded worker sends what the backup holds as pending, to the same receiver.
        const revived = await startServe({ ...env, ...FAST_WEBHOOKS, TAPPROOF_RATE_LIMIT: '100000', TAPPROOF_EMBEDDED_WORKER: '1' });
        try {
          // The first scan: its chip was scanned again before the backup, so this is a replay, not a reload.
          const seen = before[0]!;
          const replay = await verify(revived, world.sandbox.key, seen.url);
          assert.equal(replay.status, 201, replay.text);
          assert.deepEqual([replay.body.data.attributes.genuine, replay.body.data.id === seen.id], [false, false]);
          const fresh = await verify(revived, world.sandbox.key, await tapUrl(server, chips[0]!.id));
          assert.equal(fresh.status, 201, fresh.text);
          assert.equal(fresh.body.data.attributes.genuine, true, fresh.text);
          const arrived = () => new Set(delivery.receiver.on('/drill').map((r) => String(r.headers['webhook-id'])));
          await delivery.receiver.until(() => announced.every((e) => arrived().has(e.id)), 30_000);
          assert.ok(
            delivery.receiver.on('/drill').every((r) => signedBy(secret, r)),
            'every delivery, before and after the restore, is signed with the secret',
          );
        } finally {
          assert.equal(await revived.stop(), 0);
        }
      } finally {
        backup.drop();
      }
    });

    if (kind === 'sqlite')
      test('refusals (SQLite): an existing target, a non-empty data directory without --force, a file that is no database; PostgreSQL is pointed to its tools', async () => {
        const target = join(dir, 'once.db');
        assert.equal((await runCli(server.storage.env, 'backup', '--to', target)).code, 0);
        const again = await runCli(server.storage.env, 'backup', '--to', target);
        assert.deepEqual([again.code, again.stderr], [1, `tapproof: ${target} exists: name a new file\n`]);

        const busy = join(dir, 'busy');
        const env = { DATABASE_URL: `sqlite:${join(busy, 'tapproof.db')}`, TAPPROOF_DATA_DIR: busy };
        assert.equal((await runCli(env, 'restore', '--from', target)).code, 0);
        const refused = await runCli(env, 'restore', '--from', target);
        assert.equal(refused.code, 1);
        assert.match(refused.stderr, new RegExp(`^tapproof: ${busy} is not empty \\(.*\\): restore into an empty data directory, or pass --force\\n$`));
        assert.equal((await runCli(env, 'restore', '--from', target, '--force')).code, 0);

        const junk = join(dir, 'junk.db');
        writeFileSync(junk, 'not a database');
        const bad = await runCli(
          { ...env, TAPPROOF_DATA_DIR: join(dir, 'empty'), DATABASE_URL: `sqlite:${join(dir, 'empty', 'x.db')}` },
          'restore',
          '--from',
          junk,
        );
        assert.equal(bad.code, 1);
        assert.match(bad.stderr, /^tapproof: /);
        assert.ok(!existsSync(join(dir, 'empty', 'x.db')), 'nothing restored');
        const missing = await runCli(env, 'restore', '--from', join(dir, 'nowhere.db'), '--force');
        assert.deepEqual([missing.code, missing.stderr], [1, `tapproof: no backup at ${join(dir, 'nowhere.db')}\n`]);

        const pg = await runCli({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test' }, 'backup', '--to', join(dir, 'pg.db'));
        assert.deepEqual(
          [pg.code, pg.stderr],
          [
            1,
            'tapproof: tapproof backup copies the embedded SQLite database; on PostgreSQL use pg_dump or pg_basebackup (docs/operations.md#backup-and-restore)\n',
          ],
        );
        assert.equal(readFileSync(target).subarray(0, 15).toString(), 'SQLite format 3');
      });
  });

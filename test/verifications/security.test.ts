// Who may verify and read what: a key sees only its own team's world
// (docs/api.md#requests-and-errors: 401 without a valid key, 404 outside the team and mode); chip keys never
// leave the server, in a response or a log line.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../../src/app.js';
import { createContext } from '../../src/context.js';
import { generateSun424 } from '../../src/chips/index.js';
import { loadConfig } from '../../src/config.js';
import { migrate } from '../../src/db/migrations.js';
import { revoke } from '../../src/keys/service.js';
import { importChips } from '../../src/tag-chips/import.js';
import { DATABASES, call, freshStorage, startServer, type TestServer, type SeededTeam } from '../kit/harness.js';
import { emulated, tapUrl, verify } from './helpers.js';
import { systemClock } from '../../src/time.js';
import { cliActor } from '../../src/audit/record.js';

for (const kind of DATABASES) {
  describe(`verification security (${kind})`, () => {
    let server: TestServer;
    let owner: SeededTeam;
    let stranger: SeededTeam;
    let sub: SeededTeam;
    before(async () => {
      server = await startServer(kind);
      owner = await server.seedTeam({ name: 'owner' });
      stranger = await server.seedTeam({ name: 'stranger' });
      sub = await server.seedTeam({ name: 'sub', parent: owner.teamId });
    });
    after(() => server.close());

    test('no key or a bad key → 401; a revoked key → 401', async () => {
      const url = await tapUrl(server, (await emulated(server, owner.teamId, 'ntag_424_dna')).id);
      assert.equal((await verify(server, '', url)).status, 401);
      assert.equal((await verify(server, 'tp_sandbox_' + 'x'.repeat(32), url)).status, 401);
      const revoked = await server.seedTeam({ name: 'revoked' });
      await revoke(server.ctx, revoked.sandbox.id, cliActor());
      assert.equal((await verify(server, revoked.sandbox.key, url)).status, 401);
      // None of those touched the counter.
      assert.equal((await verify(server, owner.sandbox.key, url)).body.data.attributes.reason, 'ok');
    });

    test('another team, the other mode, a subteam, the parent team → 404 for the scan, the verification and the session', async () => {
      const tag = await emulated(server, owner.teamId, 'ntag_424_dna');
      const url = await tapUrl(server, tag.id);
      for (const key of [stranger.sandbox.key, owner.production.key, sub.sandbox.key]) assert.equal((await verify(server, key, url)).status, 404);
      const ok = (await verify(server, owner.sandbox.key, url)).body.data;
      assert.equal(ok.attributes.reason, 'ok');
      for (const key of [stranger.sandbox.key, owner.production.key, sub.sandbox.key]) {
        assert.equal((await call(server, 'GET', `/verifications/${ok.id}`, { key })).status, 404);
        assert.equal((await call(server, 'GET', `/sessions/${ok.attributes.session_id}`, { key })).status, 404);
      }
      const subTag = await emulated(server, sub.teamId, 'ntag_424_dna');
      const subUrl = await tapUrl(server, subTag.id);
      assert.equal((await verify(server, owner.sandbox.key, subUrl)).status, 404);
      assert.equal((await verify(server, sub.sandbox.key, subUrl)).body.data.attributes.reason, 'ok');
    });
  });

  describe(`chip keys stay secret (${kind})`, () => {
    test('no response and no log line carries an imported key', async () => {
      const storage = await freshStorage(kind);
      const db = storage.open();
      await migrate(db);
      const lines: string[] = [];
      const stream = new Writable({ write: (chunk, _enc, done) => (lines.push(chunk.toString()), done()) });
      const ctx = createContext(db, { ...loadConfig({ TAPPROOF_RATE_LIMIT: '1000000', ...storage.env }), database: storage.target });
      const app = await buildApp(ctx, { logger: { level: 'trace', stream } });
      await app.listen({ port: 0, host: '127.0.0.1' });
      const server = { base: `http://127.0.0.1:${(app.server.address() as { port: number }).port}/api/v1` };
      try {
        const { createTeam } = await import('../../src/teams/service.js');
        const { createKey } = await import('../../src/keys/service.js');
        const { id: teamId } = await createTeam(db.kysely, 'secret', null, systemClock);
        const { key } = await createKey(db.kysely, teamId, 'sandbox', systemClock);
        const meta = randomBytes(16);
        const file = randomBytes(16);
        const uid = Buffer.from('04' + randomBytes(6).toString('hex'), 'hex');
        const url = `https://secret.example/${randomBytes(4).toString('hex')}`;
        const [tagId] = await importChips(ctx, { teamId, mode: 'sandbox', actor: cliActor() }, [
          { url, protocol: 'ntag_424_dna', uid: uid.toString('hex'), sdm_meta_read_key: meta.toString('hex'), sdm_file_read_key: file.toString('hex') },
        ]);
        const bodies: string[] = [];
        for (let counter = 1; counter <= 2; counter++) {
          const s = generateSun424({ crypto: 'aes', uid, counter, sdmMetaReadKey: meta, sdmFileReadKey: file });
          const r = await verify(server as TestServer, key, `${url}?picc_data=${s.piccData}&cmac=${s.cmac}`);
          assert.equal(r.body.data.attributes.reason, 'ok');
          bodies.push(r.text, (await call(server, 'GET', `/verifications/${r.body.data.id}`, { key })).text);
          bodies.push((await call(server, 'GET', `/sessions/${r.body.data.attributes.session_id}`, { key })).text);
        }
        bodies.push(
          (await call(server, 'GET', `/tags/${tagId}`, { key })).text,
          (await verify(server as TestServer, key, `${url}?picc_data=${'0'.repeat(32)}&cmac=${'0'.repeat(16)}`)).text,
        );
        assert.ok(lines.length > 0, 'the log was captured');
        const seen = (lines.join('\n') + bodies.join('\n')).toLowerCase();
        for (const secret of [meta, file]) assert.ok(!seen.includes(secret.toString('hex')), 'a chip key leaked');
        assert.ok(!seen.includes(key.toLowerCase()), 'the API key leaked');
      } finally {
        await app.close();
        await db.close();
        await storage.drop();
      }
    });
  });
}

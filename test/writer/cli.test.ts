// `tapproof writer` as a separate process over HTTP: onto the emulated card in the data dir, and
// through the real PC/SC stack (pcscd + vsmartcard vpcd) with the software card as the virtual card.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { describe, it } from 'node:test';
import { Ntag424Card } from '../../src/chips/index.js';
import { cliResult } from '../cli/process.js';
import { DATABASES, call, sharedServer } from '../kit/harness.js';
import { cli, createdTag, eventsOf, pcscSkip, verify, vpcdReader, withVpcdCard } from './helpers.js';

const VPCD_PORT = Number(process.env.TAPPROOF_TEST_WRITER_VPCD_PORT ?? 35963);
const READER = vpcdReader(VPCD_PORT);

/** A loopback port nothing listens on: one the system just handed out and took back. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

for (const kind of DATABASES) {
  describe(`tapproof writer (${kind})`, () => {
    const suite = sharedServer(kind);

    it('writes created tags onto emulated cards; emulator tap gives URLs the API says are genuine, an older one replayed', async () => {
      const { server, world } = suite;
      const a = await createdTag(server, world.sandbox.key);
      const b = await createdTag(server, world.sandbox.key, 'ntag_424_dna_tag_tamper');
      const r = await cli(server, ['writer', '--key', world.sandbox.key, '--server', server.base, '--json', a.id, b.id]);
      assert.equal(r.code, 0, r.stderr);
      const lines = r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      assert.deepEqual(
        lines.map((l) => [l.tagId, l.status]),
        [
          [a.id, 'configured'],
          [b.id, 'configured'],
        ],
      );
      assert.deepEqual(
        (await eventsOf(server, a.id)).map((e) => e.type),
        ['tag.created', 'tag.configured'],
      );
      const first = JSON.parse((await cli(server, ['emulator', 'tap', a.id, '--json'])).stdout);
      const second = JSON.parse((await cli(server, ['emulator', 'tap', a.id, '--json'])).stdout);
      assert.equal(second.counter, first.counter + 1);
      assert.equal((await verify(server, world.sandbox.key, second.url)).body.data.attributes.genuine, true);
      assert.equal((await verify(server, world.sandbox.key, first.url)).body.data.attributes.reason, 'replayed');
      // TT: closed, then open after tamper open.
      const closed = JSON.parse((await cli(server, ['emulator', 'tap', b.id, '--json'])).stdout);
      assert.equal((await verify(server, world.sandbox.key, closed.url)).body.data.attributes.tamper.current, 'closed');
      assert.equal((await cli(server, ['emulator', 'tamper', b.id, 'open'])).code, 0);
      const open = JSON.parse((await cli(server, ['emulator', 'tap', b.id, '--json'])).stdout);
      assert.equal((await verify(server, world.sandbox.key, open.url)).body.data.attributes.tamper.current, 'open');
      // Written once: the CLI reports the refusal and exits 1.
      const again = await cli(server, ['writer', '--key', world.sandbox.key, '--server', server.base, a.id]);
      assert.equal(again.code, 1);
      assert.match(again.stdout, new RegExp(`^${a.id}: refused \\(409 The tag is configured and is kept\\)\\n0 of 1 tag configured\\n$`));
    });

    it("--all-created writes every created tag of the key's world; a failure is one line and exit 1", async () => {
      const { server } = suite;
      const w = await server.seedTeam({ name: 'all' });
      const ok = await createdTag(server, w.sandbox.key);
      const long = await createdTag(server, w.sandbox.key, 'ntag_424_dna', `https://example.com/${'x'.repeat(230)}`);
      const r = await cli(server, ['writer', '--key', w.sandbox.key, '--server', server.base, '--all-created']);
      assert.equal(r.code, 1);
      const lines = r.stdout.trim().split('\n');
      assert.equal(lines.length, 3);
      // The round trips the API records for the write (the console shows the same): an AES write's three batches.
      const [write] = (await call(server, 'GET', `/tags/${ok.id}/writes`, { key: w.sandbox.key })).body.data;
      assert.equal(write.attributes.round_trips, 3);
      assert.ok(lines.includes(`${ok.id}: configured (${write.attributes.round_trips} round trips)`), r.stdout);
      assert.ok(
        lines.some((l) => l.startsWith(`${long.id}: failed, url_too_long: url is 250 bytes but an NTAG 424 DNA has room for`)),
        r.stdout,
      );
      assert.equal(lines[2], '1 of 2 tags configured');
    });

    it('a server that does not answer: one line naming the address tried, the cause and the setting; exit 1, nothing on stdout', async () => {
      const { server, world } = suite;
      const { id } = await createdTag(server, world.sandbox.key);
      const port = await closedPort();
      const given = await cli(server, ['writer', '--key', world.sandbox.key, '--server', `http://127.0.0.1:${port}`, id]);
      assert.deepEqual(given, {
        code: 1,
        stdout: '',
        stderr: `tapproof: cannot reach the tapproof server at http://127.0.0.1:${port}/api/v1 (connection refused); check --server\n`,
      });
      // Without --server the address comes from PORT, and the line says so.
      for (const args of [[id], ['--all-created']]) {
        const defaulted = await cliResult(server, ['writer', '--key', world.sandbox.key, ...args], { env: { PORT: String(port) } });
        assert.deepEqual(defaulted, {
          code: 1,
          stdout: '',
          stderr: `tapproof: cannot reach the tapproof server at http://127.0.0.1:${port}/api/v1 (connection refused); set --server to its address (or PORT, for a server on this machine)\n`,
        });
      }
      const unknownHost = await cli(server, ['writer', '--key', world.sandbox.key, '--server', 'http://tapproof.invalid', id]);
      assert.equal(unknownHost.code, 1);
      assert.match(
        unknownHost.stderr,
        /^tapproof: cannot reach the tapproof server at http:\/\/tapproof\.invalid\/api\/v1 \((unknown host|host name lookup failed)\); check --server\n$/,
      );
      const notUrl = await cli(server, ['writer', '--key', world.sandbox.key, '--server', '127.0.0.1:8080', id]);
      assert.deepEqual(notUrl, { code: 1, stdout: '', stderr: 'tapproof: --server must be an http(s) URL, not "127.0.0.1:8080"\n' });
      assert.equal((await call(server, 'GET', `/tags/${id}`, { key: world.sandbox.key })).body.data.attributes.status, 'created');
    });

    it('a url a phone cannot open is written as given, after a warning on stderr naming it', async () => {
      const { server } = suite;
      const w = await server.seedTeam({ name: 'urls' });
      const odd = ['not-a-url', 'ftp://files.example/manual.pdf', 'https:/one-slash.example', 'https://exa mple.com/x'];
      const tags = [];
      for (const url of odd) tags.push(await createdTag(server, w.sandbox.key, 'ntag_424_dna', url));
      const fine = await createdTag(server, w.sandbox.key);
      const r = await cli(server, ['writer', '--key', w.sandbox.key, '--server', server.base, '--json', ...tags.map((t) => t.id), fine.id]);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(
        r.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l).status),
        ['configured', 'configured', 'configured', 'configured', 'configured'],
      );
      assert.equal(
        r.stderr,
        tags.map((t) => `tapproof: WARNING: ${t.id}: its url ${JSON.stringify(t.url)} is not an http(s) URL a phone can open; writing it as given\n`).join(''),
      );
      const tap = JSON.parse((await cli(server, ['emulator', 'tap', tags[0]!.id, '--json'])).stdout);
      assert.ok(tap.url.startsWith('not-a-url?'), tap.url);
    });

    it('--reader pcsc where the optional pcsclite binding is missing: one clear line, exit 1, no write started', async () => {
      const { server, world } = suite;
      const { id } = await createdTag(server, world.sandbox.key);
      const r = await cli(
        server,
        ['writer', '--key', world.sandbox.key, '--server', server.base, '--reader', 'pcsc', id],
        ['-r', './test/fixtures/writer/no-pcsclite.cjs'],
      );
      assert.equal(r.code, 1);
      assert.match(
        r.stderr,
        /^tapproof: --reader pcsc needs the optional pcsclite binding, which is not installed \(.+\); install libpcsclite-dev and run npm install pcsclite$/m,
      );
      assert.deepEqual(r.stderr.trim().split('\n').slice(0, -1), [`[1/1] ${id}: present a chip to the reader`], r.stderr);
      assert.equal(await server.ctx.db.kysely.selectFrom('writer_sessions').select('id').where('tag_id', '=', id).executeTakeFirst(), undefined);
    });

    it('--reader pcsc writes a chip through the real pcscd and vsmartcard vpcd; the tap verifies', { skip: pcscSkip() }, async (t) => {
      const { server, world } = suite;
      const { id } = await createdTag(server, world.sandbox.key);
      const card = new Ntag424Card();
      const ran = await withVpcdCard(t, card, VPCD_PORT, async () => {
        const r = await cli(server, ['writer', '--key', world.sandbox.key, '--server', server.base, '--reader', 'pcsc', '--pcsc-reader', READER, '--json', id]);
        assert.equal(r.code, 0, r.stderr + r.stdout);
        assert.equal(JSON.parse(r.stdout.trim()).status, 'configured');
      });
      if (!ran) return;
      const tag = await call(server, 'GET', `/tags/${id}`, { key: world.sandbox.key });
      assert.equal(tag.body.data.attributes.status, 'configured');
      const scan = await verify(server, world.sandbox.key, card.tap());
      assert.equal(scan.body.data.attributes.genuine, true, scan.text);
    });
  });
}

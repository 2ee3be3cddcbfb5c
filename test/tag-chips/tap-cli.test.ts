// `tapproof tags tap --tag --team --counter`: the URL a chip opens at a counter,
// computed from the keys the server holds, so that a brand tests its backend
// without hardware. The printed URL is verified through POST /verifications:
// genuine at a new counter, the same verification at that counter again (a
// reload), replayed at a lower one.
// Chips come from every source: imported (each layout), written by
// `tapproof writer` (its --server given as the origin, and with /api/v1/), emulated.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { DATABASES, sharedServer, type TestServer, type SeededTeam } from '../kit/harness.js';
import { cli, createdTag, verify } from '../writer/helpers.js';
import { emulated } from '../verifications/helpers.js';

const hexKey = () => randomBytes(16).toString('hex').toUpperCase();
const uid = () => '04' + randomBytes(6).toString('hex').toUpperCase();
const unique = () => `https://brand.example/tap/${randomBytes(6).toString('hex')}`;

async function tapUrlAt(server: TestServer, world: SeededTeam, tagId: string, counter: number, mode = 'sandbox'): Promise<string> {
  const r = await cli(server, ['tags', 'tap', '--tag', tagId, '--team', world.teamId, '--counter', String(counter), '--mode', mode]);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.trim();
}

async function verdict(server: TestServer, key: string, url: string) {
  const response = await verify(server, key, url);
  assert.equal(response.status, 201, response.text);
  const { genuine, reason, read_counter: counter } = response.body.data.attributes;
  return { id: response.body.data.id as string, genuine, reason, counter };
}

/**
 * Counter 5 genuine. Counter 5 again is replayed, unless the layout mirrors nothing random (plain UID
 * and counter) so that the URL is the very same: then it is a reload within the session and the
 * original verification answers. Counter 4, below the last one accepted, is replayed.
 */
async function assertTaps(server: TestServer, world: SeededTeam, key: string, tagId: string, mode = 'sandbox') {
  const url = await tapUrlAt(server, world, tagId, 5, mode);
  const first = await verdict(server, key, url);
  assert.deepEqual([first.genuine, first.reason, first.counter], [true, 'ok', 5], tagId);
  const sameCounter = await tapUrlAt(server, world, tagId, 5, mode);
  const again = await verdict(server, key, sameCounter);
  if (sameCounter === url) assert.deepEqual(again, first, tagId);
  else assert.deepEqual([again.genuine, again.reason, again.counter], [false, 'replayed', 5], tagId);
  const older = await verdict(server, key, await tapUrlAt(server, world, tagId, 4, mode));
  assert.deepEqual([older.genuine, older.reason, older.counter], [false, 'replayed', 4], tagId);
  return sameCounter === url;
}

const dir = mkdtempSync(join(tmpdir(), 'tapproof-tap-'));

for (const kind of DATABASES) {
  describe(`tapproof tags tap (${kind})`, () => {
    const suite = sharedServer(kind);

    test('imported chips of every layout, sandbox and production', async () => {
      const { server, world } = suite;
      const entries = [
        { url: unique(), protocol: 'ntag_424_dna', uid: uid(), sdm_meta_read_key: hexKey(), sdm_file_read_key: hexKey() },
        {
          url: unique(),
          protocol: 'ntag_424_dna',
          uid: uid(),
          sdm_meta_read_key: hexKey(),
          sdm_file_read_key: hexKey(),
          params: { picc_data: 'e', cmac: 'm' },
          mac_input_from: 'picc_data',
        },
        {
          url: unique(),
          protocol: 'ntag_424_dna',
          uid: uid(),
          sdm_meta_read_key: null,
          sdm_file_read_key: hexKey(),
          params: { uid: 'u', ctr: 'c', cmac: 'x' },
          mac_input_from: 'uid',
        },
        { url: unique(), protocol: 'ntag_223_dna', uid: uid(), sdm_file_read_key: hexKey(), params: { sun: 'd' } },
        { url: unique(), protocol: 'ntag_424_dna_tag_tamper', uid: uid(), sdm_meta_read_key: hexKey(), sdm_file_read_key: hexKey() },
      ];
      for (const mode of ['sandbox', 'production'] as const) {
        const file = join(dir, `${kind}-${mode}.json`);
        // Every layout in sandbox; production (its own master key) with one.
        writeFileSync(file, JSON.stringify((mode === 'sandbox' ? entries : entries.slice(0, 1)).map((e) => ({ ...e, url: `${e.url}/${mode}` }))));
        const imported = await cli(server, ['tags', 'import', '--team', world.teamId, '--mode', mode, '--file', file, '--json']);
        assert.equal(imported.code, 0, imported.stderr);
        const reloads: boolean[] = [];
        for (const id of JSON.parse(imported.stdout) as string[]) reloads.push(await assertTaps(server, world, world[mode].key, id, mode));
        // The plain layout and the NTAG 223 DNA's SUN (third and fourth entries) mirror nothing random.
        assert.deepEqual(reloads, mode === 'sandbox' ? [false, false, true, true, false] : [false]);
      }
    });

    test('chips written by tapproof writer, its --server given as the origin or with /api/v1/; and an emulated chip', async () => {
      const { server, world } = suite;
      for (const target of [server.origin, `${server.origin}/api/v1/`]) {
        const tag = await createdTag(server, world.sandbox.key);
        const written = await cli(server, ['writer', '--key', world.sandbox.key, '--server', target, '--json', tag.id]);
        assert.equal(written.code, 0, written.stderr);
        assert.equal(JSON.parse(written.stdout).status, 'configured', target);
        await assertTaps(server, world, world.sandbox.key, tag.id);
      }
      const chip = await emulated(server, world.teamId, 'ntag_424_dna', { crypto: 'lrp' });
      await assertTaps(server, world, world.sandbox.key, chip.id);
    });

    test('refused: a tag without a chip, another team’s tag, the wrong mode, a counter out of range', async () => {
      const { server, world } = suite;
      const created = await createdTag(server, world.sandbox.key);
      const chip = await emulated(server, world.teamId, 'ntag_223_dna');
      const other = await server.seedTeam({ name: 'other' });
      const refused = async (args: string[], message: RegExp) => {
        const r = await cli(server, ['tags', 'tap', ...args]);
        assert.equal(r.code, 1, r.stdout);
        assert.match(r.stderr, message);
      };
      await refused(['--tag', created.id, '--team', world.teamId, '--counter', '1'], /has no chip in this team and mode/);
      await refused(['--tag', chip.id, '--team', other.teamId, '--counter', '1'], /has no chip in this team and mode/);
      await refused(['--tag', chip.id, '--team', world.teamId, '--counter', '1', '--mode', 'production'], /has no chip in this team and mode/);
      await refused(['--tag', chip.id, '--team', world.teamId, '--counter', '16777216'], /must be a whole number from 0 to 16777215/);
      await refused(['--tag', chip.id, '--team', world.teamId, '--counter', '-1'], /must be a whole number|unknown option/);
      const top = await cli(server, ['tags', 'tap', '--tag', chip.id, '--team', world.teamId, '--counter', '16777215', '--json']);
      assert.equal(top.code, 0, top.stderr);
      const last = await verdict(server, world.sandbox.key, JSON.parse(top.stdout).url);
      assert.deepEqual([last.genuine, last.reason, last.counter], [true, 'ok', 16777215]);
    });
  });
}

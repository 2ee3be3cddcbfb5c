// The operator's catalog (docs/decisions.md §7): `tapproof products create`,
// `tokens create`, `tags link` through the real CLI (`--json` prints {"id"}),
// bad values refused in one line with nothing written, and the optional
// catalog fields of the chip import file.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { Mode } from '../../src/db/schema.js';
import { createProduct, createToken } from '../../src/extension/catalog/service.js';
import * as keysRepo from '../../src/keys/repository.js';
import { createKey } from '../../src/keys/service.js';
import { ChipImportServiceError, importChips } from '../../src/tag-chips/import.js';
import { createTeam } from '../../src/teams/service.js';
import { DATABASES, sharedServer, type TestServer } from '../kit/harness.js';
import { cli, emulated } from '../verifications/helpers.js';
import { CARDANO_TOKEN, ETHEREUM_TOKEN, ext, genuineScan, productionTag, scan } from './helpers.js';
import { cliActor } from '../../src/audit/record.js';
import { asCli } from '../kit/actors.js';

const count = async (server: TestServer, table: 'products' | 'tokens' | 'tag_links') =>
  Number(
    (
      await server.ctx.db.kysely
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

async function cliFails(server: TestServer, args: string[]): Promise<string> {
  try {
    await cli(server, args);
  } catch (error) {
    const { stderr, code } = error as { stderr: string; code: number };
    assert.equal(code, 1);
    // The deployment's own start-up warnings (a generated SQLite master key) are not the refusal.
    return stderr
      .split('\n')
      .filter((line) => !line.startsWith('tapproof: WARNING'))
      .join('\n');
  }
  throw new Error(`tapproof ${args.join(' ')} succeeded`);
}

const chipEntry = (extra: Record<string, unknown> = {}) => ({
  url: `https://brand.example/i/${randomBytes(6).toString('hex')}`,
  protocol: 'ntag_424_dna',
  uid: '04' + randomBytes(6).toString('hex'),
  sdm_meta_read_key: randomBytes(16).toString('hex'),
  sdm_file_read_key: randomBytes(16).toString('hex'),
  ...extra,
});

for (const kind of DATABASES) {
  describe(`extension catalog (${kind})`, () => {
    const suite = sharedServer(kind);

    test('the CLI: products create, tokens create (cardano, ethereum), tags link; --json prints {"id"}; the verification shows them', async () => {
      const { server, world } = suite;
      const team = world.teamId;
      const product = JSON.parse(
        (
          await cli(server, [
            'products',
            'create',
            '--team',
            team,
            '--name',
            'Jacket',
            '--image-url',
            'https://brand.example/j.png',
            '--description',
            'Waxed',
            '--json',
          ])
        ).stdout,
      );
      assert.match(product.id, /^prd_[0-9A-Za-z]{22}$/);
      assert.deepEqual(Object.keys(product), ['id']);
      const cardano = JSON.parse(
        (
          await cli(server, [
            'tokens',
            'create',
            '--team',
            team,
            '--chain',
            'cardano',
            '--policy-id',
            'AB'.repeat(28),
            '--asset-name',
            '4a4b',
            '--name',
            'Jacket NFT',
            '--symbol',
            'JKT',
            '--supply',
            '1',
            '--json',
          ])
        ).stdout,
      );
      assert.match(cardano.id, /^tok_[0-9A-Za-z]{22}$/);
      const eth = JSON.parse(
        (
          await cli(server, [
            'tokens',
            'create',
            '--team',
            team,
            '--chain',
            'ethereum',
            '--contract',
            ETHEREUM_TOKEN.contract_address,
            '--token-id',
            '42',
            '--standard',
            'erc721',
            '--name',
            'Watch',
            '--symbol',
            'WTC',
            '--supply',
            '1',
            '--json',
          ])
        ).stdout,
      );
      assert.match(eth.id, /^tok_/);
      const tag = await productionTag(server, world);
      const linked = JSON.parse((await cli(server, ['tags', 'link', tag.id, '--product', product.id, '--token', cardano.id, '--json'])).stdout);
      assert.deepEqual(linked, { id: tag.id });
      const scanned = await scan(server, world, 'production', tag.tap());
      const shown = (await ext(server, 'GET', `/verifications/${scanned.publicId}`)).body;
      assert.equal(shown.product.id, product.id);
      assert.deepEqual(shown.token.data, { policy_id: 'ab'.repeat(28), asset_id: 'ab'.repeat(28) + '4a4b' });
      // Linking only the token keeps the product.
      await cli(server, ['tags', 'link', tag.id, '--token', eth.id]);
      const relinked = (await ext(server, 'GET', `/verifications/${scanned.publicId}`)).body;
      assert.equal(relinked.product.id, product.id);
      assert.deepEqual(relinked.token.data, { token_id: '42', standard: 'erc721' });
      assert.match(
        (await cli(server, ['products', 'create', '--team', team, '--name', 'Bag'])).stdout,
        /^created product prd_\w{22} in production mode \(the team has keys of both modes; --mode sandbox makes a sandbox product\)\n$/,
      );
    });

    test('the CLI refuses bad values in one line and writes nothing', async () => {
      const { server, world } = suite;
      const team = world.teamId;
      const before = [await count(server, 'products'), await count(server, 'tokens'), await count(server, 'tag_links')];
      const base = ['tokens', 'create', '--team', team, '--name', 'T', '--symbol', 'T'];
      const cases: [string[], RegExp][] = [
        [[...base, '--chain', 'cardano', '--policy-id', 'zz'.repeat(28), '--asset-name', '00', '--supply', '1'], /policy_id must be 56 hex characters/],
        [[...base, '--chain', 'cardano', '--policy-id', 'ab'.repeat(27), '--asset-name', '00', '--supply', '1'], /policy_id must be 56 hex characters/],
        [[...base, '--chain', 'cardano', '--policy-id', 'ab'.repeat(28), '--asset-name', 'abc', '--supply', '1'], /asset_name must be hex of 0 to 32 bytes/],
        [[...base, '--chain', 'cardano', '--policy-id', 'ab'.repeat(28), '--asset-name', '00', '--supply', '-1'], /supply must be a whole number from 0/],
        [
          [...base, '--chain', 'ethereum', '--contract', ETHEREUM_TOKEN.contract_address, '--token-id', '1', '--standard', 'erc999', '--supply', '1'],
          /standard must be one of erc721, erc1155, erc20/,
        ],
        [
          [
            ...base,
            '--chain',
            'ethereum',
            '--contract',
            '0x5FbDB2315678afecb367f032d93F642f64180aA3',
            '--token-id',
            '1',
            '--standard',
            'erc721',
            '--supply',
            '1',
          ],
          /wrong EIP-55 checksum/,
        ],
        [
          [...base, '--chain', 'ethereum', '--contract', ETHEREUM_TOKEN.contract_address, '--token-id', '1', '--standard', 'erc20', '--supply', '1'],
          /token_id is not a field of erc20 tokens/,
        ],
        [[...base, '--chain', 'solana', '--supply', '1'], /chain must be one of cardano, ethereum/],
        [['products', 'create', '--team', team, '--name', 'P', '--image-url', 'ftp://x'], /image_url must be an absolute http\(s\) URL/],
        [['products', 'create', '--team', 'team_0000000000000000000000', '--name', 'P'], /no team team_0000000000000000000000/],
        [['tags', 'link', 'tag_0000000000000000000000', '--product', 'prd_0000000000000000000000'], /no tag tag_0000000000000000000000/],
      ];
      for (const [args, expected] of cases) {
        const stderr = await cliFails(server, args);
        assert.match(stderr, expected, args.join(' '));
        assert.equal(stderr.trim().split('\n').length, 1, stderr);
        assert.match(stderr, /^tapproof: /);
      }
      // A tag links only to its own team's and mode's catalog.
      const tag = await productionTag(server, world);
      const sandboxProduct = await createProduct(server.ctx, asCli({ teamId: team, mode: 'sandbox' }), { name: 'S' });
      const other = await server.seedTeam({ name: 'other' });
      const otherToken = await createToken(server.ctx, asCli({ teamId: other.teamId, mode: 'production' }), CARDANO_TOKEN);
      const stderr = await cliFails(server, ['tags', 'link', tag.id, '--product', sandboxProduct.id, '--token', otherToken.id]);
      assert.equal(
        stderr,
        `tapproof: tag not linked: tag ${tag.id} is production but product ${sandboxProduct.id} is sandbox: a tag links only to a product of its own mode (create one with --mode production); no token ${otherToken.id} in the tag's team and mode\n`,
      );
      assert.match(await cliFails(server, ['tags', 'link', tag.id]), /give --product, --token or both/);
      assert.deepEqual(
        [await count(server, 'products'), await count(server, 'tokens'), await count(server, 'tag_links')],
        [before[0]! + 1, before[1]! + 1, before[2]],
      );
    });

    test("without --mode, products and tokens are created in the mode of the team's keys; production when it has both or none", async () => {
      const { server } = suite;
      const db = server.ctx.db.kysely;
      const teamWith = async (modes: Mode[], revoked: Mode[] = []) => {
        const { id } = await createTeam(db, 'keys', null, server.clock);
        for (const mode of modes) await createKey(db, id, mode, server.clock);
        for (const mode of revoked) await keysRepo.revokeKey(db, (await createKey(db, id, mode, server.clock)).id, server.clock.nowMicros());
        return id;
      };
      const modeOf = async (table: 'products' | 'tokens', id: string) =>
        (await db.selectFrom(table).select('mode').where('id', '=', id).executeTakeFirstOrThrow()).mode;
      const product = (team: string, ...more: string[]) => cli(server, ['products', 'create', '--team', team, '--name', 'P', ...more]);
      const token = (team: string) =>
        cli(server, [
          'tokens',
          'create',
          '--team',
          team,
          '--chain',
          'cardano',
          '--policy-id',
          'ab'.repeat(28),
          '--asset-name',
          '00',
          '--name',
          'T',
          '--symbol',
          'T',
          '--supply',
          '1',
        ]);
      const cases: [Mode[], Mode[], Mode, string, boolean][] = [
        [['sandbox'], [], 'sandbox', " (the team's keys are all sandbox keys)", true],
        // A revoked key no longer says which mode the team works in.
        [['sandbox'], ['production'], 'sandbox', " (the team's keys are all sandbox keys)", false],
        [['production'], [], 'production', " (the team's keys are all production keys)", false],
        [['sandbox', 'production'], [], 'production', ' (the team has keys of both modes; --mode sandbox makes a sandbox product)', true],
        [[], [], 'production', '', false],
      ];
      for (const [live, revoked, expected, why, withToken] of cases) {
        const team = await teamWith(live, revoked);
        const made = (await product(team)).stdout;
        const id = /^created product (prd_\w{22}) /.exec(made)?.[1];
        assert.equal(made, `created product ${id} in ${expected} mode${why}\n`, `keys ${live.join()} revoked ${revoked.join()}`);
        assert.equal(await modeOf('products', id!), expected);
        if (!withToken) continue;
        const minted = (await token(team)).stdout;
        const tokenId = /^created token (tok_\w{22}) /.exec(minted)?.[1];
        assert.equal(minted, `created token ${tokenId} in ${expected} mode${why.replace('sandbox product', 'sandbox token')}\n`);
        assert.equal(await modeOf('tokens', tokenId!), expected);
      }
      // --mode wins over the keys, and --json stays {"id"}.
      const sandboxOnly = await teamWith(['sandbox']);
      const given = JSON.parse((await product(sandboxOnly, '--mode', 'production', '--json')).stdout);
      assert.deepEqual(Object.keys(given), ['id']);
      assert.equal(await modeOf('products', given.id), 'production');
      assert.match((await product(sandboxOnly, '--mode', 'production')).stdout, /^created product prd_\w{22} in production mode\n$/);
    });

    test('tags link names both modes when the tag and the product or token are of different modes, and links nothing', async () => {
      const { server, world } = suite;
      const team = world.teamId;
      const sandboxTag = await emulated(server, team, 'ntag_424_dna');
      const productionProduct = JSON.parse((await cli(server, ['products', 'create', '--team', team, '--name', 'Live', '--json'])).stdout);
      const productionToken = await createToken(server.ctx, asCli({ teamId: team, mode: 'production' }), CARDANO_TOKEN);
      const sandboxToken = await createToken(server.ctx, asCli({ teamId: team, mode: 'sandbox' }), CARDANO_TOKEN);
      const links = () => server.ctx.db.kysely.selectFrom('tag_links').selectAll().where('tag_id', '=', sandboxTag.id).execute();
      assert.equal(
        await cliFails(server, ['tags', 'link', sandboxTag.id, '--product', productionProduct.id]),
        `tapproof: tag not linked: tag ${sandboxTag.id} is sandbox but product ${productionProduct.id} is production: a tag links only to a product of its own mode (create one with --mode sandbox)\n`,
      );
      assert.equal(
        await cliFails(server, ['tags', 'link', sandboxTag.id, '--product', productionProduct.id, '--token', productionToken.id]),
        `tapproof: tag not linked: tag ${sandboxTag.id} is sandbox but product ${productionProduct.id} is production: a tag links only to a product of its own mode (create one with --mode sandbox); ` +
          `tag ${sandboxTag.id} is sandbox but token ${productionToken.id} is production: a tag links only to a token of its own mode (create one with --mode sandbox)\n`,
      );
      // One entry of the right mode is not linked alone: the command links all it was given or nothing.
      assert.equal(
        await cliFails(server, ['tags', 'link', sandboxTag.id, '--product', productionProduct.id, '--token', sandboxToken.id]),
        `tapproof: tag not linked: tag ${sandboxTag.id} is sandbox but product ${productionProduct.id} is production: a tag links only to a product of its own mode (create one with --mode sandbox)\n`,
      );
      assert.deepEqual(await links(), []);
      assert.deepEqual(JSON.parse((await cli(server, ['tags', 'link', sandboxTag.id, '--token', sandboxToken.id, '--json'])).stdout), { id: sandboxTag.id });
      assert.equal((await links())[0]!.token_id, sandboxToken.id);
    });

    test('the chip import file accepts product and token: ids of the same world, or inline entries', async () => {
      const { server, world } = suite;
      const w = { teamId: world.teamId, mode: 'production' as const };
      const product = await createProduct(server.ctx, asCli(w), { name: 'Existing' });
      const entries = [
        chipEntry({ product: product.id, token: { ...CARDANO_TOKEN, name: 'Inline' } }),
        chipEntry({ product: { name: 'Inline product', description: 'd' } }),
        chipEntry(),
      ];
      const [a, b, c] = await importChips(server.ctx, { ...w, actor: cliActor() }, entries);
      const links = await server.ctx.db.kysely.selectFrom('tag_links').selectAll().where('tag_id', 'in', [a!, b!, c!]).execute();
      const byTag = new Map(links.map((l) => [l.tag_id, l]));
      assert.equal(byTag.get(a!)!.product_id, product.id);
      const token = await server.ctx.db.kysely.selectFrom('tokens').selectAll().where('id', '=', byTag.get(a!)!.token_id!).executeTakeFirstOrThrow();
      assert.equal(token.name, 'Inline');
      assert.equal(token.team_id, world.teamId);
      assert.equal(token.mode, 'production');
      assert.equal(byTag.get(b!)!.token_id, null);
      assert.equal(byTag.has(c!), false);
    });

    test('bad catalog fields in the import file: every problem named (entries from 1), nothing imported', async () => {
      const { server, world } = suite;
      const w = { teamId: world.teamId, mode: 'production' as const };
      const sandboxToken = await createToken(server.ctx, asCli({ teamId: world.teamId, mode: 'sandbox' }), CARDANO_TOKEN);
      const before = [await count(server, 'products'), await count(server, 'tokens'), await count(server, 'tag_links')];
      const tagsBefore = Number(
        (
          await server.ctx.db.kysely
            .selectFrom('tags')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
      await assert.rejects(
        importChips(server.ctx, { ...w, actor: cliActor() }, [
          chipEntry({ token: { ...CARDANO_TOKEN, supply: -3, policy_id: 'xyz' } }),
          chipEntry({ product: { name: '' } }),
          chipEntry({ token: { ...ETHEREUM_TOKEN, standard: 'erc42' } }),
        ]),
        (error: Error) => {
          assert.ok(error instanceof ChipImportServiceError);
          assert.match(error.message, /entry 1, token: supply must be a whole number from 0/);
          assert.match(error.message, /entry 1, token: policy_id must be 56 hex characters/);
          assert.match(error.message, /entry 2, product: name must be a non-empty string/);
          assert.match(error.message, /entry 3, token: standard must be one of erc721, erc1155, erc20/);
          return true;
        },
      );
      await assert.rejects(
        importChips(server.ctx, { ...w, actor: cliActor() }, [chipEntry({ token: sandboxToken.id }), chipEntry({ product: 'prd_nope' })]),
        (error: Error) => {
          assert.match(error.message, new RegExp(`entry 1, token: no token ${sandboxToken.id} in the tag's team and mode`));
          assert.match(error.message, /entry 2, product: no product prd_nope/);
          return true;
        },
      );
      assert.deepEqual([await count(server, 'products'), await count(server, 'tokens'), await count(server, 'tag_links')], [before[0], before[1], before[2]]);
      assert.equal(
        Number(
          (
            await server.ctx.db.kysely
              .selectFrom('tags')
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        ),
        tagsBefore,
      );
    });

    test('the import through the real CLI with a token entry; a sandbox tag verification shows it under /ext/sandbox', async () => {
      const { server, world } = suite;
      const file = join(server.storage.env.TAPPROOF_DATA_DIR!, 'chips.json');
      writeFileSync(file, JSON.stringify([chipEntry({ token: CARDANO_TOKEN, product: { name: 'CLI product' } })]));
      const [tagId] = JSON.parse((await cli(server, ['tags', 'import', '--team', world.teamId, '--mode', 'sandbox', '--file', file, '--json'])).stdout);
      const link = await server.ctx.db.kysely.selectFrom('tag_links').selectAll().where('tag_id', '=', tagId).executeTakeFirstOrThrow();
      assert.match(link.token_id!, /^tok_/);
      // Smoke: a genuine sandbox scan of another tag shows no catalog.
      const plain = await genuineScan(server, world, 'sandbox');
      assert.equal((await ext(server, 'GET', `/verifications/${plain.publicId}`, { mode: 'sandbox' })).body.token, null);
    });
  });
}

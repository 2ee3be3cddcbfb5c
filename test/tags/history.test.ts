// GET /tags/:id/writes (the tag's writes, newest first) and GET /tags/:id/links (its product and
// token): exact bodies, empty answers for a tag with neither, 404 for another world's tag, 400 for an
// unknown query parameter.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createProduct, createToken, linkTag } from '../../src/extension/catalog/service.js';
import { DATABASES, call, sharedServer } from '../kit/harness.js';
import { ISO_MICROS, assertError, assertJsonApi } from '../kit/assertions.js';
import { CARDANO_TOKEN, ETHEREUM_TOKEN } from '../extension/helpers.js';
import { createdTag, newCard, writeTag } from '../writer/helpers.js';
import { asCli } from '../kit/actors.js';
import { cliActor } from '../../src/audit/record.js';

for (const kind of DATABASES) {
  describe(`a tag's writes and links (${kind})`, () => {
    const suite = sharedServer(kind);

    test('writes: none before the first, then each write newest first with its outcome', async () => {
      const { server, world } = suite;
      const key = world.sandbox.key;
      const tag = await createdTag(server, key);
      const empty = await call(server, 'GET', `/tags/${tag.id}/writes`, { key });
      assert.equal(empty.status, 200, empty.text);
      assertJsonApi(empty);
      assert.deepEqual(empty.body, { data: [] });

      assert.equal((await writeTag(server, key, tag.id, newCard())).status, 'configured');
      const other = await createdTag(server, key);
      const running = await call(server, 'POST', '/writer/writes', { key, body: { data: { type: 'writes', attributes: { tag_id: other.id } } } });
      assert.equal(running.status, 201, running.text);

      const written = await call(server, 'GET', `/tags/${tag.id}/writes`, { key });
      assert.equal(written.body.data.length, 1);
      const [only] = written.body.data;
      assert.equal(only.type, 'writes');
      assert.match(only.attributes.started_at, ISO_MICROS);
      assert.match(only.attributes.updated_at, ISO_MICROS);
      assert.ok(only.attributes.updated_at >= only.attributes.started_at);
      assert.deepEqual(
        { ...only.attributes, started_at: 'x', updated_at: 'x', expires_at: 'x', round_trips: 0 },
        {
          tag_id: tag.id,
          operation: 'personalize',
          status: 'configured',
          step: 'configured',
          apdus: [],
          reason: null,
          round_trips: 0,
          expires_at: 'x',
          started_at: 'x',
          updated_at: 'x',
        },
      );
      assert.ok(only.attributes.round_trips > 1, 'a write takes several round trips');

      const open = await call(server, 'GET', `/tags/${other.id}/writes`, { key });
      assert.deepEqual(
        open.body.data.map((w: { id: string; attributes: { status: string; apdus: string[] } }) => [w.id, w.attributes.status, w.attributes.apdus.length > 0]),
        [[running.body.data.id, 'running', true]],
      );
    });

    test('links: null before tapproof tags link, then the product and the token', async () => {
      const { server, world } = suite;
      const key = world.sandbox.key;
      const tag = await createdTag(server, key);
      const before = await call(server, 'GET', `/tags/${tag.id}/links`, { key });
      assert.equal(before.status, 200, before.text);
      assertJsonApi(before);
      assert.deepEqual(before.body, { data: { type: 'tag-links', id: tag.id, attributes: { product: null, token: null, updated_at: null } } });

      const sandbox = { teamId: world.teamId, mode: 'sandbox' as const };
      const product = await createProduct(server.ctx, asCli(sandbox), { name: 'Jacket', description: 'Waxed cotton' });
      const token = await createToken(server.ctx, asCli(sandbox), CARDANO_TOKEN);
      await linkTag(server.ctx, tag.id, { product: product.id, token: token.id }, cliActor());
      const after = await call(server, 'GET', `/tags/${tag.id}/links`, { key });
      const { updated_at, ...attributes } = after.body.data.attributes;
      assert.match(updated_at, ISO_MICROS);
      assert.deepEqual(attributes, {
        product: { id: product.id, name: 'Jacket', image_url: null, description: 'Waxed cotton' },
        token: {
          id: token.id,
          chain: 'cardano',
          name: CARDANO_TOKEN.name,
          symbol: CARDANO_TOKEN.symbol,
          supply: 1,
          contract_address: null,
          policy_id: CARDANO_TOKEN.policy_id,
          asset_name: CARDANO_TOKEN.asset_name,
          token_id: null,
          standard: null,
        },
      });

      const eth = await createToken(server.ctx, asCli(sandbox), ETHEREUM_TOKEN);
      await linkTag(server.ctx, tag.id, { token: eth.id }, cliActor());
      const relinked = (await call(server, 'GET', `/tags/${tag.id}/links`, { key })).body.data.attributes;
      assert.equal(relinked.product.id, product.id, 'linking a token keeps the product');
      assert.deepEqual(
        [relinked.token.id, relinked.token.chain, relinked.token.contract_address, relinked.token.token_id, relinked.token.standard],
        [eth.id, 'ethereum', ETHEREUM_TOKEN.contract_address, '7', 'erc721'],
      );
    });

    test("another team's or mode's tag, an unknown or malformed id: 404; an unknown parameter: 400; no key: 401", async () => {
      const { server, world } = suite;
      const tag = await createdTag(server, world.sandbox.key);
      const other = await server.seedTeam({ name: 'other' });
      for (const path of ['writes', 'links']) {
        for (const key of [world.production.key, other.sandbox.key, other.production.key])
          assertError(await call(server, 'GET', `/tags/${tag.id}/${path}`, { key }), 404);
        for (const id of ['tag_00000000000000000000000000', 'nope', '%00'])
          assertError(await call(server, 'GET', `/tags/${id}/${path}`, { key: world.sandbox.key }), 404);
        const unknown = await call(server, 'GET', `/tags/${tag.id}/${path}?page=2`, { key: world.sandbox.key });
        assert.equal(unknown.status, 400, unknown.text);
        assert.equal(unknown.body.errors[0].status, '400');
        assert.equal(unknown.body.errors[0].source.parameter, 'page');
        assertError(await call(server, 'GET', `/tags/${tag.id}/${path}`, {}), 401);
      }
    });
  });
}

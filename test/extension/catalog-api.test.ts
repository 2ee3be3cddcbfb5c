// The catalog on the platform API, on both databases: products, tokens, a tag's links and who holds a
// token, as a key of a world sets them; each change audited once in its transaction, each refusal the
// right status naming its fields and changing nothing, and no world seeing or touching another's.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { createKey } from '../../src/keys/service.js';
import { DATABASES, call, sharedServer, type SeededTeam, type TestServer } from '../kit/harness.js';
import { ISO_MICROS, assertError, assertValidation } from '../kit/assertions.js';
import { createdTag } from '../writer/helpers.js';

const POLICY = 'ab'.repeat(28);
const CONTRACT = '0x52908400098527886E0F7030069857D2E4169EE7';
const HOLDER = '0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359';
const HOLDER_EIP55 = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';

const productDoc = (attributes: Record<string, unknown>) => ({ data: { type: 'products', attributes } });
const tokenDoc = (attributes: Record<string, unknown>) => ({ data: { type: 'tokens', attributes } });
const linksDoc = (attributes: Record<string, unknown>) => ({ data: { type: 'tag-links', attributes } });
const holdingDoc = (attributes: Record<string, unknown>) => ({ data: { type: 'holdings', attributes } });
const ERC721 = { chain: 'ethereum', name: 'Edition', symbol: 'ED', supply: 100, contract_address: CONTRACT.toLowerCase(), standard: 'erc721', token_id: '7' };

for (const kind of DATABASES) {
  describe(`the catalog API (${kind})`, () => {
    const suite = sharedServer(kind);
    let world: SeededTeam;
    let other: SeededTeam;
    let readKey: string;
    const s = (): TestServer => suite.server;
    const key = () => world.sandbox.key;

    /** What a refusal must leave as it was: the catalog's tables and the team's audit log. */
    const state = async () => {
      const db = s().ctx.db.kysely;
      return Promise.all([
        db.selectFrom('products').selectAll().orderBy('id').execute(),
        db.selectFrom('tokens').selectAll().orderBy('id').execute(),
        db.selectFrom('tag_links').selectAll().orderBy('tag_id').execute(),
        db.selectFrom('holdings').selectAll().orderBy('token_id').orderBy('address').execute(),
        db.selectFrom('audit_events').select(['id', 'operation']).where('team_id', '=', world.teamId).orderBy('id').execute(),
      ]).then((parts) => JSON.stringify(parts));
    };
    const audits = async (operation: string, resourceId: string) =>
      s()
        .ctx.db.kysely.selectFrom('audit_events')
        .selectAll()
        .where('team_id', '=', world.teamId)
        .where('operation', '=', operation)
        .where('resource_id', '=', resourceId)
        .execute();
    /** Every request in `refused` answers as expected, and none of them changes anything. */
    const unchangedBy = async (refused: () => Promise<void>) => {
      const before = await state();
      await refused();
      assert.equal(await state(), before);
    };

    before(async () => {
      world = await s().seedTeam({ name: 'catalog' });
      other = await s().seedTeam({ name: 'other' });
      readKey = (await createKey(s().ctx.db.kysely, world.teamId, 'sandbox', s().clock, { role: 'read' })).key;
    });

    test('POST /products creates a product of the key’s world, listed by GET /products, audited once', async () => {
      const r = await call(s(), 'POST', '/products', {
        key: key(),
        body: productDoc({ name: 'Sneaker', image_url: 'https://img.example/s.png', description: 'A shoe' }),
      });
      assert.equal(r.status, 201, r.text);
      const { id, attributes } = r.body.data;
      assert.match(id, /^prd_[0-9A-Za-z]{22}$/);
      assert.match(attributes.created_at, ISO_MICROS);
      assert.deepEqual(r.body, {
        data: {
          type: 'products',
          id,
          attributes: { name: 'Sneaker', image_url: 'https://img.example/s.png', description: 'A shoe', created_at: attributes.created_at },
        },
      });
      const list = await call(s(), 'GET', '/products', { key: readKey });
      assert.equal(list.status, 200, list.text);
      assert.deepEqual(list.body.data[0], r.body.data);
      const [event, ...more] = await audits('product.create', id);
      assert.equal(more.length, 0);
      assert.deepEqual([event!.actor_type, event!.actor_id, event!.mode], ['key', world.sandbox.id, 'sandbox']);
      // Another world sees none of it.
      for (const k of [world.production.key, other.sandbox.key]) assert.ok(!(await call(s(), 'GET', '/products', { key: k })).text.includes(id));
    });

    test('product names of 1 and 200 characters, descriptions of 2000; one more is 422 naming the field', async () => {
      for (const attributes of [{ name: 'x' }, { name: '名'.repeat(200) }, { name: 'y', description: 'd'.repeat(2000), image_url: null }]) {
        const r = await call(s(), 'POST', '/products', { key: key(), body: productDoc(attributes) });
        assert.equal(r.status, 201, r.text);
        assert.equal(r.body.data.attributes.name, attributes.name);
      }
      await unchangedBy(async () => {
        assertValidation(await call(s(), 'POST', '/products', { key: key(), body: productDoc({ name: '名'.repeat(201) }) }), ['/data/attributes/name']);
        assertValidation(await call(s(), 'POST', '/products', { key: key(), body: productDoc({ name: '' }) }), ['/data/attributes/name']);
        assertValidation(
          await call(s(), 'POST', '/products', {
            key: key(),
            body: productDoc({ name: 'z', description: 'd'.repeat(2001), image_url: 'ftp://x', colour: 'red' }),
          }),
          ['/data/attributes/description', '/data/attributes/image_url', '/data/attributes/colour'],
        );
      });
    });

    test('malformed product and token documents are 400; a missing required attribute too', async () => {
      await unchangedBy(async () => {
        for (const [path, body] of [
          ['/products', '{"data":'],
          ['/products', { data: { type: 'tokens', attributes: { name: 'x' } } }],
          ['/products', { data: { type: 'products', id: 'prd_0000000000000000000000', attributes: { name: 'x' } } }],
          ['/products', { data: { type: 'products', attributes: 'x' } }],
          ['/products', productDoc({ description: 'no name' })],
          ['/tokens', { data: [] }],
          ['/tokens', tokenDoc({ chain: 'ethereum', name: 'x', symbol: 'X' })],
        ] as const) {
          assertError(await call(s(), 'POST', path, { key: key(), body }), 400);
        }
      });
    });

    test('POST /tokens creates Cardano and Ethereum tokens exactly; GET /tokens lists them', async () => {
      const cardano = await call(s(), 'POST', '/tokens', {
        key: key(),
        body: tokenDoc({ chain: 'cardano', name: 'Pass', symbol: 'PASS', supply: 0, policy_id: POLICY.toUpperCase(), asset_name: '50415353' }),
      });
      assert.equal(cardano.status, 201, cardano.text);
      const created_at = cardano.body.data.attributes.created_at;
      assert.deepEqual(cardano.body.data.attributes, {
        chain: 'cardano',
        name: 'Pass',
        symbol: 'PASS',
        supply: 0,
        contract_address: null,
        policy_id: POLICY,
        asset_name: '50415353',
        token_id: null,
        standard: null,
        created_at,
      });
      const ethereum = await call(s(), 'POST', '/tokens', {
        key: key(),
        body: tokenDoc({ ...ERC721, supply: Number.MAX_SAFE_INTEGER, symbol: 'S'.repeat(32) }),
      });
      assert.equal(ethereum.status, 201, ethereum.text);
      assert.deepEqual(
        { ...ethereum.body.data.attributes, created_at: undefined },
        {
          chain: 'ethereum',
          name: 'Edition',
          symbol: 'S'.repeat(32),
          supply: Number.MAX_SAFE_INTEGER,
          contract_address: CONTRACT,
          policy_id: null,
          asset_name: null,
          token_id: '7',
          standard: 'erc721',
          created_at: undefined,
        },
      );
      const list = await call(s(), 'GET', '/tokens', { key: readKey });
      assert.deepEqual(
        list.body.data.slice(0, 2).map((t: any) => t.id),
        [ethereum.body.data.id, cardano.body.data.id],
      );
      assert.deepEqual(list.body.data[0], ethereum.body.data);
      assert.equal((await audits('token.create', cardano.body.data.id)).length, 1);
      assert.equal((await audits('token.create', ethereum.body.data.id)).length, 1);
    });

    test('token limits ±1 and every bad field named at once', async () => {
      await unchangedBy(async () => {
        const refused = async (attributes: Record<string, unknown>, fields: string[]) =>
          assertValidation(
            await call(s(), 'POST', '/tokens', { key: key(), body: tokenDoc(attributes) }),
            fields.map((f) => `/data/attributes/${f}`),
          );
        await refused({ ...ERC721, supply: Number.MAX_SAFE_INTEGER + 1 }, ['supply']);
        await refused({ ...ERC721, supply: -1 }, ['supply']);
        await refused({ ...ERC721, symbol: 'S'.repeat(33), name: 'n'.repeat(201) }, ['symbol', 'name']);
        await refused({ ...ERC721, contract_address: CONTRACT.replace('E7', 'e7'), standard: 'erc777' }, ['contract_address', 'standard']);
        await refused({ ...ERC721, standard: 'erc20' }, ['token_id']);
        await refused({ ...ERC721, chain: 'solana' }, ['chain']);
        await refused(
          { chain: 'cardano', name: 'x', symbol: 'X', supply: 1, policy_id: POLICY.slice(2), asset_name: 'a'.repeat(66), contract_address: CONTRACT },
          ['contract_address', 'policy_id', 'asset_name'],
        );
      });
    });

    test("PATCH /tags/:id/links links a product and a token of the tag's world, and null unlinks", async () => {
      const tag = await createdTag(s(), key());
      const product = (await call(s(), 'POST', '/products', { key: key(), body: productDoc({ name: 'Linked' }) })).body.data;
      const token = (await call(s(), 'POST', '/tokens', { key: key(), body: tokenDoc(ERC721) })).body.data;
      const r = await call(s(), 'PATCH', `/tags/${tag.id}/links`, {
        key: key(),
        body: { data: { type: 'tag-links', id: tag.id, attributes: { product_id: product.id, token_id: token.id } } },
      });
      assert.equal(r.status, 200, r.text);
      const { created_at: _p, ...productShown } = product.attributes;
      const { created_at: _t, ...tokenShown } = token.attributes;
      assert.match(r.body.data.attributes.updated_at, ISO_MICROS);
      assert.deepEqual(r.body, {
        data: {
          type: 'tag-links',
          id: tag.id,
          attributes: { product: { id: product.id, ...productShown }, token: { id: token.id, ...tokenShown }, updated_at: r.body.data.attributes.updated_at },
        },
      });
      assert.deepEqual((await call(s(), 'GET', `/tags/${tag.id}/links`, { key: readKey })).body, r.body);
      const unlinked = await call(s(), 'PATCH', `/tags/${tag.id}/links`, { key: key(), body: linksDoc({ product_id: null }) });
      assert.equal(unlinked.status, 200, unlinked.text);
      assert.equal(unlinked.body.data.attributes.product, null);
      assert.equal(unlinked.body.data.attributes.token.id, token.id);
      const events = await audits('tag.link', tag.id);
      assert.deepEqual(
        events.map((e) => JSON.parse(e.changes as string)),
        [
          { product_id: product.id, token_id: token.id },
          { product_id: null, token_id: token.id },
        ],
      );
    });

    test('tag links: another world’s tag or an unknown one is 404; another world’s product 422; bad documents 400', async () => {
      const tag = await createdTag(s(), key());
      const theirs = (await call(s(), 'POST', '/products', { key: other.sandbox.key, body: productDoc({ name: 'Theirs' }) })).body.data.id;
      const production = (await call(s(), 'POST', '/products', { key: world.production.key, body: productDoc({ name: 'Live' }) })).body.data.id;
      const productionTag = await createdTag(s(), world.production.key);
      await unchangedBy(async () => {
        for (const [id, k] of [
          [tag.id, other.sandbox.key],
          [tag.id, world.production.key],
          [productionTag.id, key()],
          ['tag_0000000000000000000000', key()],
          ['nothing', key()],
        ] as const)
          assertError(await call(s(), 'PATCH', `/tags/${id}/links`, { key: k, body: linksDoc({ product_id: null }) }), 404);
        assertValidation(await call(s(), 'PATCH', `/tags/${tag.id}/links`, { key: key(), body: linksDoc({ product_id: theirs, token_id: 'tok_x' }) }), [
          '/data/attributes/product_id',
          '/data/attributes/token_id',
        ]);
        assertValidation(await call(s(), 'PATCH', `/tags/${tag.id}/links`, { key: key(), body: linksDoc({ product_id: production, colour: 1 }) }), [
          '/data/attributes/product_id',
          '/data/attributes/colour',
        ]);
        assertValidation(await call(s(), 'PATCH', `/tags/${tag.id}/links`, { key: key(), body: linksDoc({ token_id: 7 }) }), ['/data/attributes/token_id']);
        assertError(await call(s(), 'PATCH', `/tags/${tag.id}/links`, { key: key(), body: linksDoc({}) }), 400);
        assertError(
          await call(s(), 'PATCH', `/tags/${tag.id}/links`, {
            key: key(),
            body: { data: { type: 'tag-links', id: 'tag_other', attributes: { product_id: null } } },
          }),
          400,
        );
        assertError(await call(s(), 'PATCH', `/tags/${tag.id}/links`, { key: key(), body: { data: { type: 'tags', attributes: { product_id: null } } } }), 400);
      });
    });

    test('a linked tag can still be deleted, alone or in a batch: its links go with it', async () => {
      const product = (await call(s(), 'POST', '/products', { key: key(), body: productDoc({ name: 'Doomed' }) })).body.data.id;
      const [one, two] = [await createdTag(s(), key()), await createdTag(s(), key())];
      for (const tag of [one, two])
        assert.equal((await call(s(), 'PATCH', `/tags/${tag.id}/links`, { key: key(), body: linksDoc({ product_id: product }) })).status, 200);
      assert.equal((await call(s(), 'DELETE', `/tags/${one.id}`, { key: key() })).status, 204);
      const batch = await call(s(), 'DELETE', '/tags', { key: key(), body: { data: [{ type: 'tags', id: two.id }] } });
      assert.equal(batch.status, 200, batch.text);
      const left = await s().ctx.db.kysely.selectFrom('tag_links').selectAll().where('tag_id', 'in', [one.id, two.id]).execute();
      assert.deepEqual(left, []);
    });

    test('holdings: set (201), set again (200), listed, unset (204), then 404', async () => {
      const token = (await call(s(), 'POST', '/tokens', { key: key(), body: tokenDoc(ERC721) })).body.data.id;
      const set = await call(s(), 'POST', `/tokens/${token}/holdings`, { key: key(), body: holdingDoc({ address: HOLDER }) });
      assert.equal(set.status, 201, set.text);
      assert.match(set.body.data.attributes.updated_at, ISO_MICROS);
      assert.deepEqual(set.body, {
        data: { type: 'holdings', id: HOLDER_EIP55, attributes: { token_id: token, quantity: '1', updated_at: set.body.data.attributes.updated_at } },
      });
      const big = ((1n << 256n) - 1n).toString();
      const again = await call(s(), 'POST', `/tokens/${token}/holdings`, { key: key(), body: holdingDoc({ address: HOLDER_EIP55, quantity: big }) });
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.data.attributes.quantity, big);
      const list = await call(s(), 'GET', `/tokens/${token}/holdings`, { key: readKey });
      assert.deepEqual(list.body, { data: [again.body.data] });
      const gone = await call(s(), 'DELETE', `/tokens/${token}/holdings/${HOLDER}`, { key: key() });
      assert.equal(gone.status, 204, gone.text);
      assert.deepEqual((await call(s(), 'GET', `/tokens/${token}/holdings`, { key: key() })).body, { data: [] });
      await unchangedBy(async () => assertError(await call(s(), 'DELETE', `/tokens/${token}/holdings/${HOLDER}`, { key: key() }), 404));
      const events = await audits('holding.set', token);
      assert.deepEqual(
        events.map((e) => JSON.parse(e.changes as string)),
        [
          { address: HOLDER_EIP55, quantity: '1' },
          { address: HOLDER_EIP55, quantity: big },
        ],
      );
      assert.deepEqual(
        (await audits('holding.unset', token)).map((e) => JSON.parse(e.changes as string)),
        [{ address: HOLDER_EIP55 }],
      );
    });

    test('holdings: quantities 1 and 2^256-1 only, addresses of the token’s chain; other worlds’ tokens 404', async () => {
      const token = (await call(s(), 'POST', '/tokens', { key: key(), body: tokenDoc(ERC721) })).body.data.id;
      const cardano = (
        await call(s(), 'POST', '/tokens', {
          key: key(),
          body: tokenDoc({ chain: 'cardano', name: 'C', symbol: 'C', supply: 1, policy_id: POLICY, asset_name: '' }),
        })
      ).body.data.id;
      const production = (await call(s(), 'POST', '/tokens', { key: world.production.key, body: tokenDoc(ERC721) })).body.data.id;
      await unchangedBy(async () => {
        const refused = async (id: string, attributes: Record<string, unknown>, fields: string[]) =>
          assertValidation(
            await call(s(), 'POST', `/tokens/${id}/holdings`, { key: key(), body: holdingDoc(attributes) }),
            fields.map((f) => `/data/attributes/${f}`),
          );
        await refused(token, { address: HOLDER, quantity: 0 }, ['quantity']);
        await refused(token, { address: HOLDER, quantity: (1n << 256n).toString() }, ['quantity']);
        await refused(token, { address: HOLDER, quantity: 1.5 }, ['quantity']);
        await refused(token, { address: 'addr1nope', quantity: '-1', note: 'x' }, ['address', 'quantity', 'note']);
        await refused(cardano, { address: HOLDER }, ['address']);
        assertError(await call(s(), 'POST', `/tokens/${token}/holdings`, { key: key(), body: holdingDoc({ quantity: 1 }) }), 400);
        for (const [id, k] of [
          [token, other.sandbox.key],
          [token, world.production.key],
          [production, key()],
          ['tok_0000000000000000000000', key()],
        ] as const) {
          assertError(await call(s(), 'POST', `/tokens/${id}/holdings`, { key: k, body: holdingDoc({ address: HOLDER }) }), 404);
          assertError(await call(s(), 'GET', `/tokens/${id}/holdings`, { key: k }), 404);
          assertError(await call(s(), 'DELETE', `/tokens/${id}/holdings/${HOLDER}`, { key: k }), 404);
        }
      });
      const max = await call(s(), 'POST', `/tokens/${token}/holdings`, {
        key: key(),
        body: holdingDoc({ address: HOLDER, quantity: Number.MAX_SAFE_INTEGER }),
      });
      assert.equal(max.status, 201, max.text);
      assert.equal(max.body.data.attributes.quantity, String(Number.MAX_SAFE_INTEGER));
    });

    test('a read key lists everything and changes nothing (403)', async () => {
      const tag = await createdTag(s(), key());
      const token = (await call(s(), 'POST', '/tokens', { key: key(), body: tokenDoc(ERC721) })).body.data.id;
      for (const path of ['/products', '/tokens', `/tokens/${token}/holdings`, `/tags/${tag.id}/links`])
        assert.equal((await call(s(), 'GET', path, { key: readKey })).status, 200, path);
      await unchangedBy(async () => {
        for (const [method, path, body] of [
          ['POST', '/products', productDoc({ name: 'x' })],
          ['POST', '/tokens', tokenDoc(ERC721)],
          ['PATCH', `/tags/${tag.id}/links`, linksDoc({ product_id: null })],
          ['POST', `/tokens/${token}/holdings`, holdingDoc({ address: HOLDER })],
          ['DELETE', `/tokens/${token}/holdings/${HOLDER}`, undefined],
        ] as const)
          assertError(await call(s(), method, path, { key: readKey, body }), 403, { detail: true });
      });
    });
  });
}

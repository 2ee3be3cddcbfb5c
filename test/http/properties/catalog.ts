// The catalog: products, tokens, tag links and holdings with any attributes and ids.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { call } from '../../kit/harness.js';
import { RUNS, stray, maybeJunk, judge, type PropertySuite } from './kit.js';

export function catalogProperties(p: PropertySuite): void {
  const { tally, tags, s, key, property, freshTags, readsBack, idChoice, resolveId, pathOf } = p;
  test('the catalog: products, tokens, tag links and holdings with any attributes and ids', async (t) => {
    const products: string[] = [];
    const tokens: string[] = [];
    const odd = fc.oneof(
      fc.string({ maxLength: 3 }),
      fc.integer(),
      fc.constant(null),
      fc.boolean(),
      fc.string({ unit: 'binary', minLength: 199, maxLength: 202 }),
    );
    const value = <T>(good: fc.Arbitrary<T>) => fc.oneof({ weight: 6, arbitrary: good }, { weight: 1, arbitrary: odd });
    const hex = (bytes: number) => fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => Buffer.from(b).toString('hex'));
    const arbitrary = fc.record({
      op: fc.constantFrom('product', 'token', 'link', 'hold', 'unhold'),
      name: value(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 })),
      supply: value(fc.nat()),
      address: fc.oneof(
        hex(20).map((h) => `0x${h}`),
        fc.constantFrom('0x00000000000000000000000000000000000000aa', 'nowhere', ''),
      ),
      quantity: fc.option(value(fc.integer({ min: 0, max: 3 })), { nil: undefined }),
      product: fc.option(fc.oneof(idChoice('prd'), fc.constant({ id: null as unknown as string })), { nil: undefined }),
      token: idChoice('tok'),
      tag: idChoice('tag'),
      stray,
      junk: maybeJunk,
    });
    const ROUTES_HIT = ['POST /products', 'POST /tokens', 'PATCH /tags/:id/links', 'POST /tokens/:id/holdings', 'DELETE /tokens/:id/holdings/:address'];
    tags.push(...(await freshTags(2)));
    await property(t, ROUTES_HIT, RUNS.cheap, arbitrary, async (c) => {
      if (c.op === 'product') {
        const r = await call(s(), 'POST', '/products', {
          key: key(),
          body: c.junk ?? { data: { type: 'products', attributes: { name: c.name, ...c.stray } } },
        });
        judge(tally, 'POST /products', r);
        if (r.status === 201) products.push(r.body.data.id);
        else assert.ok([400, 422].includes(r.status), r.text);
      } else if (c.op === 'token') {
        const attributes = {
          chain: 'ethereum',
          name: c.name,
          symbol: 'T',
          supply: c.supply,
          contract_address: `0x${'1'.repeat(40)}`,
          standard: 'erc20',
          ...c.stray,
        };
        const r = await call(s(), 'POST', '/tokens', { key: key(), body: c.junk ?? { data: { type: 'tokens', attributes } } });
        judge(tally, 'POST /tokens', r);
        if (r.status === 201) tokens.push(r.body.data.id);
        else assert.ok([400, 422].includes(r.status), r.text);
      } else if (c.op === 'link') {
        const tagId = resolveId(c.tag, tags);
        const attributes = c.product === undefined ? {} : { product_id: 'known' in c.product ? resolveId(c.product, products) : c.product.id };
        const r = await call(s(), 'PATCH', `/tags/${pathOf(tagId)}/links`, { key: key(), body: c.junk ?? { data: { type: 'tag-links', attributes } } });
        judge(tally, 'PATCH /tags/:id/links', r);
        if (r.status === 200) await readsBack('GET /tags/:id/links', `/tags/${tagId}/links`, r.body.data);
      } else {
        const tokenId = resolveId(c.token, tokens);
        if (c.op === 'hold') {
          const attributes = { address: c.address, ...(c.quantity === undefined ? {} : { quantity: c.quantity }) };
          const r = await call(s(), 'POST', `/tokens/${pathOf(tokenId)}/holdings`, {
            key: key(),
            body: c.junk ?? { data: { type: 'holdings', attributes } },
          });
          judge(tally, 'POST /tokens/:id/holdings', r);
          if (r.status === 200 || r.status === 201) assert.ok(tokens.includes(tokenId), r.text);
        } else {
          const r = await call(s(), 'DELETE', `/tokens/${pathOf(tokenId)}/holdings/${pathOf(c.address)}`, { key: key() });
          judge(tally, 'DELETE /tokens/:id/holdings/:address', r);
          assert.ok([204, 404].includes(r.status), r.text);
        }
      }
    });
  });
}

// The platform's read of what `tapproof tags link` set: the product a tag's verifications show and the
// token their owner can prove (the `tag-links` resource, docs/read-api.md).
import { Type } from '@sinclair/typebox';
import type { Executor } from '../../db/database.js';
import { resourceOf } from '../../http/schemas.js';
import { isoMicros } from '../../time.js';
import type { World } from '../../world.js';
import * as catalogRepo from './repository.js';
import type { ProductRow, TokenRow } from './repository.js';

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const Product = Type.Object({ id: Type.String(), name: Type.String(), image_url: Nullable(Type.String()), description: Nullable(Type.String()) });
export const Token = Type.Object({
  id: Type.String(),
  chain: Type.Union([Type.Literal('cardano'), Type.Literal('ethereum')]),
  name: Type.String(),
  symbol: Type.String(),
  supply: Type.Integer(),
  contract_address: Nullable(Type.String()),
  policy_id: Nullable(Type.String()),
  asset_name: Nullable(Type.String()),
  token_id: Nullable(Type.String({ description: 'Ethereum: the uint256 token id in decimal' })),
  standard: Type.Union([Type.Literal('erc721'), Type.Literal('erc1155'), Type.Literal('erc20'), Type.Null()]),
});

export const TagLinksDocument = Type.Object({
  data: resourceOf(
    'tag-links',
    Type.Object({
      product: Type.Union([Product, Type.Null()]),
      token: Type.Union([Token, Type.Null()]),
      updated_at: Type.Union([Type.String(), Type.Null()], { description: 'null: the tag was never linked' }),
    }),
    "The tag's id",
  ),
});

export interface TagLinks {
  product: ProductRow | undefined;
  token: TokenRow | undefined;
  updatedAt: number | null;
}

/** The links of a tag of `world` (links of another world's tag are never read). */
export async function findTagLinks(db: Executor, world: World, tagId: string): Promise<TagLinks> {
  const link = await catalogRepo.findTagLink(db, tagId);
  return {
    product: link?.product_id ? await catalogRepo.findProductIn(db, world, link.product_id) : undefined,
    token: link?.token_id ? await catalogRepo.findTokenIn(db, world, link.token_id) : undefined,
    updatedAt: link?.updated_at ?? null,
  };
}

/** A product as the API shows it (a tag's links, the catalog's lists). */
export const productView = (product: ProductRow) => ({ id: product.id, name: product.name, image_url: product.image_url, description: product.description });

/** A token as the API shows it; `supply` is a bigint column on PostgreSQL. */
export const tokenView = (token: TokenRow) => ({
  id: token.id,
  chain: token.chain,
  name: token.name,
  symbol: token.symbol,
  supply: Number(token.supply),
  contract_address: token.contract_address,
  policy_id: token.policy_id,
  asset_name: token.asset_name,
  token_id: token.token_number,
  standard: token.standard,
});

export function renderTagLinks(tagId: string, { product, token, updatedAt }: TagLinks) {
  return {
    type: 'tag-links',
    id: tagId,
    attributes: {
      product: product ? productView(product) : null,
      token: token ? tokenView(token) : null,
      updated_at: updatedAt === null ? null : isoMicros(updatedAt),
    },
  };
}

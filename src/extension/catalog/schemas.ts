// The catalog's resources on the platform API: products, tokens and a tag's links as the console and a
// key's client change them. The rules themselves are rules.ts; these schemas publish them in OpenAPI.
import { Type } from '@sinclair/typebox';
import { enumOf } from '../../http/query.js';
import { Timestamp } from '../../http/schemas.js';
import { CHAINS, MAX_DESCRIPTION, MAX_NAME, MAX_SYMBOL, MAX_URL, STANDARDS } from './rules.js';
import { Product, TagLinksDocument, Token } from './tag-links.js';

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
const { id: _productId, ...productAttributes } = Product.properties;
const { id: _tokenId, ...tokenAttributes } = Token.properties;

export const ProductResource = Type.Object(
  { type: Type.Literal('products'), id: Type.String({ description: 'prd_…' }), attributes: Type.Object({ ...productAttributes, created_at: Timestamp }) },
  { title: 'Product' },
);
export const TokenResource = Type.Object(
  { type: Type.Literal('tokens'), id: Type.String({ description: 'tok_…' }), attributes: Type.Object({ ...tokenAttributes, created_at: Timestamp }) },
  { title: 'Token' },
);

export const ProductDocument = Type.Object({ data: ProductResource });
export const ProductList = Type.Object({ data: Type.Array(ProductResource, { description: 'Newest first' }) });
export const TokenDocument = Type.Object({ data: TokenResource });
export const TokenList = Type.Object({ data: Type.Array(TokenResource, { description: 'Newest first' }) });

const name = Type.String({ minLength: 1, maxLength: MAX_NAME });

export const CreateProductBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('products'),
    attributes: Type.Object({
      name,
      image_url: Type.Optional(Nullable(Type.String({ format: 'uri', maxLength: MAX_URL, description: 'An absolute http(s) URL' }))),
      description: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: MAX_DESCRIPTION }))),
    }),
  }),
});

export const CreateTokenBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('tokens'),
    attributes: Type.Object(
      {
        chain: enumOf(CHAINS),
        name,
        symbol: Type.String({ minLength: 1, maxLength: MAX_SYMBOL }),
        supply: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
        policy_id: Type.Optional(Type.String({ pattern: '^[0-9a-fA-F]{56}$', description: 'Cardano: the 28-byte policy hash' })),
        asset_name: Type.Optional(Type.String({ pattern: '^([0-9a-fA-F]{2}){0,32}$', description: 'Cardano: hex of 0 to 32 bytes' })),
        contract_address: Type.Optional(
          Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: 'Ethereum; a mixed-case address must carry a valid EIP-55 checksum' }),
        ),
        standard: Type.Optional(enumOf(STANDARDS)),
        token_id: Type.Optional(
          Type.Union([Type.String({ pattern: '^(0|[1-9][0-9]{0,77})$' }), Type.Integer({ minimum: 0 })], {
            description: 'Ethereum erc721 and erc1155: the uint256 token id, decimal',
          }),
        ),
      },
      { description: 'Cardano tokens take policy_id and asset_name; Ethereum tokens contract_address, standard and (but erc20) token_id' },
    ),
  }),
});

export const UpdateTagLinksBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('tag-links'),
    id: Type.Optional(Type.String({ description: "The tag's id" })),
    attributes: Type.Object(
      {
        product_id: Type.Optional(Nullable(Type.String({ description: "prd_… of the tag's team and mode; null unlinks the product" }))),
        token_id: Type.Optional(Nullable(Type.String({ description: "tok_… of the tag's team and mode; null unlinks the token" }))),
      },
      { description: 'At least one of the two; a link left out keeps its value' },
    ),
  }),
});

export { TagLinksDocument };

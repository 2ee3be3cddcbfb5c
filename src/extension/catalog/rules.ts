// Value rules of the operator's catalog (docs/decisions.md §7): products and
// tokens. One checker serves the CLI flags and the chip import file, so both
// refuse the same bad values with the same words, before anything is written.
import { checksumAddress, isAddress } from 'viem';
import { isObject } from '../../json.js';
import { CONTROL, codePoints, isWellFormed } from '../../http/text-rules.js';
import type { ProductsTable, TokensTable } from '../../db/schema.js';

export const CHAINS = ['cardano', 'ethereum'] as const;
export type Chain = (typeof CHAINS)[number];
export const STANDARDS = ['erc721', 'erc1155', 'erc20'] as const;
export type Standard = (typeof STANDARDS)[number];

export const MAX_NAME = 200;
export const MAX_SYMBOL = 32;
export const MAX_DESCRIPTION = 2000;
export const MAX_URL = 2048;
const UINT256_MAX = (1n << 256n) - 1n;

/** What the operator gives: a catalog row without the columns the platform fills in. */
type Given<Row> = Omit<Row, 'id' | 'team_id' | 'mode' | 'created_at'>;
export type ProductInput = Given<ProductsTable>;
export type TokenInput = Given<TokensTable>;

type Problems = string[];
const printable = (s: string) => !CONTROL.test(s);

function text(raw: Record<string, unknown>, name: string, max: number, problems: Problems, required: boolean): string | null {
  const v = raw[name];
  if (v === undefined || v === null) {
    if (required) problems.push(`${name} is required`);
    return null;
  }
  if (typeof v !== 'string' || v.trim() === '') problems.push(`${name} must be a non-empty string`);
  else if ([...v].length > max) problems.push(`${name} must be at most ${max} characters`);
  else if (!printable(v)) problems.push(`${name} must not contain control characters`);
  else return v;
  return null;
}

/** An absolute http(s) URL of at most 2048 characters (also the rule of the extension's resource_url). */
export function isHttpUrl(v: unknown): v is string {
  if (typeof v !== 'string' || v.length === 0 || codePoints(v) > MAX_URL || !isWellFormed(v)) return false;
  try {
    const url = new URL(v);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' && printable(v) && !/\s/.test(v);
  } catch {
    return false;
  }
}

function unknownFields(raw: Record<string, unknown>, allowed: string[], problems: Problems): void {
  for (const name of Object.keys(raw)) if (!allowed.includes(name)) problems.push(`${name} is not a field (expected ${allowed.join(', ')})`);
}

export const PRODUCT_FIELDS = ['name', 'image_url', 'description'];

export function checkProduct(raw: unknown): { problems: Problems; product?: ProductInput } {
  if (!isObject(raw)) return { problems: ['a product must be an object'] };
  const problems: Problems = [];
  unknownFields(raw, PRODUCT_FIELDS, problems);
  const name = text(raw, 'name', MAX_NAME, problems, true);
  let image_url: string | null = null;
  if (raw.image_url !== undefined && raw.image_url !== null) {
    if (!isHttpUrl(raw.image_url)) problems.push(`image_url must be an absolute http(s) URL of at most ${MAX_URL} characters`);
    else image_url = raw.image_url;
  }
  const description = text(raw, 'description', MAX_DESCRIPTION, problems, false);
  return problems.length > 0 ? { problems } : { problems, product: { name: name!, image_url, description } };
}

export const TOKEN_FIELDS = ['chain', 'name', 'symbol', 'supply', 'policy_id', 'asset_name', 'contract_address', 'token_id', 'standard'];

/**
 * A token from its fields (the CLI's flags under the import file's names):
 * cardano needs policy_id (56 hex) and asset_name (hex, at most 32 bytes);
 * ethereum needs contract_address, standard and, except for erc20, token_id.
 */
export function checkToken(raw: unknown): { problems: Problems; token?: TokenInput } {
  if (!isObject(raw)) return { problems: ['a token must be an object'] };
  const problems: Problems = [];
  unknownFields(raw, TOKEN_FIELDS, problems);
  const chain = raw.chain;
  if (!CHAINS.includes(chain as Chain)) problems.push(`chain must be one of ${CHAINS.join(', ')}`);
  const name = text(raw, 'name', MAX_NAME, problems, true);
  const symbol = text(raw, 'symbol', MAX_SYMBOL, problems, true);
  const supply = raw.supply;
  if (supply === undefined) problems.push('supply is required');
  else if (!Number.isSafeInteger(supply) || (supply as number) < 0) problems.push(`supply must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER}`);
  const token: TokenInput = {
    chain: chain as Chain,
    name: name!,
    symbol: symbol!,
    supply: supply as number,
    contract_address: null,
    policy_id: null,
    asset_name: null,
    token_number: null,
    standard: null,
  };
  const absent = (names: string[]) => {
    for (const n of names) if (raw[n] !== undefined && raw[n] !== null) problems.push(`${n} is not a field of ${chain as Chain} tokens`);
  };
  if (chain === 'cardano') {
    absent(['contract_address', 'token_id', 'standard']);
    if (typeof raw.policy_id !== 'string' || !/^[0-9a-fA-F]{56}$/.test(raw.policy_id))
      problems.push('policy_id must be 56 hex characters (a 28-byte policy hash)');
    else token.policy_id = raw.policy_id.toLowerCase();
    if (typeof raw.asset_name !== 'string' || !/^([0-9a-fA-F]{2}){0,32}$/.test(raw.asset_name))
      problems.push('asset_name must be hex of 0 to 32 bytes (an even number of at most 64 hex characters)');
    else token.asset_name = raw.asset_name.toLowerCase();
  } else if (chain === 'ethereum') {
    absent(['policy_id', 'asset_name']);
    const contract = raw.contract_address;
    if (typeof contract !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(contract)) problems.push('contract_address must be 0x followed by 40 hex characters');
    // EIP-55: a mixed-case address carries a checksum, which must hold.
    else if (!isAddress(contract, { strict: contract !== contract.toLowerCase() && contract.slice(2) !== contract.slice(2).toUpperCase() }))
      problems.push('contract_address has a wrong EIP-55 checksum');
    else token.contract_address = checksumAddress(contract as `0x${string}`);
    if (!STANDARDS.includes(raw.standard as Standard)) problems.push(`standard must be one of ${STANDARDS.join(', ')}`);
    else token.standard = raw.standard as Standard;
    const tokenId = raw.token_id;
    if (raw.standard === 'erc20') {
      if (tokenId !== undefined && tokenId !== null) problems.push('token_id is not a field of erc20 tokens (the contract is the token)');
    } else if (
      typeof tokenId === 'number'
        ? !Number.isSafeInteger(tokenId) || tokenId < 0
        : typeof tokenId !== 'string' || !/^(0|[1-9][0-9]{0,77})$/.test(tokenId) || BigInt(tokenId) > UINT256_MAX
    ) {
      problems.push('token_id must be a whole number from 0 to 2^256-1 (decimal)');
    } else {
      token.token_number = String(tokenId);
    }
  }
  return problems.length > 0 ? { problems } : { problems, token };
}

/** `token.data` of the extension API: Cardano {policy_id, asset_id}; Ethereum {token_id, standard}. */
export function tokenData(token: Pick<TokenInput, 'chain' | 'policy_id' | 'asset_name' | 'token_number' | 'standard'>): Record<string, string | null> {
  if (token.chain === 'cardano') return { policy_id: token.policy_id, asset_id: `${token.policy_id}${token.asset_name}` };
  return { token_id: token.token_number, standard: token.standard };
}

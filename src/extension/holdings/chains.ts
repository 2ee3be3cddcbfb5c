// Holdings read from the chains themselves: Koios or Blockfrost for Cardano
// native assets, an EVM JSON-RPC node for ERC-721/1155/20. The operator
// configures each endpoint (never an end user), and every call is bounded in
// time and size, so a slow or hostile endpoint costs one failed proof, not a stuck server.
import { getAddress, parseAbi, type PublicClient } from 'viem';
import type { TokenRow } from '../catalog/repository.js';
import { HoldingsUnavailable, type HoldingsProvider } from './provider.js';

export const DEFAULT_TIMEOUT_MS = 5000;
const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** Blockfrost pages hold 100 addresses; more holders than this are not listed in challenges. */
const MAX_PAGES = 10;

interface Call {
  headers: Record<string, string>;
  timeoutMs: number;
  /** Blockfrost answers 404 for an asset nobody holds (or that does not exist); to Koios a 404 is a wrong URL. */
  notFoundIsNobody?: boolean;
}

async function getJson(url: string, call: Call): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, { headers: call.headers, redirect: 'error', signal: AbortSignal.timeout(call.timeoutMs) });
  } catch (error) {
    throw new HoldingsUnavailable(`${new URL(url).host}: ${(error as Error).name === 'TimeoutError' ? 'timed out' : 'unreachable'}`);
  }
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    // The headers came in time, the body did not (or the connection broke).
    throw new HoldingsUnavailable(`${new URL(url).host}: ${(error as Error).name === 'TimeoutError' ? 'timed out' : 'answer cut off'}`);
  }
  if (text.length > MAX_BODY_BYTES) throw new HoldingsUnavailable(`${new URL(url).host}: answer too large`);
  if (response.status === 404 && call.notFoundIsNobody) return [];
  if (!response.ok) throw new HoldingsUnavailable(`${new URL(url).host}: HTTP ${response.status}`);
  try {
    return JSON.parse(text);
  } catch {
    throw new HoldingsUnavailable(`${new URL(url).host}: answer is not JSON`);
  }
}

interface Holder {
  addresses: string[];
  quantity: bigint;
}

function holdersFrom(rows: unknown, pick: (row: Record<string, unknown>) => string[]): Holder[] {
  if (!Array.isArray(rows)) throw new HoldingsUnavailable('holders answer is not a list');
  return rows.map((row) => {
    if (typeof row !== 'object' || row === null) throw new HoldingsUnavailable('holders answer has a malformed entry');
    const r = row as Record<string, unknown>;
    const quantity = typeof r.quantity === 'string' && /^\d+$/.test(r.quantity) ? BigInt(r.quantity) : null;
    if (quantity === null) throw new HoldingsUnavailable('holders answer has a malformed quantity');
    return { addresses: pick(r).filter((a) => typeof a === 'string' && a.length > 0), quantity };
  });
}

function cardanoProvider(name: string, holders: (token: TokenRow) => Promise<Holder[]>): HoldingsProvider {
  const positive = async (token: TokenRow) => (await holders(token)).filter((h) => h.quantity > 0n);
  return {
    name,
    // A base address and its stake address both identify the holder.
    holds: async (token, address) => (await positive(token)).some((h) => h.addresses.includes(address)),
    expectedHolders: async (token) => [...new Set((await positive(token)).map((h) => h.addresses[0]!).filter(Boolean))],
  };
}

/** Koios `asset_addresses` (https://api.koios.rest): payment and stake address of each holder. */
export function koiosProvider(baseUrl: string, bearer: string | null, timeoutMs = DEFAULT_TIMEOUT_MS): HoldingsProvider {
  return cardanoProvider('koios', async (token) => {
    const url = new URL(`${baseUrl.replace(/\/$/, '')}/asset_addresses`);
    url.searchParams.set('_asset_policy', token.policy_id ?? '');
    url.searchParams.set('_asset_name', token.asset_name ?? '');
    const rows = await getJson(url.toString(), { headers: { accept: 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) }, timeoutMs });
    return holdersFrom(rows, (r) => [r.payment_address as string, r.stake_address as string]);
  });
}

/** Blockfrost `/assets/{asset}/addresses`, paged. */
export function blockfrostProvider(baseUrl: string, projectId: string, timeoutMs = DEFAULT_TIMEOUT_MS): HoldingsProvider {
  return cardanoProvider('blockfrost', async (token) => {
    const all: Holder[] = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const url = `${baseUrl.replace(/\/$/, '')}/assets/${token.policy_id ?? ''}${token.asset_name ?? ''}/addresses?count=100&page=${page}`;
      const rows = holdersFrom(await getJson(url, { headers: { project_id: projectId, accept: 'application/json' }, timeoutMs, notFoundIsNobody: true }), (r) => [r.address as string]);
      all.push(...rows);
      if (rows.length < 100) break;
    }
    return all;
  });
}

const ERC721 = parseAbi(['function ownerOf(uint256 tokenId) view returns (address)']);
const ERC1155 = parseAbi(['function balanceOf(address account, uint256 id) view returns (uint256)']);
const ERC20 = parseAbi(['function balanceOf(address account) view returns (uint256)']);

/** ERC-721 `ownerOf`, ERC-1155 and ERC-20 `balanceOf` on the configured chain. */
export function evmProvider(client: PublicClient): HoldingsProvider {
  return {
    name: 'evm-rpc',
    async holds(token, address) {
      const contract = getAddress(token.contract_address ?? '');
      const wallet = getAddress(address.toLowerCase());
      const id = BigInt(token.token_number ?? '0');
      try {
        if (token.standard === 'erc721') {
          return getAddress(await client.readContract({ address: contract, abi: ERC721, functionName: 'ownerOf', args: [id] })) === wallet;
        }
        if (token.standard === 'erc1155') return (await client.readContract({ address: contract, abi: ERC1155, functionName: 'balanceOf', args: [wallet, id] })) > 0n;
        return (await client.readContract({ address: contract, abi: ERC20, functionName: 'balanceOf', args: [wallet] })) > 0n;
      } catch (error) {
        // ERC-721 reverts ownerOf for a token that was never minted or was burnt: nobody holds it.
        if ((error as { name?: string }).name === 'ContractFunctionExecutionError' && /revert/i.test((error as Error).message) && token.standard === 'erc721') return false;
        throw new HoldingsUnavailable(`ethereum rpc: ${(error as { shortMessage?: string }).shortMessage ?? (error as Error).message}`);
      }
    },
    // An EVM chain cannot list holders cheaply; Ethereum challenges name none.
    expectedHolders: async () => [],
  };
}

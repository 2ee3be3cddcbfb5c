// Holdings read from the chains themselves: Koios or Blockfrost for Cardano
// native assets, an EVM JSON-RPC node for ERC-721/1155/20. The operator
// configures each endpoint (never an end user), and every call is bounded in
// time and size, so a slow or hostile endpoint costs one failed proof, not a stuck server.
import { getAddress, parseAbi, type PublicClient } from 'viem';
import type { TokenRow } from '../catalog/repository.js';
import { HoldingsUnavailable, type HoldingsProvider } from './provider.js';

export const DEFAULT_TIMEOUT_MS = 5000;
/** The largest answer read from a provider or the EVM RPC node. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** Koios (PostgREST) answers at most 1000 rows per request; `offset` pages on. */
const KOIOS_PAGE = 1000;
/** Blockfrost pages hold at most 100 entries. */
const BLOCKFROST_PAGE = 100;
/** Pages read for one answer: expected holders stop there; a wallet's assets past it cannot be judged. */
const MAX_PAGES = 10;

interface Call {
  headers: Record<string, string>;
  timeoutMs: number;
  /** A JSON body makes the call a POST (Koios' bulk endpoints). */
  body?: unknown;
  /** Blockfrost answers 404 for an asset nobody holds or an address never used; to Koios a 404 is a wrong URL. */
  notFoundIsNobody?: boolean;
}

/** The parsed JSON answer; null for a 404 that means "nobody" (`notFoundIsNobody`). */
async function getJson(url: string, call: Call): Promise<unknown> {
  const host = new URL(url).host;
  let response: Response;
  const post = call.body === undefined ? {} : { method: 'POST', body: JSON.stringify(call.body) };
  const headers = call.body === undefined ? call.headers : { ...call.headers, 'content-type': 'application/json' };
  const tooLarge = new AbortController();
  const signal = AbortSignal.any([tooLarge.signal, AbortSignal.timeout(call.timeoutMs)]);
  try {
    response = await fetch(url, { ...post, headers, redirect: 'error', signal });
  } catch (error) {
    throw new HoldingsUnavailable(`${host}: ${(error as Error).name === 'TimeoutError' ? 'timed out' : 'unreachable'}`);
  }
  let text: string;
  try {
    text = await boundedText(response, tooLarge);
  } catch (error) {
    if (error instanceof HoldingsUnavailable) throw new HoldingsUnavailable(`${host}: ${error.message}`);
    // The headers came in time, the body did not (or the connection broke).
    throw new HoldingsUnavailable(`${host}: ${(error as Error).name === 'TimeoutError' ? 'timed out' : 'answer cut off'}`);
  }
  if (response.status === 404 && call.notFoundIsNobody) return null;
  if (!response.ok) throw new HoldingsUnavailable(`${host}: HTTP ${response.status}`);
  try {
    return JSON.parse(text);
  } catch {
    throw new HoldingsUnavailable(`${host}: answer is not JSON`);
  }
}

/**
 * The body read with a byte count: past MAX_BODY_BYTES the fetch is aborted, so an endless or
 * huge answer costs at most the limit in memory (docs/wallets.md, Holdings providers).
 */
async function boundedText(response: Response, tooLarge: AbortController): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = Number(response.headers.get('content-length') ?? 0);
  if (size <= MAX_BODY_BYTES) {
    size = 0;
    for await (const chunk of response.body ?? []) {
      size += chunk.byteLength;
      if (size > MAX_BODY_BYTES) break;
      chunks.push(chunk);
    }
  }
  if (size > MAX_BODY_BYTES) {
    tooLarge.abort();
    throw new HoldingsUnavailable('answer too large');
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

type Row = Record<string, unknown>;

function rowsOf(answer: unknown): Row[] {
  if (!Array.isArray(answer)) throw new HoldingsUnavailable('answer is not a list');
  for (const row of answer) if (typeof row !== 'object' || row === null) throw new HoldingsUnavailable('answer has a malformed entry');
  return answer as Row[];
}

function quantityOf(row: Row): bigint {
  if (typeof row.quantity !== 'string' || !/^\d+$/.test(row.quantity)) throw new HoldingsUnavailable('answer has a malformed quantity');
  return BigInt(row.quantity);
}

/** Reads pages until one is short, at most MAX_PAGES; `complete` is false when the answer went on. */
async function pages(size: number, page: (index: number) => Promise<Row[]>): Promise<{ rows: Row[]; complete: boolean }> {
  const rows: Row[] = [];
  for (let index = 0; index < MAX_PAGES; index++) {
    const part = await page(index);
    rows.push(...part);
    if (part.length < size) return { rows, complete: true };
  }
  return { rows, complete: false };
}

/** All pages of a wallet's assets: a cut list could hide the token, so that cannot be judged. */
async function allPages(what: string, size: number, page: (index: number) => Promise<Row[]>): Promise<Row[]> {
  const { rows, complete } = await pages(size, page);
  if (!complete) throw new HoldingsUnavailable(`${what}: more than ${MAX_PAGES} pages`);
  return rows;
}

const isStakeAddress = (address: string) => address.startsWith('stake');

/**
 * A Cardano provider. `holds` asks about the one address (its own assets, paged), so a token with
 * any number of holders is judged right; `holders` lists the token's holders for challenges and
 * stops after MAX_PAGES pages (a hint for wallets, never the proof's answer).
 */
function cardanoProvider(
  name: string,
  quantityHeld: (token: TokenRow, address: string) => Promise<bigint>,
  holders: (token: TokenRow) => Promise<{ address: string; quantity: bigint }[]>,
): HoldingsProvider {
  return {
    name,
    holds: async (token, address) => (await quantityHeld(token, address)) > 0n,
    expectedHolders: async (token) => [...new Set((await holders(token)).filter((h) => h.quantity > 0n && h.address.length > 0).map((h) => h.address))],
  };
}

/**
 * Koios (https://api.koios.rest): `POST /address_assets {_addresses}` or, for a stake address,
 * `POST /account_assets {_stake_addresses}` per proof; `GET /asset_addresses` for expected holders.
 */
export function koiosProvider(baseUrl: string, bearer: string | null, timeoutMs = DEFAULT_TIMEOUT_MS): HoldingsProvider {
  const base = baseUrl.replace(/\/$/, '');
  const headers = { accept: 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) };
  const paged = (path: string, body?: unknown) => (index: number) => {
    const url = new URL(`${base}${path}`);
    url.searchParams.set('offset', String(index * KOIOS_PAGE));
    url.searchParams.set('limit', String(KOIOS_PAGE));
    return getJson(url.toString(), { headers, timeoutMs, body }).then(rowsOf);
  };
  return cardanoProvider(
    'koios',
    async (token, address) => {
      const rows = isStakeAddress(address)
        ? await allPages('koios account_assets', KOIOS_PAGE, paged('/account_assets', { _stake_addresses: [address] }))
        : await allPages('koios address_assets', KOIOS_PAGE, paged('/address_assets', { _addresses: [address] }));
      return rows
        .filter((r) => r.policy_id === token.policy_id && (r.asset_name ?? '') === (token.asset_name ?? ''))
        .reduce((sum, r) => sum + quantityOf(r), 0n);
    },
    async (token) => {
      const url = new URL(`${base}/asset_addresses`);
      url.searchParams.set('_asset_policy', token.policy_id ?? '');
      url.searchParams.set('_asset_name', token.asset_name ?? '');
      // One page of up to 1000 holders: enough for a hint.
      return rowsOf(await getJson(url.toString(), { headers, timeoutMs })).map((r) => ({
        address: typeof r.payment_address === 'string' ? r.payment_address : '',
        quantity: quantityOf(r),
      }));
    },
  );
}

/**
 * Blockfrost: `GET /addresses/{address}` (the address's summed `amount`) or, for a stake address,
 * `GET /accounts/{stake}/addresses/assets` (paged) per proof; `GET /assets/{asset}/addresses` for
 * expected holders. A 404 is Blockfrost's answer for an address never used or an asset nobody holds.
 */
export function blockfrostProvider(baseUrl: string, projectId: string, timeoutMs = DEFAULT_TIMEOUT_MS): HoldingsProvider {
  const base = baseUrl.replace(/\/$/, '');
  const call = { headers: { project_id: projectId, accept: 'application/json' }, timeoutMs, notFoundIsNobody: true };
  const paged = (path: string) => async (index: number) => {
    const answer = await getJson(`${base}${path}?count=${BLOCKFROST_PAGE}&page=${index + 1}`, call);
    return answer === null ? [] : rowsOf(answer);
  };
  const unitOf = (token: TokenRow) => `${token.policy_id ?? ''}${token.asset_name ?? ''}`;
  return cardanoProvider(
    'blockfrost',
    async (token, address) => {
      let amounts: Row[];
      if (isStakeAddress(address)) {
        amounts = await allPages('blockfrost account assets', BLOCKFROST_PAGE, paged(`/accounts/${encodeURIComponent(address)}/addresses/assets`));
      } else {
        const answer = await getJson(`${base}/addresses/${encodeURIComponent(address)}`, call);
        if (answer === null) return 0n;
        const amount = typeof answer === 'object' && !Array.isArray(answer) ? (answer as Row).amount : undefined;
        amounts = rowsOf(amount);
      }
      return amounts.filter((r) => r.unit === unitOf(token)).reduce((sum, r) => sum + quantityOf(r), 0n);
    },
    async (token) => {
      // Up to MAX_PAGES pages of 100: enough for a hint; the holders past them are left out.
      const { rows } = await pages(BLOCKFROST_PAGE, paged(`/assets/${unitOf(token)}/addresses`));
      return rows.map((r) => ({ address: typeof r.address === 'string' ? r.address : '', quantity: quantityOf(r) }));
    },
  );
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
        if (token.standard === 'erc1155')
          return (await client.readContract({ address: contract, abi: ERC1155, functionName: 'balanceOf', args: [wallet, id] })) > 0n;
        return (await client.readContract({ address: contract, abi: ERC20, functionName: 'balanceOf', args: [wallet] })) > 0n;
      } catch (error) {
        // ERC-721 reverts ownerOf for a token that was never minted or was burnt: nobody holds it.
        if ((error as { name?: string }).name === 'ContractFunctionExecutionError' && /revert/i.test((error as Error).message) && token.standard === 'erc721')
          return false;
        throw new HoldingsUnavailable(`ethereum rpc: ${(error as { shortMessage?: string }).shortMessage ?? (error as Error).message}`);
      }
    },
    // An EVM chain cannot list holders cheaply; Ethereum challenges name none.
    expectedHolders: async () => [],
  };
}

// Steps of the extension API tests: genuine (and replayed) verifications in
// either mode through the real platform API, catalog entries, and plain JSON
// requests to the extension base URLs.
import { randomBytes } from 'node:crypto';
import { generateSun424 } from '../../src/chips/index.js';
import type { Mode } from '../../src/db/schema.js';
import { createProduct, createToken, linkTag } from '../../src/extension/catalog/service.js';
import { setHolding, unsetHolding } from '../../src/extension/holdings/index.js';
import { importChips } from '../../src/tag-chips/import.js';
import { call, type ApiResponse, type TestServer, type SeededTeam } from '../kit/harness.js';
import { emulated, tapUrl, verify } from '../verifications/helpers.js';
import { cliActor } from '../../src/audit/record.js';
import { asCli } from '../kit/actors.js';

export interface Scanned {
  /** Platform id vrf_… */
  id: string;
  /** VRF_… */
  publicId: string;
  tagId: string;
  url: string;
}

/** A production tag on an imported chip (at `url`) whose taps the test makes itself. */
export async function productionTag(server: TestServer, world: SeededTeam, url = `https://brand.example/p/${randomBytes(6).toString('hex')}`) {
  const meta = randomBytes(16);
  const file = randomBytes(16);
  const uid = Buffer.from('04' + randomBytes(6).toString('hex'), 'hex');
  const [tagId] = await importChips(server.ctx, { teamId: world.teamId, mode: 'production', actor: cliActor() }, [
    { url, protocol: 'ntag_424_dna', uid: uid.toString('hex'), sdm_meta_read_key: meta.toString('hex'), sdm_file_read_key: file.toString('hex') },
  ]);
  let counter = 0;
  return {
    id: tagId!,
    /** The URL of the next tap. */
    tap: () => {
      const s = generateSun424({ crypto: 'aes', uid, counter: ++counter, sdmMetaReadKey: meta, sdmFileReadKey: file });
      return `${url}?picc_data=${s.piccData}&cmac=${s.cmac}`;
    },
  };
}

/** A tag of `mode` and a function scanning it through POST /api/v1/verifications. */
export async function scannableTag(server: TestServer, world: SeededTeam, mode: Mode) {
  if (mode === 'production') {
    const tag = await productionTag(server, world);
    return { id: tag.id, nextUrl: async () => tag.tap() };
  }
  const { id } = await emulated(server, world.teamId, 'ntag_424_dna');
  return { id, nextUrl: () => tapUrl(server, id) };
}

/** POSTs `url` as a scan with the mode's key; the stored verification. */
export async function scan(server: TestServer, world: SeededTeam, mode: Mode, url: string): Promise<Scanned & { genuine: boolean; reason: string }> {
  const response = await verify(server, world[mode].key, url);
  if (response.status !== 201) throw new Error(`scan failed: ${response.text}`);
  const data = response.body.data;
  return {
    id: data.id,
    publicId: `VRF_${data.id.slice(4)}`,
    tagId: data.attributes.tag_id,
    url,
    genuine: data.attributes.genuine,
    reason: data.attributes.reason,
  };
}

/** A genuine verification of a new tag of `mode` (linked to a product and token when given). */
export async function genuineScan(server: TestServer, world: SeededTeam, mode: Mode = 'production', links: { product?: string; token?: string } = {}) {
  const tag = await scannableTag(server, world, mode);
  if (links.product || links.token) await linkTag(server.ctx, tag.id, links, cliActor());
  return { ...(await scan(server, world, mode, await tag.nextUrl())), tag };
}

/** A replayed verification: an older tap sent after a newer one (outside the reload window, so stored as `replayed`). */
export async function replayedScan(server: TestServer, world: SeededTeam, mode: Mode = 'production') {
  const tag = await scannableTag(server, world, mode);
  const older = await tag.nextUrl();
  await scan(server, world, mode, await tag.nextUrl());
  return scan(server, world, mode, older);
}

export const CARDANO_TOKEN = {
  chain: 'cardano',
  name: 'Tapproof Jacket #1',
  symbol: 'JKT',
  supply: 1,
  policy_id: 'a0'.repeat(28),
  asset_name: '4a61636b657431',
};

export const ETHEREUM_TOKEN = {
  chain: 'ethereum',
  name: 'Tapproof Watch',
  symbol: 'WTC',
  supply: 100,
  contract_address: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
  token_id: '7',
  standard: 'erc721',
};

/** An ERC-20 of 100 units: several wallets hold it at once. */
export const FUNGIBLE_TOKEN = (({ token_id: _, ...erc721 }) => ({ ...erc721, standard: 'erc20' }))(ETHEREUM_TOKEN);

export async function catalog(server: TestServer, world: SeededTeam, mode: Mode = 'production', token: Record<string, unknown> = CARDANO_TOKEN) {
  const product = await createProduct(server.ctx, asCli({ teamId: world.teamId, mode }), {
    name: 'Jacket',
    image_url: 'https://brand.example/jacket.png',
    description: 'Waxed cotton',
  });
  const tok = await createToken(server.ctx, asCli({ teamId: world.teamId, mode }), token);
  return { product: product.id, token: tok.id };
}

/** The extension base of `mode`: `/ext` or `/ext/sandbox`. */
export const extBase = (server: TestServer, mode: Mode = 'production') =>
  `${server.origin}${server.ctx.config.extPrefix}${mode === 'sandbox' ? '/sandbox' : ''}`;

/** A plain JSON request to the extension API (the harness's `call` with `application/json` for bodies). */
export function ext(
  server: TestServer,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string>; mode?: Mode } = {},
): Promise<ApiResponse> {
  const headers = { ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}), ...options.headers };
  return call({ base: extBase(server, options.mode) }, method, path, { body: options.body, headers });
}

/** The embedded holdings provider's table (what `tapproof holdings set|unset` writes). */
export function holdings(server: TestServer) {
  const db = server.ctx.db.kysely;
  return {
    give: (tokenId: string, address: string) => setHolding(db, tokenId, address, 1n, server.ctx.clock),
    take: (tokenId: string, address: string) => unsetHolding(db, tokenId, address),
  };
}

// Who holds a catalog token, as the platform API sets it for the embedded holdings provider
// (docs/wallets.md): the token must be of the caller's world, and each change is audited with it.
import { getAddress, isAddress } from 'viem';
import { recordAudit } from '../../audit/index.js';
import { DomainError, problem, type FieldProblem } from '../../errors.js';
import { isId } from '../../ids.js';
import type { Kernel } from '../../kernel.js';
import type { Caller, World } from '../../world.js';
import * as catalogRepo from '../catalog/repository.js';
import type { TokenRow } from '../catalog/repository.js';
import { parseAddress } from '../wallets/cip19.js';
import { findHolding, listHoldings, setHolding, unsetHolding, type HoldingRow } from './repository.js';

type Services = Pick<Kernel, 'db' | 'clock'>;

/** The address in the form proofs compare against (bech32 as given, or EIP-55); null when it is no address of the chain. */
export function canonicalAddress(chain: string, address: string): string | null {
  if (chain === 'cardano') return parseAddress(address) ? address : null;
  if (chain === 'ethereum') return isAddress(address, { strict: false }) ? getAddress(address.toLowerCase()) : null;
  return null;
}

/** A uint256 count of at least 1, as decimal text; null when `raw` is not one. */
function quantityOf(raw: unknown): string | null {
  if (typeof raw === 'number') return Number.isSafeInteger(raw) && raw >= 1 ? String(raw) : null;
  if (typeof raw !== 'string' || !/^[1-9][0-9]{0,77}$/.test(raw) || BigInt(raw) >= 1n << 256n) return null;
  return raw;
}

/** The token, if it is of `world`; another world's token is as unknown as a missing one. */
async function tokenIn({ db }: Pick<Kernel, 'db'>, world: World, tokenId: string): Promise<TokenRow> {
  const token = isId('tok', tokenId) ? await catalogRepo.findTokenIn(db.kysely, world, tokenId) : undefined;
  if (!token) throw new DomainError('NotFound');
  return token;
}

export async function listTokenHoldings(services: Pick<Kernel, 'db'>, world: World, tokenId: string): Promise<HoldingRow[]> {
  const token = await tokenIn(services, world, tokenId);
  return listHoldings(services.db.kysely, token.id);
}

/** `POST /tokens/:id/holdings`: sets the address's quantity (1 when not given); `created` when it held none before. */
export async function setTokenHolding(
  services: Services,
  world: Caller,
  tokenId: string,
  attributes: Record<string, unknown>,
): Promise<{ row: HoldingRow; created: boolean }> {
  const token = await tokenIn(services, world, tokenId);
  const fields: FieldProblem[] = [];
  for (const name of Object.keys(attributes))
    if (name !== 'address' && name !== 'quantity') fields.push(problem(name, `${name} is not an attribute (expected address, quantity)`));
  const address = typeof attributes.address === 'string' ? canonicalAddress(token.chain, attributes.address) : null;
  if (address === null)
    fields.push(
      problem(
        'address',
        token.chain === 'cardano' ? 'address must be a Cardano Shelley address (bech32)' : 'address must be an Ethereum address (0x and 40 hex)',
      ),
    );
  const quantity = attributes.quantity === undefined ? '1' : quantityOf(attributes.quantity);
  if (quantity === null) fields.push(problem('quantity', 'quantity must be a whole number from 1 to 2^256-1 (a number, or decimal text)'));
  if (fields.length > 0) throw new DomainError('ValidationFailed', fields, 'holding not set');
  const db = services.db.kysely;
  return db.transaction().execute(async (trx) => {
    const before = await findHolding(trx, token.id, address!);
    await setHolding(trx, token.id, address!, BigInt(quantity!), services.clock);
    const row = (await findHolding(trx, token.id, address!))!;
    await recordAudit(trx, world, row.updated_at, [
      { operation: 'holding.set', resourceId: token.id, changes: { address: row.address, quantity: row.quantity } },
    ]);
    return { row, created: before === undefined };
  });
}

/** `DELETE /tokens/:id/holdings/:address`: an address that holds none of the token is not found. */
export async function unsetTokenHolding(services: Services, world: Caller, tokenId: string, rawAddress: string): Promise<void> {
  const token = await tokenIn(services, world, tokenId);
  const address = canonicalAddress(token.chain, rawAddress);
  if (address === null) throw new DomainError('NotFound');
  await services.db.kysely.transaction().execute(async (trx) => {
    if (!(await unsetHolding(trx, token.id, address))) throw new DomainError('NotFound');
    await recordAudit(trx, world, services.clock.nowMicros(), [{ operation: 'holding.unset', resourceId: token.id, changes: { address } }]);
  });
}

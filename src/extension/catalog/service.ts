// The catalog's rules (docs/decisions.md §7): products and tokens belong to one
// team and mode, and a tag links only to its own world's catalog. Every check
// runs before the first write; a refusal is one line for the operator.
import type { Executor } from '../../db/database.js';
import { DomainError, problem, refusal } from '../../errors.js';
import { isId, newId } from '../../ids.js';
import type { World } from '../../world.js';
import { findTeam } from '../../teams/repository.js';
import type { Clock } from '../../time.js';
import { findProductIn, findTagWorld, findTokenIn, insertProducts, insertTokens, upsertTagLinks, type ProductRow, type TokenRow } from './repository.js';
import { checkProduct, checkToken, type ProductInput, type TokenInput } from './rules.js';

const refuse = (what: string, problems: string[]) => new DomainError('ValidationFailed', problems.map((p) => problem('', p)), what);

async function requireTeam(db: Executor, world: World): Promise<void> {
  if (!(await findTeam(db, world.teamId))) throw refusal(`no team ${world.teamId}`);
}

export function productRow(world: World, product: ProductInput, at: number): ProductRow {
  return { id: newId('prd'), team_id: world.teamId, mode: world.mode, ...product, created_at: at };
}

export function tokenRow(world: World, token: TokenInput, at: number): TokenRow {
  return { id: newId('tok'), team_id: world.teamId, mode: world.mode, ...token, created_at: at };
}

export async function createProduct(db: Executor, world: World, raw: unknown, clock: Clock): Promise<{ id: string }> {
  const { problems, product } = checkProduct(raw);
  if (!product) throw refuse('product not created', problems);
  await requireTeam(db, world);
  const row = productRow(world, product, clock.nowMicros());
  await insertProducts(db, [row]);
  return { id: row.id };
}

export async function createToken(db: Executor, world: World, raw: unknown, clock: Clock): Promise<{ id: string }> {
  const { problems, token } = checkToken(raw);
  if (!token) throw refuse('token not created', problems);
  await requireTeam(db, world);
  const row = tokenRow(world, token, clock.nowMicros());
  await insertTokens(db, [row]);
  return { id: row.id };
}

/** Checks that `productId` / `tokenId` exist in `world` (not another team's or mode's); returns the problems. */
export async function catalogProblems(db: Executor, world: World, productId: string | undefined, tokenId: string | undefined): Promise<string[]> {
  const problems: string[] = [];
  if (productId !== undefined && !(isId('prd', productId) && (await findProductIn(db, world, productId)))) problems.push(`no product ${productId} in the tag's team and mode`);
  if (tokenId !== undefined && !(isId('tok', tokenId) && (await findTokenIn(db, world, tokenId)))) problems.push(`no token ${tokenId} in the tag's team and mode`);
  return problems;
}

/** `tapproof tags link`: the tag's verifications show this product and prove this token. */
export async function linkTag(db: Executor, tagId: string, links: { product?: string; token?: string }, clock: Clock): Promise<{ id: string; product_id: string | null; token_id: string | null }> {
  if (links.product === undefined && links.token === undefined) throw refusal('tag not linked: give --product, --token or both');
  const world = isId('tag', tagId) ? await findTagWorld(db, tagId) : undefined;
  if (!world) throw refusal(`no tag ${tagId}`);
  const problems = await catalogProblems(db, world, links.product, links.token);
  if (problems.length > 0) throw refuse('tag not linked', problems);
  await upsertTagLinks(db, [{ tag_id: tagId, product_id: links.product, token_id: links.token, updated_at: clock.nowMicros() }]);
  const row = await db.selectFrom('tag_links').selectAll().where('tag_id', '=', tagId).executeTakeFirstOrThrow();
  return { id: tagId, product_id: row.product_id, token_id: row.token_id };
}

import type { Mode } from '../../db/schema.js';
// The catalog's rules (docs/decisions.md §7): products and tokens belong to one
// team and mode, and a tag links only to its own world's catalog. Every check
// runs before the first write; a refusal is one line for the operator.
import type { Kernel } from '../../kernel.js';
import type { Executor } from '../../db/database.js';
import { DomainError, problem, refusal, type FieldProblem } from '../../errors.js';
import { isId, newId } from '../../ids.js';
import type { Actor, Caller, World } from '../../world.js';
import { recordAudit } from '../../audit/index.js';
import * as keysRepo from '../../keys/index.js';
import * as teamsRepo from '../../teams/index.js';
import * as catalogRepo from './repository.js';
import type { ProductRow, TokenRow } from './repository.js';
import { checkProduct, checkToken, type ProductInput, type TokenInput } from './rules.js';

/**
 * How a refusal names its problems: as the operator's plain lines (the CLI), or each at its field
 * (the API's 422), which the rules' sentences open with.
 */
type Located = 'line' | 'field';

const fieldOf = (sentence: string) => /^\S+(?= )/.exec(sentence)?.[0] ?? '';

const refuse = (what: string, problems: string[], located: Located = 'line') =>
  new DomainError(
    'ValidationFailed',
    problems.map((p) => problem(located === 'field' ? fieldOf(p) : '', p)),
    what,
  );

async function requireTeam(db: Executor, world: World): Promise<void> {
  if (!(await teamsRepo.findTeam(db, world.teamId))) throw refusal(`no team ${world.teamId}`);
}

export function productRow(world: World, product: ProductInput, at: number): ProductRow {
  return { id: newId('prd'), team_id: world.teamId, mode: world.mode, ...product, created_at: at };
}

export function tokenRow(world: World, token: TokenInput, at: number): TokenRow {
  return { id: newId('tok'), team_id: world.teamId, mode: world.mode, ...token, created_at: at };
}

/** What the catalog's operations need: the database and the clock that stamps rows. */
export type CatalogServices = Pick<Kernel, 'db' | 'clock'>;

export async function createProduct(services: CatalogServices, caller: Caller, raw: unknown): Promise<{ id: string }> {
  return { id: (await insertProduct(services, caller, raw, 'line')).id };
}

export async function createToken(services: CatalogServices, caller: Caller, raw: unknown): Promise<{ id: string }> {
  return { id: (await insertToken(services, caller, raw, 'line')).id };
}

/** `POST /products`: the created row. */
export async function insertProduct(
  { db: { kysely: db }, clock }: CatalogServices,
  caller: Caller,
  raw: unknown,
  located: Located = 'field',
): Promise<ProductRow> {
  const { problems, product } = checkProduct(raw);
  if (!product) throw refuse('product not created', problems, located);
  await requireTeam(db, caller);
  const row = productRow(caller, product, clock.nowMicros());
  await db.transaction().execute(async (trx) => {
    await catalogRepo.insertProducts(trx, [row]);
    await recordAudit(trx, caller, row.created_at, [{ operation: 'product.create', resourceId: row.id, changes: product }]);
  });
  return row;
}

/** `POST /tokens`: the created row. */
export async function insertToken({ db: { kysely: db }, clock }: CatalogServices, caller: Caller, raw: unknown, located: Located = 'field'): Promise<TokenRow> {
  const { problems, token } = checkToken(raw);
  if (!token) throw refuse('token not created', problems, located);
  await requireTeam(db, caller);
  const row = tokenRow(caller, token, clock.nowMicros());
  await db.transaction().execute(async (trx) => {
    await catalogRepo.insertTokens(trx, [row]);
    await recordAudit(trx, caller, row.created_at, [{ operation: 'token.create', resourceId: row.id, changes: token }]);
  });
  return row;
}

export const listProducts = ({ db }: Pick<Kernel, 'db'>, world: World) => catalogRepo.listProducts(db.kysely, world);
export const listTokens = ({ db }: Pick<Kernel, 'db'>, world: World) => catalogRepo.listTokens(db.kysely, world);

/** Checks that `productId` / `tokenId` exist in `world` (not another team's or mode's); returns the problems. */
export async function catalogProblems(db: Executor, world: World, productId: string | undefined, tokenId: string | undefined): Promise<string[]> {
  const problems: string[] = [];
  if (productId !== undefined && !(isId('prd', productId) && (await catalogRepo.findProductIn(db, world, productId))))
    problems.push(`no product ${productId} in the tag's team and mode`);
  if (tokenId !== undefined && !(isId('tok', tokenId) && (await catalogRepo.findTokenIn(db, world, tokenId))))
    problems.push(`no token ${tokenId} in the tag's team and mode`);
  return problems;
}

/**
 * The mode `products create` and `tokens create` use when not told: a team that has live keys of one
 * mode only works in that mode, so its catalog is of it too; with keys of both modes, or none,
 * production. `keyModes` says which case it was.
 */
export async function defaultCatalogMode({ db: { kysely: db }, clock }: CatalogServices, teamId: string): Promise<{ mode: Mode; keyModes: Mode[] }> {
  const keyModes = await keysRepo.liveKeyModes(db, teamId, clock.nowMicros());
  return { mode: keyModes.length === 1 ? keyModes[0]! : 'production', keyModes };
}

/**
 * A product or token of the tag's team but of the other mode, named with both modes: "no product"
 * alone would leave the operator looking for a typo in an id that exists.
 */
async function modeMismatch(db: Executor, tag: { id: string } & World, what: 'product' | 'token', id: string | undefined): Promise<string | null> {
  if (id === undefined) return null;
  const row = what === 'product' ? await catalogRepo.findProduct(db, id) : await catalogRepo.findToken(db, id);
  if (row === undefined || row.team_id !== tag.teamId || row.mode === tag.mode) return null;
  return `tag ${tag.id} is ${tag.mode} but ${what} ${id} is ${row.mode}: a tag links only to a ${what} of its own mode (create one with --mode ${tag.mode})`;
}

/** `tapproof tags link`: the tag's verifications show this product and prove this token. */
/** `mode`, when given, is the mode the operator expects the tag to be of: another mode's tag is not found. */
export async function linkTag(
  { db: { kysely: db }, clock }: CatalogServices,
  tagId: string,
  links: { product?: string; token?: string; mode?: Mode },
  actor: Actor,
): Promise<{ id: string; product_id: string | null; token_id: string | null }> {
  if (links.product === undefined && links.token === undefined) throw refusal('tag not linked: give --product, --token or both');
  const world = isId('tag', tagId) ? await catalogRepo.findTagWorld(db, tagId) : undefined;
  if (!world || (links.mode !== undefined && world.mode !== links.mode)) throw refusal(`no ${links.mode ?? ''}${links.mode ? ' ' : ''}tag ${tagId}`);
  const tag = { id: tagId, ...world };
  const product = await modeMismatch(db, tag, 'product', links.product);
  const token = await modeMismatch(db, tag, 'token', links.token);
  const problems = [
    ...(product === null ? await catalogProblems(db, world, links.product, undefined) : [product]),
    ...(token === null ? await catalogProblems(db, world, undefined, links.token) : [token]),
  ];
  if (problems.length > 0) throw refuse('tag not linked', problems);
  const at = clock.nowMicros();
  const row = await db.transaction().execute(async (trx) => {
    await catalogRepo.upsertTagLinks(trx, [{ tag_id: tagId, product_id: links.product, token_id: links.token, updated_at: at }]);
    const linked = (await catalogRepo.findTagLink(trx, tagId))!;
    await recordAudit(trx, { ...world, actor }, at, [
      { operation: 'tag.link', resourceId: tagId, changes: { product_id: linked.product_id, token_id: linked.token_id } },
    ]);
    return linked;
  });
  return { id: tagId, product_id: row.product_id, token_id: row.token_id };
}

/**
 * `PATCH /tags/:id/links`: sets (a string) or clears (null) the given links of a tag of the caller's world;
 * a product or token of another world is no product of the tag's, so it reads as unknown.
 */
export async function updateTagLinks(
  { db: { kysely: db }, clock }: CatalogServices,
  caller: Caller,
  tagId: string,
  attributes: Record<string, unknown>,
): Promise<void> {
  const tag = isId('tag', tagId) ? await catalogRepo.findTagWorld(db, tagId) : undefined;
  if (!tag || tag.teamId !== caller.teamId || tag.mode !== caller.mode) throw new DomainError('NotFound');
  const fields: FieldProblem[] = [];
  for (const name of Object.keys(attributes))
    if (name !== 'product_id' && name !== 'token_id') fields.push(problem(name, `${name} is not an attribute (expected product_id, token_id)`));
  const links: { product_id?: string | null; token_id?: string | null } = {};
  for (const name of ['product_id', 'token_id'] as const) {
    const value = attributes[name];
    if (value === undefined || value === null) {
      if (value === null) links[name] = null;
      continue;
    }
    if (typeof value !== 'string') {
      fields.push(problem(name, `${name} must be a string (${name === 'product_id' ? 'prd_…' : 'tok_…'}) or null`));
      continue;
    }
    const found = name === 'product_id' ? await catalogProblems(db, caller, value, undefined) : await catalogProblems(db, caller, undefined, value);
    if (found.length > 0) fields.push(...found.map((p) => problem(name, p)));
    else links[name] = value;
  }
  if (fields.length > 0) throw new DomainError('ValidationFailed', fields, 'tag not linked');
  const at = clock.nowMicros();
  await db.transaction().execute(async (trx) => {
    await catalogRepo.upsertTagLinks(trx, [{ tag_id: tagId, ...links, updated_at: at }]);
    const linked = (await catalogRepo.findTagLink(trx, tagId))!;
    await recordAudit(trx, caller, at, [{ operation: 'tag.link', resourceId: tagId, changes: { product_id: linked.product_id, token_id: linked.token_id } }]);
  });
}

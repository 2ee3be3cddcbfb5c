// The optional catalog fields of a chip import entry (docs/decisions.md §4, §7):
// `product` and `token`, each either the id of an existing catalog entry of the
// same team and mode, or an object with the fields of `products create` /
// `tokens create` (a new entry made with the import, in its transaction).
import type { Executor } from '../../db/database.js';
import type { ImportedFields } from '../../tag-chips/index.js';
import { problem, type FieldProblem } from '../../errors.js';
import type { World } from '../../world.js';
import * as catalogRepo from './repository.js';
import { checkProduct, checkToken, type ProductInput, type TokenInput } from './rules.js';
import { catalogProblems, productRow, tokenRow } from './service.js';

export const CATALOG_FIELDS = ['product', 'token'];

export interface CatalogPlan {
  product?: string | ProductInput;
  token?: string | TokenInput;
}

/** Checks the entry's catalog fields; problems as `[field, detail]` like the import's own checks. */
export function checkCatalogFields(entry: Record<string, unknown>): { problems: [string, string][]; plan: CatalogPlan } {
  const problems: [string, string][] = [];
  const plan: CatalogPlan = {};
  const product = entry.product;
  if (typeof product === 'string') plan.product = product;
  else if (product !== undefined && product !== null) {
    const checked = checkProduct(product);
    for (const p of checked.problems) problems.push(['product', p]);
    if (checked.product) plan.product = checked.product;
  }
  const token = entry.token;
  if (typeof token === 'string') plan.token = token;
  else if (token !== undefined && token !== null) {
    const checked = checkToken(token);
    for (const p of checked.problems) problems.push(['token', p]);
    if (checked.token) plan.token = checked.token;
  }
  return { problems, plan };
}

/** Problems with referenced ids (another world's or unknown), per import entry; run before any write. */
export async function catalogReferenceProblems(db: Executor, world: World, plans: CatalogPlan[]): Promise<FieldProblem[]> {
  const fields: FieldProblem[] = [];
  for (const [index, plan] of plans.entries()) {
    const problems = await catalogProblems(
      db,
      world,
      typeof plan.product === 'string' ? plan.product : undefined,
      typeof plan.token === 'string' ? plan.token : undefined,
    );
    for (const p of problems) fields.push(problem(p.startsWith('no product') ? 'product' : 'token', p, index));
  }
  return fields;
}

/** Creates the inline catalog entries and links each imported tag (same order as `plans`). */
/** `at`: the import's moment, stamped on the entries and links it creates. */
export async function applyCatalogFields(db: Executor, world: World, tagIds: string[], plans: CatalogPlan[], at: number): Promise<void> {
  const links: { tag_id: string; product_id?: string; token_id?: string; updated_at: number }[] = [];
  const products = [];
  const tokens = [];
  for (const [i, plan] of plans.entries()) {
    if (plan.product === undefined && plan.token === undefined) continue;
    let productId: string | undefined;
    let tokenId: string | undefined;
    if (typeof plan.product === 'string') productId = plan.product;
    else if (plan.product) {
      products.push(productRow(world, plan.product, at));
      productId = products.at(-1)!.id;
    }
    if (typeof plan.token === 'string') tokenId = plan.token;
    else if (plan.token) {
      tokens.push(tokenRow(world, plan.token, at));
      tokenId = tokens.at(-1)!.id;
    }
    links.push({ tag_id: tagIds[i]!, product_id: productId, token_id: tokenId, updated_at: at });
  }
  await catalogRepo.insertProducts(db, products);
  await catalogRepo.insertTokens(db, tokens);
  await catalogRepo.upsertTagLinks(db, links);
}

/** The catalog fields as the chip import takes them from the context (tag-chips' ImportedFields). */
export const catalogImportFields: ImportedFields<CatalogPlan> = {
  names: CATALOG_FIELDS,
  check: checkCatalogFields,
  referenceProblems: catalogReferenceProblems,
  apply: applyCatalogFields,
};

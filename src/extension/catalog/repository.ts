// All SQL on the catalog: products, tokens and the tag links.
import type { Executor } from '../../db/database.js';
import type { ProductsTable, TagLinksTable, TokensTable } from '../../db/schema.js';
import type { World } from '../../world.js';
import { inWorld } from '../../db/in-world.js';

export type ProductRow = ProductsTable;
export type TokenRow = TokensTable;
export type TagLinkRow = TagLinksTable;

export async function insertProducts(db: Executor, rows: ProductRow[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('products').values(rows).execute();
}

export async function insertTokens(db: Executor, rows: TokenRow[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('tokens').values(rows).execute();
}

export async function findProductIn(db: Executor, world: World, id: string): Promise<ProductRow | undefined> {
  return db.selectFrom('products').selectAll().where('id', '=', id).$call(inWorld(world)).executeTakeFirst();
}

export async function findTokenIn(db: Executor, world: World, id: string): Promise<TokenRow | undefined> {
  return db.selectFrom('tokens').selectAll().where('id', '=', id).$call(inWorld(world)).executeTakeFirst();
}

/** The world's products (or tokens), newest first. */
export async function listProducts(db: Executor, world: World): Promise<ProductRow[]> {
  return db.selectFrom('products').selectAll().$call(inWorld(world)).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
}

export async function listTokens(db: Executor, world: World): Promise<TokenRow[]> {
  return db.selectFrom('tokens').selectAll().$call(inWorld(world)).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
}

export async function findProduct(db: Executor, id: string): Promise<ProductRow | undefined> {
  return db.selectFrom('products').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findToken(db: Executor, id: string): Promise<TokenRow | undefined> {
  return db.selectFrom('tokens').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findTagWorld(db: Executor, tagId: string): Promise<World | undefined> {
  const row = await db.selectFrom('tags').select(['team_id', 'mode']).where('id', '=', tagId).executeTakeFirst();
  return row && { teamId: row.team_id, mode: row.mode };
}

/** Sets the given links of a tag; a link not given (undefined) keeps its value, null clears it. */
export async function upsertTagLinks(
  db: Executor,
  rows: { tag_id: string; product_id?: string | null; token_id?: string | null; updated_at: number }[],
): Promise<void> {
  for (const row of rows) {
    const values: TagLinkRow = { tag_id: row.tag_id, product_id: row.product_id ?? null, token_id: row.token_id ?? null, updated_at: row.updated_at };
    await db
      .insertInto('tag_links')
      .values(values)
      .onConflict((oc) =>
        oc.column('tag_id').doUpdateSet({
          updated_at: row.updated_at,
          ...(row.product_id !== undefined ? { product_id: row.product_id } : {}),
          ...(row.token_id !== undefined ? { token_id: row.token_id } : {}),
        }),
      )
      .execute();
  }
}

export async function findTagLink(db: Executor, tagId: string): Promise<TagLinkRow | undefined> {
  return db.selectFrom('tag_links').selectAll().where('tag_id', '=', tagId).executeTakeFirst();
}

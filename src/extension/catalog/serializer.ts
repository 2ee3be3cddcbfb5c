import { isoMicros } from '../../time.js';
import type { HoldingRow } from '../holdings/repository.js';
import type { ProductRow, TokenRow } from './repository.js';
import { productView, tokenView } from './tag-links.js';

export function renderProduct(row: ProductRow) {
  const { id, ...attributes } = productView(row);
  return { type: 'products', id, attributes: { ...attributes, created_at: isoMicros(row.created_at) } };
}

export function renderToken(row: TokenRow) {
  const { id, ...attributes } = tokenView(row);
  return { type: 'tokens', id, attributes: { ...attributes, created_at: isoMicros(row.created_at) } };
}

export function renderHolding(row: HoldingRow) {
  return { type: 'holdings', id: row.address, attributes: { token_id: row.token_id, quantity: row.quantity, updated_at: isoMicros(row.updated_at) } };
}

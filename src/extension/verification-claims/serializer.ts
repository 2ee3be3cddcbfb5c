import type { ResourceObject } from '../../http/jsonapi.js';
import { isoMicros } from '../../time.js';
import type { ClaimRow } from '../repository.js';

export interface VerificationClaimAttributes {
  resource_url: string;
  note: string | null;
  created_at: string;
}

export function renderVerificationClaim(row: ClaimRow): ResourceObject<VerificationClaimAttributes> {
  return {
    type: 'claims',
    id: row.id,
    attributes: { resource_url: row.resource_url, note: row.note, created_at: isoMicros(row.created_at) },
  };
}

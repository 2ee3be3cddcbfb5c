import type { ResourceObject } from '../../http/jsonapi.js';
import { isoMicros } from '../../time.js';
import type { OwnershipProofRow } from './repository.js';

export interface OwnershipProofAttributes {
  verification_id: string;
  chain: 'cardano' | 'ethereum';
  wallet_address: string;
  token_id: string;
  verified_at: string;
  replaced_at: string | null;
}

/** A proof's id is the proof result's `request_id`. */
export function renderOwnershipProof(row: OwnershipProofRow): ResourceObject<OwnershipProofAttributes> {
  return {
    type: 'ownership-proofs',
    id: row.request_id,
    attributes: {
      verification_id: row.verification_id,
      chain: row.chain,
      wallet_address: row.wallet_address,
      token_id: row.token_id,
      verified_at: isoMicros(row.verified_at),
      replaced_at: row.replaced_at === null ? null : isoMicros(row.replaced_at),
    },
  };
}

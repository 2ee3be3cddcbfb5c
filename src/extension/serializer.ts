// The extension API's verification object (docs/extension.md#the-verification-object),
// also the shape of each claim in a claim list.
import type { Tamper } from '../chips/index.js';
import { isoMicros } from '../time.js';
import { tokenData } from './catalog/rules.js';
import type { ClaimRow, PublicVerificationRow } from './repository.js';
import { publicVerificationId, verificationUuid } from '../verifications/index.js';

export interface PublicVerification {
  id: string;
  verification_id: string;
  resource_url: string | null;
  note: string | null;
  verified_at: string;
  created_at: string;
  country: string | null;
  product: { id: string; name: string; image_url: string | null; description: string | null } | null;
  token: {
    data: Record<string, string | null>;
    name: string;
    symbol: string;
    blockchain_type: string;
    contract_address: string | null;
    supply: number;
  } | null;
  ownership: { status: string; wallet_address: string; verified_at: string } | null;
  /** TagTamper status of the scan, as on the platform's verification; null for chips without one. */
  tamper: Tamper;
}

/**
 * A verification alone: `id` is its UUID, `created_at` and `verified_at` the
 * scan's time, no URL. As a claim: `id` is the claim's UUID, `created_at`,
 * `resource_url` and `note` the claim's (docs/extension.md).
 */
export function renderPublicVerification(row: PublicVerificationRow, claim?: ClaimRow): PublicVerification {
  return {
    id: claim ? claim.id : verificationUuid(row.id),
    verification_id: publicVerificationId(row.id),
    resource_url: claim ? claim.resource_url : null,
    note: claim ? claim.note : null,
    verified_at: isoMicros(row.scanned_at),
    created_at: isoMicros(claim ? claim.created_at : row.scanned_at),
    country: row.country,
    product:
      row.product_id === null ? null : { id: row.product_id, name: row.product_name!, image_url: row.product_image_url, description: row.product_description },
    token:
      row.token_id === null
        ? null
        : {
            data: tokenData({
              chain: row.token_chain!,
              policy_id: row.token_policy_id,
              asset_name: row.token_asset_name,
              token_number: row.token_number,
              standard: row.token_standard,
            }),
            name: row.token_name!,
            symbol: row.token_symbol!,
            blockchain_type: row.token_chain!,
            contract_address: row.token_contract_address,
            supply: Number(row.token_supply),
          },
    ownership:
      row.ownership_status === null
        ? null
        : { status: row.ownership_status, wallet_address: row.ownership_wallet_address!, verified_at: isoMicros(row.ownership_verified_at!) },
    tamper: row.tamper_permanent === null ? null : { permanent: row.tamper_permanent, current: row.tamper_current! },
  };
}

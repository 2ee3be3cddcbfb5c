import type { Tamper } from '../chips/index.js';
import type { ResourceObject } from '../http/jsonapi.js';
import { isoMicros } from '../time.js';
import type { VerificationRow } from './repository.js';

export interface VerificationAttributes {
  genuine: boolean;
  reason: string;
  tag_id: string;
  read_counter: number | null;
  tamper: Tamper;
  session_id: string | null;
  scanned_at: string;
  country: string | null;
}

export function renderVerification(row: VerificationRow): ResourceObject<VerificationAttributes> {
  return {
    type: 'verifications',
    id: row.id,
    attributes: {
      genuine: row.genuine === 1,
      reason: row.reason,
      tag_id: row.tag_id,
      read_counter: row.read_counter,
      tamper: row.tamper_permanent === null ? null : ({ permanent: row.tamper_permanent, current: row.tamper_current } as Tamper),
      session_id: row.session_id,
      scanned_at: isoMicros(row.scanned_at),
      country: row.country,
    },
  };
}

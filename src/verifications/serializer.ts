import type { Tamper } from '../chips/index.js';
import type { ResourceObject } from '../http/jsonapi.js';
import { isoMicros } from '../time.js';
import { publicVerificationId } from './verification-ids.js';
import type { VerificationRow } from './repository.js';
import { signalsOf, type Signal } from '../signals/index.js';

export interface VerificationAttributes {
  genuine: boolean;
  reason: string;
  verification_id: string;
  tag_id: string;
  read_counter: number | null;
  tamper: Tamper;
  session_id: string | null;
  scanned_at: string;
  country: string | null;
  client_ip: string | null;
  signals: Signal[];
}

export function renderVerification(row: VerificationRow): ResourceObject<VerificationAttributes> {
  return {
    type: 'verifications',
    id: row.id,
    attributes: {
      genuine: row.genuine === 1,
      reason: row.reason,
      verification_id: publicVerificationId(row.id),
      tag_id: row.tag_id,
      read_counter: row.read_counter,
      tamper: row.tamper_permanent === null ? null : ({ permanent: row.tamper_permanent, current: row.tamper_current } as Tamper),
      session_id: row.session_id,
      scanned_at: isoMicros(row.scanned_at),
      country: row.country,
      client_ip: row.client_ip,
      signals: signalsOf(row.signals),
    },
  };
}

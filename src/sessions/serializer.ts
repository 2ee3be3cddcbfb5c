import type { ResourceObject } from '../http/jsonapi.js';
import { isoMicros } from '../time.js';
import type { SessionRow } from './repository.js';
import { sessionStatus, type SessionStatus } from './placement.js';

export interface SessionAttributes {
  status: SessionStatus;
  tag_id: string;
  opened_at: string;
  expires_at: string;
  verification_ids: string[];
}

export function renderSession(row: SessionRow, verificationIds: string[], now: number): ResourceObject<SessionAttributes> {
  return {
    type: 'sessions',
    id: row.id,
    attributes: {
      status: sessionStatus(row, verificationIds.length, now),
      tag_id: row.tag_id,
      opened_at: isoMicros(row.opened_at),
      expires_at: isoMicros(row.expires_at),
      verification_ids: verificationIds,
    },
  };
}

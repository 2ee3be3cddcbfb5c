// Sessions pair two taps of one tag (docs/decisions.md §5): a genuine scan opens a session
// that stays open `session_duration` seconds; a second genuine scan inside that
// window joins and completes it; after the window it is expired and the next
// genuine scan opens a new one. A session is completed exactly when it holds
// two scans, and expiry is a matter of time, so the status is derived when
// read rather than written by a background job.
// Pure: the verify path decides a scan's session with it, inside the tag's compare-and-set.
import { newId } from '../ids.js';
import type { World } from '../world.js';
import type { SessionRow } from './repository.js';

export type SessionStatus = 'open' | 'completed' | 'expired';

export function sessionStatus(row: SessionRow, scans: number, now: number): SessionStatus {
  if (scans >= 2) return 'completed';
  return now < row.expires_at ? 'open' : 'expired';
}

/** The tag's latest session as its chip row points to it (cleared once completed). */
export interface SessionPointer {
  session_id: string | null;
  session_expires_at: number | null;
}

/**
 * The session of a genuine first scan at `at`: the tag's open session, which
 * it completes, or a new one (returned in `opened`). Updates `pointer`. Callers
 * hold the tag's counter compare-and-set, so one tag's scans arrive one at a time.
 */
export function placeGenuineScan(
  world: World,
  tag: { id: string; session_duration: number },
  pointer: SessionPointer,
  at: number,
): { sessionId: string; opened: SessionRow | null } {
  if (pointer.session_id !== null && pointer.session_expires_at !== null && at < pointer.session_expires_at) {
    const sessionId = pointer.session_id;
    pointer.session_id = null;
    pointer.session_expires_at = null;
    return { sessionId, opened: null };
  }
  const opened: SessionRow = {
    id: newId('ses'),
    team_id: world.teamId,
    mode: world.mode,
    tag_id: tag.id,
    opened_at: at,
    expires_at: at + tag.session_duration * 1_000_000,
  };
  pointer.session_id = opened.id;
  pointer.session_expires_at = opened.expires_at;
  return { sessionId: opened.id, opened };
}

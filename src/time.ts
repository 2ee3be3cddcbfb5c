// Times are integer microseconds since the epoch everywhere below the API edge.

let last = 0;

/**
 * Current time in microseconds, strictly increasing within the process so that
 * two changes in one process never share an `updated_at`.
 */
export function nowMicros(): number {
  const now = Math.floor((performance.timeOrigin + performance.now()) * 1000);
  last = now > last ? now : last + 1;
  return last;
}

/**
 * Where a service reads the time: the context carries one (AppContext.clock), so that
 * tests can move time forward instead of sleeping. Readings are strictly increasing.
 */
export interface Clock {
  nowMicros(): number;
}

export const systemClock: Clock = { nowMicros };

/**
 * The latest time a client may set (a key's expiry): microseconds in a JS number are exact below 2^53
 * (June 2255), and a time past that would be stored rounded and shown as another (year 10000 for
 * 9999-12-31T23:59:59.999999Z). A round bound well inside it.
 */
export const LATEST_SETTABLE = '2200-01-01T00:00:00Z';
export const LATEST_SETTABLE_MICROS = Date.parse(LATEST_SETTABLE) * 1000;

/** `YYYY-MM-DDTHH:MM:SS.ffffffZ`, the API's timestamp shape (docs/architecture.md#engines). */
export function isoMicros(micros: number): string {
  const ms = Math.floor(micros / 1000);
  const base = new Date(ms).toISOString(); // ...SS.mmmZ
  const fraction = String(micros % 1_000_000).padStart(6, '0');
  return `${base.slice(0, 19)}.${fraction}Z`;
}

export function isoOrNull(micros: number | null): string | null {
  return micros === null ? null : isoMicros(micros);
}

// Scan sessions' front door: where a genuine scan falls (placement) and the session rows a scan commit writes.
// Other features import this feature only through this file (test/house/layers.unit.test.ts).
export { placeGenuineScan } from './placement.js';
export { insertSessions, type SessionRow } from './repository.js';

// The keys feature's front door: what other features may use of API keys.
// Other features import this feature only through this file (test/house/layers.unit.test.ts).
export { liveKeyModes } from './repository.js';

// The teams feature's front door: what other features may read of a team.
// Other features import this feature only through this file (test/house/layers.unit.test.ts).
export { findTeam, listTeamIds } from './repository.js';

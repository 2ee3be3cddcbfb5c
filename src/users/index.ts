// People's front door: what other features read of the team's people (a case's assignee).
// Other features import this feature only through this file (test/house/layers.unit.test.ts).
export { findUserInTeam } from './repository.js';

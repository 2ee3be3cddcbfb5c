// People's front door: what other features read of the team's people (a case's assignee), and the mails
// that carry their links.
// Other features import this feature only through this file (test/house/layers.unit.test.ts).
export { findUserInTeam } from './repository.js';
export { linkMails } from './mail.js';

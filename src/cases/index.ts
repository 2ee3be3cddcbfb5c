// Cases' front door (docs/cases.md): what other features read of a case, and its webhook events' bodies.
// Other features import this feature only through this file (test/house/layers.unit.test.ts).
export { findCase, type CaseRow } from './repository.js';
export { CaseOpenedEvent, CaseUpdatedEvent } from './schemas.js';
export { renderCase, type CaseAttributes } from './serializer.js';
export { getCase, type CaseView } from './service.js';
export { caseMails } from './mail.js';
export { caseDigest, type CaseDigest } from './digest-repository.js';

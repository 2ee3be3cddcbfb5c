// The tags feature's front door: tag rules, rows and lifecycle events other features use.
// Other features import this feature only through this file (test/house/layers.unit.test.ts).
export { recordTagEvents } from './events.js';
export { findTag, findTags } from './repository.js';
export { CREATABLE, LIMITS, PROTOCOLS, checkAttributes, type Protocol } from './rules.js';
export { renderTag } from './serializer.js';
export { configureTag, createTags, getTag, insertCheckedTags, markConfigured, recordConfigurationFailure } from './service.js';

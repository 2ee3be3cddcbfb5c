// The chip writer's front door: the readers and the relay the emulator's commands drive.
// Other features import this feature only through this file (test/house/layers.unit.test.ts).
export { loadCard, saveCard } from './cards.js';
export { LocalTransport } from './local.js';
export { WriterClient } from './relay.js';

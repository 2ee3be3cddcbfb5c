// Seeding many rows per statement: the test kit's series, shared so that benches and tests seed one way.
export { pad, series, utcDay } from '../../test/kit/seed.js';

// A fresh, empty database per bench run: the test harness's temp SQLite file or
// new PostgreSQL schema (dropped by `drop()`), so benches and tests share one way.
export { POSTGRES_URL, freshStorage, type DatabaseKind, type Storage } from '../../test/kit/harness.js';

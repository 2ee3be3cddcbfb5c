// A fresh, empty database per bench run: the test harness's temp SQLite file or
// new PostgreSQL schema (dropped by `drop()`), so benches and tests share one way.
export { freshStorage, type DatabaseKind, type Storage } from '../../test/harness.js';

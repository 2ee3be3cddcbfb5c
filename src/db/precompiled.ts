// Statements of a fixed shape run with many rows (the group commit's batches)
// are compiled by Kysely once per shape (table, columns, row count, dialect)
// instead of once per run (and a statement whose values are each one parameter,
// such as arrays PostgreSQL unnests, once per text): compiling a multi-row statement builds and walks a
// node per value, which costs more than running it. The shape is compiled with
// a marker in every value, which gives the SQL text and where each row's value
// goes among the parameters.
import { CompiledQuery, sql, type Compilable } from 'kysely';
import type { Executor } from './database.js';

const MARKER = '\u0000tapproof:';
const MAX_SHAPES = 2_000;

interface Shape {
  sql: string;
  /** For each parameter: row index * columns + column index. */
  slots: Int32Array;
}

const shapes = new Map<string, Shape | null>();

/**
 * A value Kysely turns into exactly one parameter whatever it is: not undefined
 * (column left out), not an array (a value list), not an expression (SQL).
 */
function plain(value: unknown): boolean {
  return (
    value !== undefined && (typeof value !== 'object' || value === null || value instanceof Uint8Array || value instanceof Date) && typeof value !== 'function'
  );
}

/** `?` or `$1`: tells the dialects apart without Kysely internals (compiling one value is cheap). */
function placeholder(db: Executor): string {
  return sql`${0}`.compile(db).sql;
}

/**
 * Runs `build(db, rows)` — a statement whose values are exactly the rows'
 * own properties (same keys on every row, plain values) — compiled once per shape.
 * `key` names the statement (one per call site). Rows of another shape run as built.
 */
export async function executeShaped<R extends object, O = unknown>(
  db: Executor,
  key: string,
  rows: R[],
  build: (db: Executor, rows: R[]) => Compilable<O>,
): Promise<O[]> {
  if (rows.length === 0) return [];
  const columns = Object.keys(rows[0]!) as (keyof R & string)[];
  for (const row of rows) {
    if (Object.keys(row).length !== columns.length || columns.some((c) => !plain(row[c]))) return (await db.executeQuery(build(db, rows).compile())).rows;
  }
  const id = `${key}\n${placeholder(db)}\n${rows.length}\n${columns.join(',')}`;
  let shape = shapes.get(id);
  if (shape === undefined) {
    shape = compileShape(db, rows.length, columns, build);
    if (shapes.size >= MAX_SHAPES) shapes.clear();
    shapes.set(id, shape);
  }
  if (shape === null) return (await db.executeQuery(build(db, rows).compile())).rows;
  const width = columns.length;
  const parameters = new Array<unknown>(shape.slots.length);
  for (let i = 0; i < shape.slots.length; i++) {
    const slot = shape.slots[i]!;
    parameters[i] = rows[(slot / width) | 0]![columns[slot % width]!];
  }
  return (await db.executeQuery<O>(CompiledQuery.raw(shape.sql, parameters))).rows;
}

/** The shape of `build` for `count` rows of `columns`, or null when its parameters are not exactly the values. */
function compileShape<R extends object>(
  db: Executor,
  count: number,
  columns: (keyof R & string)[],
  build: (db: Executor, rows: R[]) => Compilable<unknown>,
): Shape | null {
  const markers = Array.from({ length: count }, (_, r) => Object.fromEntries(columns.map((c, i) => [c, marker(r * columns.length + i)])) as R);
  return shapeOf(build(db, markers).compile(), count * columns.length);
}

const marker = (slot: number) => `${MARKER}${slot}`;

/** Where each of `values` markers went among the compiled parameters; null unless they are exactly those values. */
function shapeOf(compiled: CompiledQuery, values: number): Shape | null {
  const slots = new Int32Array(compiled.parameters.length);
  const seen = new Set<number>();
  for (let i = 0; i < compiled.parameters.length; i++) {
    const p = compiled.parameters[i];
    if (typeof p !== 'string' || !p.startsWith(MARKER)) return null;
    slots[i] = Number(p.slice(MARKER.length));
    seen.add(slots[i]!);
  }
  // Every value must reach the statement, or its text would depend on the values.
  return seen.size === values ? { sql: compiled.sql, slots } : null;
}

/**
 * Runs the statement `compile(values)` gives — one whose parameters are exactly `values`, each bound as one
 * parameter whatever it is (an array PostgreSQL unnests, say) — compiled once per `key` and count of values.
 */
export async function executeCompiledOnce<O = unknown>(
  db: Executor,
  key: string,
  values: unknown[],
  compile: (values: unknown[]) => CompiledQuery<O>,
): Promise<O[]> {
  const id = `${key}\n${placeholder(db)}\n#${values.length}`;
  let shape = shapes.get(id);
  if (shape === undefined) {
    shape = shapeOf(compile(values.map((_, i) => marker(i))), values.length);
    if (shape === null) throw new Error(`${key}: the statement binds values other than its own`);
    if (shapes.size >= MAX_SHAPES) shapes.clear();
    shapes.set(id, shape);
  }
  const parameters = Array.from(shape!.slots, (slot) => values[slot]);
  return (await db.executeQuery<O>(CompiledQuery.raw(shape!.sql, parameters))).rows;
}

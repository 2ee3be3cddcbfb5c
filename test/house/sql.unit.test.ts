// Where SQL lives (docs/architecture.md, "Where SQL lives"): a feature's statements are in its repository
// modules (`repository.ts`, or `<part>-repository.ts` beside the part that uses them), the kernel's in
// `db/`; services hold the rules and call them, and a route calls services, never a repository.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { basename, relative, sep } from 'node:path';
import { test } from 'node:test';
import { SRC, importsOf, sources } from './module-graph.js';

// Kysely's statement builders and its sql template tag: what issues SQL.
const STATEMENT = /\.(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto)\(|\bsql(`|<|\.(raw|lit|ref|id|join|val|table)\()/;

const isRepository = (file: string) => /^(.+-)?repository\.ts$/.test(basename(file));
const inKernelDb = (file: string) => relative(SRC, file).split(sep)[0] === 'db';
const isRoute = (file: string) =>
  relative(SRC, file)
    .split(sep)
    .some((part) => part === 'routes' || part === 'auth-routes');

test('only repository modules and db/ issue SQL', () => {
  const files = sources(SRC);
  const issuing = files.filter((file) => STATEMENT.test(readFileSync(file, 'utf8')));
  assert.ok(issuing.filter(isRepository).length >= 15, 'the check sees the repositories');
  assert.deepEqual(
    issuing.filter((file) => !isRepository(file) && !inKernelDb(file)).map((file) => relative(SRC, file)),
    [],
  );
});

test('a route imports no repository: it calls services', () => {
  const routes = sources(SRC).filter(isRoute);
  assert.ok(routes.length > 50, `read ${routes.length} route files`);
  const reaching = routes.flatMap((file) =>
    importsOf(file)
      .filter(isRepository)
      .map((target) => `${relative(SRC, file)} -> ${relative(SRC, target)}`),
  );
  assert.deepEqual(reaching, []);
});

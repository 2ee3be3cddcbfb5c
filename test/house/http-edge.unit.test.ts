// HTTP stays at the edge: the Fastify request and reply are known to routes, to src/http and to the few
// modules that install hooks, never to a service. A service takes plain values (a visitor's address, a
// session's token) and returns plain values (an opened session, whose cookie the route sets).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { relative, sep } from 'node:path';
import { test } from 'node:test';
import { SRC, sources } from './module-graph.js';

/** Where Fastify may be named: route folders, src/http, and the modules that install the app's hooks. */
const EDGE = [/^http\//, /\/routes\//, /\/auth-routes\//, /^app\.ts$/, /^metrics\.ts$/, /^extension\/http\.ts$/, /^verifications\/arrival-order\.ts$/];

test('no module below the HTTP edge imports Fastify', () => {
  const files = sources(SRC).map((file) => relative(SRC, file).split(sep).join('/'));
  const naming = files.filter((file) => /from 'fastify'|from "fastify"/.test(readFileSync(`${SRC}/${file}`, 'utf8')));
  assert.ok(naming.length > 20, `found ${naming.length} modules importing fastify`);
  assert.deepEqual(
    naming.filter((file) => !EDGE.some((edge) => edge.test(file))),
    [],
  );
});

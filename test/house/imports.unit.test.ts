// The module graph of src/ has no cycles, type-only imports included: a cycle means two
// modules that cannot be read, tested or moved one without the other.
import assert from 'node:assert/strict';
import { relative } from 'node:path';
import { test } from 'node:test';
import { SRC, importsOf, sources } from './module-graph.js';

/** Strongly connected components with more than one module (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do component.push((w = stack.pop()!));
      while (w !== v);
      if (component.length > 1) found.push(component.map((f) => relative(SRC, f)).sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

test('no import cycles in src/', () => {
  const graph = new Map(sources(SRC).map((file) => [file, importsOf(file)]));
  assert.ok(graph.size > 100, `read ${graph.size} modules`);
  assert.deepEqual(cycles(graph), []);
});

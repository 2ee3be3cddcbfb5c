// The building has three floors (docs/architecture.md, "Layers"): the kernel at the bottom
// (the database, config, clock, metrics, the group commit, and the pure chip, HTTP and
// secret modules), the features above it, each built from the kernel, and the
// composition root at the top, which assembles the features for serve, worker, the CLI
// and the commit thread. An import runs down or sideways, never up; a feature meets another
// only through that feature's front door (its index.ts), and no two features lean on each
// other, directly or around a circle.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { test } from 'node:test';
import { SRC, importsOf, sources } from './module-graph.js';

const KERNEL_FOLDERS = ['db', 'chips', 'http', 'secrets', 'geoip'];
const FEATURES = [
  'audit',
  'keys',
  'teams',
  'tags',
  'tag-chips',
  'master-keys',
  'sessions',
  'signals',
  'verifications',
  'cases',
  'webhooks',
  'extension',
  'writer',
  'emulator',
  'mail',
  'users',
];
const COMPOSITION = [
  'context.ts',
  'open-context.ts',
  'app.ts',
  'platform-routes.ts',
  'write-kinds.ts',
  'worker.ts',
  'server.ts',
  'cluster.ts',
  'cli.ts',
  'main.ts',
  'bootstrap.ts',
];

type Floor = 'kernel' | 'feature' | 'composition';
const RANK: Record<Floor, number> = { kernel: 0, feature: 1, composition: 2 };

function floorOf(path: string): Floor {
  const [head, ...rest] = path.split(sep);
  if (rest.length === 0) return COMPOSITION.includes(head!) ? 'composition' : 'kernel';
  if (KERNEL_FOLDERS.includes(head!)) return 'kernel';
  if (FEATURES.includes(head!)) return 'feature';
  throw new Error(`src/${head}/ is on no floor: add it to KERNEL_FOLDERS or FEATURES in test/house/layers.unit.test.ts`);
}

const imports = sources(SRC).flatMap((file) => importsOf(file).map((target) => ({ from: relative(SRC, file), to: relative(SRC, target) })));

test('every folder of src/ is on a floor', () => {
  const floors = new Set(imports.flatMap(({ from, to }) => [floorOf(from), floorOf(to)]));
  assert.equal(floors.size, 3);
});

test('the kernel imports no feature and nothing of the composition root', () => {
  const up = imports.filter(({ from, to }) => floorOf(from) === 'kernel' && floorOf(to) !== 'kernel').map(({ from, to }) => `${from} -> ${to}`);
  assert.deepEqual(up, []);
});

test('features import nothing of the composition root', () => {
  const up = imports.filter(({ from, to }) => floorOf(from) === 'feature' && floorOf(to) === 'composition').map(({ from, to }) => `${from} -> ${to}`);
  assert.deepEqual(up, []);
});

test('no import runs up a floor', () => {
  const up = imports.filter(({ from, to }) => RANK[floorOf(to)] > RANK[floorOf(from)]).map(({ from, to }) => `${from} -> ${to}`);
  assert.deepEqual(up, []);
});

/** The feature folder a file of src/ is in, or null outside the features. */
const featureOf = (path: string): string | null => {
  const [head, ...rest] = path.split(sep);
  return rest.length > 0 && FEATURES.includes(head!) ? head! : null;
};
const crossing = imports.filter(({ from, to }) => featureOf(from) !== null && featureOf(to) !== null && featureOf(from) !== featureOf(to));

test("a feature imports another only through that feature's front door (its index.ts)", () => {
  const inside = crossing.filter(({ to }) => to !== join(featureOf(to)!, 'index.ts')).map(({ from, to }) => `${from} -> ${to}`);
  assert.deepEqual(inside, []);
});

test('a front door opens onto its own feature only', () => {
  const through = imports
    .filter(({ from, to }) => featureOf(from) !== null && from === join(featureOf(from)!, 'index.ts') && featureOf(to) !== featureOf(from))
    .map(({ from, to }) => `${from} -> ${to}`);
  assert.deepEqual(through, []);
});

test('the features lean on each other without a circle: no two import each other, directly or around a loop', () => {
  const uses = new Map<string, Set<string>>(FEATURES.map((f) => [f, new Set<string>()]));
  for (const { from, to } of crossing) uses.get(featureOf(from)!)!.add(featureOf(to)!);
  const circles: string[] = [];
  const visit = (path: string[]) => {
    for (const next of uses.get(path.at(-1)!)!) {
      if (next === path[0]) circles.push([...path, next].join(' -> '));
      else if (!path.includes(next) && next > path[0]!) visit([...path, next]);
    }
  };
  for (const feature of FEATURES) visit([feature]);
  assert.deepEqual(circles, []);
  assert.ok(crossing.length > 40, 'the features still meet: the check sees their imports');
});

test('the layering sees the whole graph: each floor holds modules and imports run between them', () => {
  const floors = new Set(imports.map(({ from }) => floorOf(from)));
  assert.deepEqual([...floors].sort(), ['composition', 'feature', 'kernel']);
  assert.ok(imports.filter(({ from, to }) => floorOf(from) === 'composition' && floorOf(to) === 'feature').length > 20);
});

test("the module graph hides one leg only: the commit thread's import of the write kinds by the URL it is given", () => {
  // An import() of a computed specifier is a dependency no import line shows.
  const computed = sources(SRC)
    .filter((file) => /\bimport\((?!['"])/.test(readFileSync(file, 'utf8')))
    .map((file) => relative(SRC, file))
    .sort();
  // commit-thread.ts only spells the thread's own entry for tsx (a string it evaluates); commit-thread-main.ts
  // imports the module `createContext` names (WRITE_KINDS, src/write-kinds.ts).
  assert.deepEqual(computed, [join('db', 'commit-thread-main.ts'), join('db', 'commit-thread.ts')]);
});

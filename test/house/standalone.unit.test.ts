// The project stands alone: no file of it reads outside the repository (a sibling checkout such as the
// published vectors' is not there on a fresh clone; the copies the tests need are in test/fixtures/).
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';

const ROOT = join(import.meta.dirname, '../..');
const PLACES = ['src', 'test', 'bench', 'examples', 'bin', 'deploy', '.ci', ...readdirSync(join(ROOT, 'packages')).map((p) => join('packages', p, 'src'))];
const SOURCE = /\.(ts|tsx|js|mjs|cjs|sh)$|^run$/;

function files(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((e) =>
    e.name === 'node_modules' || e.name === 'dist' ? [] : e.isDirectory() ? files(join(dir, e.name)) : SOURCE.test(e.name) ? [join(dir, e.name)] : [],
  );
}

test('no file of the project names a path outside the repository', () => {
  const checked = PLACES.flatMap((place) => files(join(ROOT, place)));
  assert.ok(checked.length > 300, `read ${checked.length} files`);
  const outside = checked.flatMap((file) => {
    const text = readFileSync(file, 'utf8');
    // A relative path that climbs out of the checkout: more `../` than the file is deep, or the sibling `shared/`.
    const depth = relative(ROOT, file).split('/').length - 1;
    const climbs = [...text.matchAll(/['"`]((?:\.\.\/)+)([^'"`]*)['"`]/g)].filter((m) => m[1]!.length / 3 > depth);
    const shared = /\.\.\/shared\/|\/work\/shared/.test(text);
    return [...climbs.map((m) => `${relative(ROOT, file)}: ${m[0]}`), ...(shared ? [`${relative(ROOT, file)}: ../shared`] : [])];
  });
  assert.deepEqual(outside, []);
});

// The world map's parts that need no browser: the countries world-atlas draws, each under the ISO 3166-1
// alpha-2 code the API gives a country, and the shade of a country by its scans.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { STEPS, countryName, stepOf } from '../../packages/console/src/countries.js';
import { worldShapes } from '../../packages/console/src/world-shapes.js';

describe('worldShapes', () => {
  const { width, height, countries } = worldShapes();

  test('every country but two unrecognised ones is drawn under its alpha-2 code, once, inside the map', () => {
    assert.equal(width, 960);
    assert.ok(height > 300 && height < 600, `height ${height}`);
    assert.deepEqual(
      countries.filter((c) => c.code === null).map((c) => c.name),
      ['N. Cyprus', 'Somaliland'],
    );
    const codes = countries.flatMap((c) => (c.code === null ? [] : [c.code]));
    assert.equal(new Set(codes).size, codes.length);
    for (const code of ['DE', 'FR', 'US', 'JP', 'BR', 'AU', 'ZA', 'IN', 'CN', 'XK', 'EH']) assert.ok(codes.includes(code), code);
    // Antarctica is left out; countries too small for 1:110m are not there to draw.
    for (const code of ['AQ', 'SG', 'MT', 'HK']) assert.ok(!codes.includes(code), code);
    for (const country of countries) {
      assert.match(country.d, /^M[\d.,LMZ-]+$/, country.name);
      const numbers = country.d.match(/-?\d+(\.\d+)?/g)!.map(Number);
      const xs = numbers.filter((_, i) => i % 2 === 0);
      const ys = numbers.filter((_, i) => i % 2 === 1);
      assert.ok(Math.min(...xs) >= -1 && Math.max(...xs) <= width + 1, `${country.name} x`);
      assert.ok(Math.min(...ys) >= -1 && Math.max(...ys) <= height + 1, `${country.name} y`);
    }
  });

  test('Germany lies east of France and north of Spain; the shapes are projected once', () => {
    const box = (code: string) => {
      const numbers = countries
        .find((c) => c.code === code)!
        .d.match(/-?\d+(\.\d+)?/g)!
        .map(Number);
      const xs = numbers.filter((_, i) => i % 2 === 0);
      const ys = numbers.filter((_, i) => i % 2 === 1);
      return { x: (Math.min(...xs) + Math.max(...xs)) / 2, y: (Math.min(...ys) + Math.max(...ys)) / 2 };
    };
    assert.ok(box('DE').x > box('FR').x);
    assert.ok(box('DE').y < box('ES').y);
    assert.equal(worldShapes(), worldShapes());
  });
});

describe('stepOf and countryName', () => {
  test('no scans is no shade; the busiest country is the darkest; between them a log scale', () => {
    assert.equal(STEPS, 5);
    assert.deepEqual(
      [0, 1, 2, 5, 12, 40].map((n) => stepOf(n, 40)),
      [0, 1, 2, 3, 4, 5],
    );
    assert.equal(stepOf(1, 1), 5);
    assert.equal(stepOf(1_000_000, 1_000_000), 5);
  });

  test('a code reads as its English name, an unknown one as itself', () => {
    assert.deepEqual(['DE', 'US', 'XK', 'QQ'].map(countryName), ['Germany', 'United States', 'Kosovo', 'QQ']);
  });
});

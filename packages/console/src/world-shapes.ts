// The world's countries as SVG paths, from world-atlas (Natural Earth at 1:110m, public domain) projected
// by d3-geo: loaded on demand (components/world-map.tsx imports this module dynamically), so the map's
// data, about 100 kB, is a chunk of its own that only the pages with a map fetch, from our own server.
import { geoEqualEarth, geoPath } from 'd3-geo';
import { feature } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import codes from 'i18n-iso-countries/codes.json' with { type: 'json' };
import atlas from 'world-atlas/countries-110m.json' with { type: 'json' };

export interface CountryShape {
  /** ISO 3166-1 alpha-2, as the API gives a country; null for the few shapes without one (N. Cyprus, Somaliland). */
  code: string | null;
  /** Natural Earth's short name, for a shape without a code. */
  name: string;
  /** The path, in the map's coordinates. */
  d: string;
}

export interface WorldShapes {
  /** The map's coordinates: MAP_WIDTH wide, as high as the projection makes it. */
  width: number;
  height: number;
  countries: CountryShape[];
}

/** The width of the map's coordinates (the SVG scales to its box). */
export const MAP_WIDTH = 960;

/** ISO 3166-1 numeric ("276", as world-atlas keys a country) to alpha-2 ("DE"). */
const ALPHA_2 = new Map((codes as string[][]).map(([alpha2, , numeric]) => [numeric!, alpha2!]));
/** Natural Earth gives Kosovo no numeric code (ISO has none); the address databases say XK. */
const UNNUMBERED: Record<string, string> = { Kosovo: 'XK' };
/** Antarctica: no scans, and a third of the map's height. */
const LEFT_OUT = new Set(['010']);

let shapes: WorldShapes | null = null;

/** The countries projected once (Equal Earth: areas in proportion, so no country looks larger than it is). */
export function worldShapes(): WorldShapes {
  if (shapes) return shapes;
  const topology = atlas as unknown as Topology<{ countries: GeometryCollection<{ name: string }> }>;
  const all = feature(topology, topology.objects.countries).features.filter((f) => !LEFT_OUT.has(String(f.id)));
  const projection = geoEqualEarth().fitWidth(MAP_WIDTH, { type: 'FeatureCollection', features: all });
  const path = geoPath(projection).digits(1);
  const height = Math.ceil(path.bounds({ type: 'FeatureCollection', features: all })[1][1]);
  const countries = all.map((f) => {
    const name = f.properties.name;
    const code = f.id === undefined ? (UNNUMBERED[name] ?? null) : (ALPHA_2.get(String(f.id)) ?? null);
    return { code, name, d: path(f) ?? '' };
  });
  shapes = { width: MAP_WIDTH, height, countries };
  return shapes;
}

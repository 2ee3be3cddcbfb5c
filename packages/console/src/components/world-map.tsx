// Scans per country on a world map, and the same numbers in a table beside it: the map is a picture to a
// screen reader (an image named by what it shows), the table is what it reads. The map takes counts per ISO
// 3166-1 alpha-2 code and nothing else, so any page can draw its own (the Overview a window's scans, a case
// its scans). A country with scans is shaded by how many (five steps, darker for more) and outlined in the
// text colour; one with flagged scans is also hatched: neither needs colour to be told apart. Countries too
// small to draw at this scale are named under the map.
import { useEffect, useId, useMemo, useState } from 'preact/hooks';
import { STEPS, countryName, stepOf } from '../countries.ts';
import type { WorldShapes } from '../world-shapes.ts';
import { Head, TableRegion } from './ui.tsx';

export interface CountryCount {
  scans: number;
  /** Of these, the flagged ones; the table has no Flagged column when no country gives one. */
  flagged?: number;
}

/** Counts keyed by ISO 3166-1 alpha-2 code (DE), as the API gives a country. */
export type CountryCounts = Readonly<Record<string, CountryCount>>;

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export function WorldMap(props: {
  counts: CountryCounts;
  /** Scans of no known country: a row of the table, never on the map. */
  unknown?: CountryCount;
  /** The table's name ("Scans by country"); the map's name says it shows the same. */
  label: string;
}) {
  const { counts, unknown, label } = props;
  const hatch = `map-hatch-${useId()}`;
  const [shapes, setShapes] = useState<WorldShapes | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let live = true;
    import('../world-shapes.ts').then(
      (module) => live && setShapes(module.worldShapes()),
      () => live && setFailed(true),
    );
    return () => {
      live = false;
    };
  }, []);

  const rows = useMemo(
    () =>
      Object.entries(counts)
        .filter(([, count]) => count.scans > 0 || (count.flagged ?? 0) > 0)
        .sort(([a, x], [b, y]) => y.scans - x.scans || (a < b ? -1 : 1)),
    [counts],
  );
  const withFlagged = rows.some(([, count]) => count.flagged !== undefined) || unknown?.flagged !== undefined;
  const max = rows.reduce((most, [, count]) => Math.max(most, count.scans), 0);
  const flaggedCountries = rows.filter(([, count]) => (count.flagged ?? 0) > 0).length;
  const drawn = useMemo(() => new Set(shapes?.countries.map((c) => c.code)), [shapes]);
  const undrawn = shapes ? rows.filter(([code]) => !drawn.has(code)).map(([code]) => countryName(code)) : [];
  const summary =
    `Map of ${label.charAt(0).toLowerCase()}${label.slice(1)}: ${plural(rows.length, 'country', 'countries')} with scans` +
    (withFlagged ? `, ${flaggedCountries} of them with flagged scans` : '') +
    `. The numbers are in the table ${label}.`;

  return (
    <div class="world-map">
      {/* The hatching, for the map and its legend: a light line under a dark one shows on every shade. */}
      <svg class="map-defs" width="0" height="0" aria-hidden="true">
        <defs>
          <pattern id={hatch} width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
            <line x1="3" y1="0" x2="3" y2="6" class="hatch-under" />
            <line x1="3" y1="0" x2="3" y2="6" class="hatch-over" />
          </pattern>
        </defs>
      </svg>
      <figure class="map-figure">
        {shapes ? (
          <svg class="map" viewBox={`0 0 ${shapes.width} ${shapes.height}`} role="img" aria-label={summary}>
            {shapes.countries.map((shape, i) => {
              const count = shape.code === null ? undefined : counts[shape.code];
              const step = stepOf(count?.scans ?? 0, max);
              const flagged = (count?.flagged ?? 0) > 0;
              const name = shape.code === null ? shape.name : countryName(shape.code);
              return (
                <g key={shape.code ?? `${shape.name}-${i}`} data-country={shape.code ?? undefined}>
                  <path d={shape.d} class={step > 0 ? `country scanned step-${step}` : 'country'}>
                    <title>{count ? `${name}: ${plural(count.scans, 'scan', 'scans')}${flagged ? `, ${count.flagged} flagged` : ''}` : name}</title>
                  </path>
                  {flagged && <path d={shape.d} class="hatch" fill={`url(#${hatch})`} />}
                </g>
              );
            })}
          </svg>
        ) : (
          <p class={failed ? 'error' : 'muted map-loading'} role={failed ? 'alert' : 'status'}>
            {failed ? 'The map could not be loaded; the numbers are in the table.' : 'Loading the map…'}
          </p>
        )}
        <figcaption>
          <ul class="map-legend">
            <li>
              <svg viewBox="0 0 16 12" aria-hidden="true" class="swatch">
                <rect width="16" height="12" class="country" />
              </svg>
              No scans
            </li>
            <li>
              <span class="map-steps" aria-hidden="true">
                {Array.from({ length: STEPS }, (_, i) => (
                  <svg viewBox="0 0 16 12" class="swatch" key={i}>
                    <rect width="16" height="12" class={`country scanned step-${i + 1}`} />
                  </svg>
                ))}
              </span>
              Fewer to more scans{max > 0 ? ` (most: ${max})` : ''}
            </li>
            {withFlagged && (
              <li>
                <svg viewBox="0 0 16 12" aria-hidden="true" class="swatch">
                  <rect width="16" height="12" class="country scanned step-1" />
                  <rect width="16" height="12" class="hatch" fill={`url(#${hatch})`} />
                </svg>
                Hatched: flagged scans
              </li>
            )}
          </ul>
          {undrawn.length > 0 && <p class="muted">Too small to draw at this scale: {undrawn.join(', ')}.</p>}
        </figcaption>
      </figure>
      <TableRegion label={label}>
        <table>
          <Head columns={['Country', 'Scans', withFlagged && 'Flagged']} />
          <tbody>
            {rows.map(([code, count]) => (
              <tr key={code}>
                <th scope="row">
                  {countryName(code)} <span class="muted">({code})</span>
                </th>
                <td>{count.scans}</td>
                {withFlagged && <td>{count.flagged ?? 0}</td>}
              </tr>
            ))}
            {unknown && (unknown.scans > 0 || (unknown.flagged ?? 0) > 0) && (
              <tr>
                <th scope="row">Unknown</th>
                <td>{unknown.scans}</td>
                {withFlagged && <td>{unknown.flagged ?? 0}</td>}
              </tr>
            )}
          </tbody>
        </table>
      </TableRegion>
    </div>
  );
}

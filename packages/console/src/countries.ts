// Countries on screen: a code's English name, and the shade of a country on the world map
// (components/world-map.tsx) by its scans.

/** Shades of the map: a country's step is its scans on a log scale up to the busiest country's. */
export const STEPS = 5;

/** The shade (1 to STEPS) of `scans` among countries whose busiest has `max` scans; 0 for none. */
export function stepOf(scans: number, max: number): number {
  if (scans <= 0) return 0;
  if (max <= 1) return STEPS;
  return 1 + Math.round(((STEPS - 1) * Math.log(scans)) / Math.log(max));
}

const names = new Intl.DisplayNames(['en'], { type: 'region' });

/** A country's English name from its ISO 3166-1 alpha-2 code (the browser's own list); the code itself when it knows none. */
export function countryName(code: string): string {
  try {
    return names.of(code) ?? code;
  } catch {
    return code;
  }
}

// How a chip's SUN message sits in the URL it opens: which parameters carry
// which value, and which URL text the MAC covers (docs/decisions.md §4). Pure.
import type { Protocol } from './protocols.js';

export type Mirroring = 'encrypted' | 'plain' | 'sun';
export type Role = 'picc_data' | 'uid' | 'ctr' | 'enc' | 'cmac' | 'sun';

/** Role → parameter name in the URL. */
export type Params = Partial<Record<Role, string>>;

export interface ChipLayout {
  mirroring: Mirroring;
  params: Params;
  /** null: empty MAC input; else the MAC covers the URL text from this parameter's value up to the MAC value. */
  macInputFrom: Role | null;
}

/** The roles each mirroring uses: required, then optional. */
export const ROLES: Record<Mirroring, { required: Role[]; optional: Role[] }> = {
  encrypted: { required: ['picc_data', 'cmac'], optional: ['enc'] },
  plain: { required: ['uid', 'ctr', 'cmac'], optional: ['enc'] },
  sun: { required: ['sun'], optional: [] },
};

/** The layout stored on a chip row (`params` is its JSON text). */
export function storedLayout(row: { mirroring: Mirroring; params: string; mac_input_from: string | null }): ChipLayout {
  return { mirroring: row.mirroring, params: JSON.parse(row.params) as Params, macInputFrom: row.mac_input_from as Role | null };
}

/** The layout tapproof writes (and the emulator taps): `?picc_data=…[&enc=…]&cmac=…`, or `?sun=…`. */
export function defaultLayout(protocol: Protocol): ChipLayout {
  if (protocol === 'ntag_223_dna') return { mirroring: 'sun', params: { sun: 'sun' }, macInputFrom: null };
  if (protocol === 'ntag_424_dna_tag_tamper') {
    return { mirroring: 'encrypted', params: { picc_data: 'picc_data', enc: 'enc', cmac: 'cmac' }, macInputFrom: 'enc' };
  }
  return { mirroring: 'encrypted', params: { picc_data: 'picc_data', cmac: 'cmac' }, macInputFrom: null };
}

/** The SDM values of a scanned URL, read with a chip's layout. */
export interface SdmValues {
  values: Params;
  macInput: string;
}

function decode(text: string): string | null {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

// A chip's layout is one object for all its taps (the verifier keeps it with the chip), so the parameter
// names are indexed once per layout rather than on every tap.
const roleIndexes = new WeakMap<ChipLayout, Map<string, Role>>();
function rolesByName(layout: ChipLayout): Map<string, Role> {
  let byName = roleIndexes.get(layout);
  if (byName === undefined) {
    byName = new Map<string, Role>();
    for (const [role, name] of Object.entries(layout.params) as [Role, string][]) byName.set(name, role);
    roleIndexes.set(layout, byName);
  }
  return byName;
}

/** Whether a parameter name needs decoding at all (most do not). */
const ENCODED = /[%+]/;

/**
 * Reads the SDM part of a scanned URL (the text after the tag's url and its
 * `?`/`&` separator). It must consist of exactly the layout's parameters, each
 * once; anything else means this is not a URL this chip produced (null).
 * Values are taken verbatim (chips mirror plain hex, nothing to decode), and the
 * MAC input is cut from the exact text, as the chip computed it.
 */
export function readSdmPart(layout: ChipLayout, scanned: string, sdmStart: number): SdmValues | null {
  const part = scanned.slice(sdmStart);
  const byName = rolesByName(layout);
  const values: Params = {};
  const valueStart: Partial<Record<Role, number>> = {};
  let offset = sdmStart;
  for (const pair of part.split('&')) {
    const eq = pair.indexOf('=');
    const raw = eq < 0 ? null : pair.slice(0, eq);
    const name = raw === null || !ENCODED.test(raw) ? raw : decode(raw);
    const role = name === null ? undefined : byName.get(name);
    if (role === undefined || role in values) return null;
    values[role] = pair.slice(eq + 1);
    valueStart[role] = offset + eq + 1;
    offset += pair.length + 1;
  }
  for (const role of ROLES[layout.mirroring].required) if (!(role in values)) return null;
  if (layout.params.enc !== undefined && !('enc' in values)) return null;
  let macInput = '';
  if (layout.macInputFrom !== null) {
    const from = valueStart[layout.macInputFrom];
    const to = valueStart.cmac;
    if (from === undefined || to === undefined || from > to) return null;
    macInput = scanned.slice(from, to);
  }
  // Encrypted file data (the TT status) outside the MAC input would be unauthenticated: not this chip's URL.
  if (valueStart.enc !== undefined) {
    const from = layout.macInputFrom === null ? undefined : valueStart[layout.macInputFrom];
    if (from === undefined || valueStart.enc < from || valueStart.enc >= valueStart.cmac!) return null;
  }
  return { values, macInput };
}

/** The SDM parameters appended to a tag's url (the emulator's side of readSdmPart). */
export function appendSdm(url: string, layout: ChipLayout, values: Params): string {
  const order: Role[] = layout.mirroring === 'sun' ? ['sun'] : layout.mirroring === 'plain' ? ['uid', 'ctr', 'enc', 'cmac'] : ['picc_data', 'enc', 'cmac'];
  const pairs = order.filter((r) => values[r] !== undefined && layout.params[r] !== undefined).map((r) => `${layout.params[r]}=${values[r]}`);
  return url + (url.includes('?') ? '&' : '?') + pairs.join('&');
}

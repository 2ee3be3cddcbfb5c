// The extension API's names for a verification (docs/decisions.md §7): the
// verification_id `VRF_` plus the random part of the platform id `vrf_…`, and a
// UUID. The UUID is not stored: it is a version-4-shaped UUID whose 122 free bits
// are the first 122 of the platform id's 128 bits (its millisecond, then random
// bits: src/ids.ts). Reading a UUID back leaves 6 bits open, so a lookup asks for
// the 64 platform ids it may stand for (two ids of one millisecond sharing their
// first 122 bits: probability 2^-74 per pair).
import { base62 } from '../ids.js';

/** The verification_id's shape, for schemas as well as the check below. */
export const VRF_ID_PATTERN = '^VRF_[A-Za-z0-9]{6,128}$';
const VRF_ID = new RegExp(VRF_ID_PATTERN);
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const DIGITS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const MASK_62 = (1n << 62n) - 1n;
const PLATFORM_RANDOM = 22;

export const isVerificationId = (value: unknown): value is string => typeof value === 'string' && VRF_ID.test(value);
export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID.test(value);

/** `vrf_X` → `VRF_X`. */
export const publicVerificationId = (platformId: string) => `VRF_${platformId.slice(4)}`;

function toBytes(value: bigint): Uint8Array {
  const bytes = new Uint8Array(16);
  for (let i = 15; i >= 0; i--, value >>= 8n) bytes[i] = Number(value & 0xffn);
  return bytes;
}

function fromBase62(text: string): bigint {
  let value = 0n;
  for (const c of text) value = value * 62n + BigInt(DIGITS.indexOf(c));
  return value;
}

/** The verification's UUID (see above). */
export function verificationUuid(platformId: string): string {
  const random = fromBase62(platformId.slice(4)) >> 6n;
  const uuid = ((random >> 74n) << 80n) | (4n << 76n) | (((random >> 62n) & 0xfffn) << 64n) | (2n << 62n) | (random & MASK_62);
  const hex = uuid.toString(16).padStart(32, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The platform ids an extension path id may name: one for a `VRF_` id, 64 for
 * a UUID of ours, none for a well-formed id no verification can have. Null when
 * `value` is neither a `VRF_` id nor a UUID (400 Invalid verification ID format).
 */
export function platformIdsOf(value: string): string[] | null {
  if (VRF_ID.test(value)) return value.length === 4 + PLATFORM_RANDOM ? [`vrf_${value.slice(4)}`] : [];
  if (!UUID.test(value)) return null;
  const uuid = BigInt('0x' + value.replace(/-/g, ''));
  if (((uuid >> 76n) & 0xfn) !== 4n || ((uuid >> 62n) & 3n) !== 2n) return [];
  const random = ((uuid >> 80n) << 74n) | (((uuid >> 64n) & 0xfffn) << 62n) | (uuid & MASK_62);
  const ids: string[] = [];
  for (let low = 0n; low < 64n; low++) ids.push(`vrf_${base62(toBytes((random << 6n) | low), PLATFORM_RANDOM)}`);
  return ids;
}

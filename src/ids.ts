import { randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Big-endian 32-bit limbs of `bytes` (leading bytes of a length not a multiple of 4 form a short first limb). */
function limbsOf(bytes: Uint8Array): number[] {
  const limbs: number[] = [];
  const head = bytes.length % 4;
  let i = 0;
  if (head > 0) {
    let limb = 0;
    for (; i < head; i++) limb = limb * 256 + bytes[i]!;
    limbs.push(limb);
  }
  for (; i < bytes.length; i += 4) limbs.push(((bytes[i]! << 24) >>> 0) + (bytes[i + 1]! << 16) + (bytes[i + 2]! << 8) + bytes[i + 3]!);
  return limbs;
}

/**
 * Base62 of `bytes` (big-endian), left-padded with '0' to `length` characters.
 * Long division of 32-bit limbs by 62² (every partial stays below 2^44, exact in
 * a double), two digits per pass, no BigInt.
 */
export function base62(bytes: Uint8Array, length: number): string {
  const limbs = limbsOf(bytes);
  let out = '';
  let first = 0;
  while (first < limbs.length && limbs[first] === 0) first++;
  while (first < limbs.length) {
    let rem = 0;
    for (let i = first; i < limbs.length; i++) {
      const cur = rem * 4294967296 + limbs[i]!;
      const q = Math.floor(cur / 3844);
      rem = cur - q * 3844;
      limbs[i] = q;
    }
    while (first < limbs.length && limbs[first] === 0) first++;
    const hi = Math.floor(rem / 62);
    out = first < limbs.length || hi > 0 ? ALPHABET[hi]! + ALPHABET[rem - hi * 62]! + out : ALPHABET[rem - hi * 62]! + out;
  }
  return out.length >= length ? out : out.padStart(length, '0');
}

export type IdPrefix = 'team' | 'key' | 'tag' | 'ses' | 'vrf' | 'whk' | 'evt' | 'chp' | 'prd' | 'tok' | 'wrt' | 'aud' | 'usr' | 'uss' | 'case' | 'note' | 'mail';

// Random bytes are drawn 4 KiB at a time (one getrandom call per 256 ids).
const POOL_SIZE = 4096;
const pool = new Uint8Array(POOL_SIZE);
let poolOffset = POOL_SIZE;

function random16(): Uint8Array {
  if (poolOffset + 16 > POOL_SIZE) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const bytes = pool.subarray(poolOffset, poolOffset + 16);
  poolOffset += 16;
  return bytes;
}

/** `<prefix>_<22 base62>` from 128 random bits (docs/decisions.md §3). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${base62(random16(), 22)}`;
}

const timeOrdered = new Uint8Array(16);

/**
 * `<prefix>_<22 base62>` from 48 bits of milliseconds since the epoch then 80 random bits, as UUIDv7 does
 * (docs/decisions.md §3): ids made one after another sort by creation time, so an index on them grows at its
 * right edge instead of taking every insert on a random leaf. For verification and audit event ids only, whose time is public
 * anyway; 80 random bits keep them unguessable. `nowMs` comes from the service's clock (test/house/clock.unit.test.ts).
 */
export function newTimeOrderedId(prefix: IdPrefix, nowMs: number): string {
  // 2^48 ms runs to the year 10889; the top 16 bits come from a division (bitwise operators stop at 32 bits).
  const high = Math.floor(nowMs / 4294967296);
  const low = nowMs - high * 4294967296;
  timeOrdered[0] = high >>> 8;
  timeOrdered[1] = high;
  timeOrdered[2] = low >>> 24;
  timeOrdered[3] = low >>> 16;
  timeOrdered[4] = low >>> 8;
  timeOrdered[5] = low;
  timeOrdered.set(random16().subarray(0, 10), 6);
  return `${prefix}_${base62(timeOrdered, 22)}`;
}

/** Whether `value` has the shape of an id with `prefix`; says nothing about existence. */
export function isId(prefix: IdPrefix, value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.length === prefix.length + 23 &&
    value.startsWith(`${prefix}_`) &&
    /^[0-9A-Za-z]{22}$/.test(value.slice(prefix.length + 1))
  );
}

import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Base62 of `bytes` (big-endian), left-padded with '0' to `length` characters. */
export function base62(bytes: Uint8Array, length: number): string {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  let out = '';
  while (n > 0n) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out.padStart(length, '0');
}

export type IdPrefix = 'team' | 'key' | 'tag' | 'ses' | 'vrf' | 'whk' | 'evt' | 'chp' | 'prd' | 'tok';

/** `<prefix>_<22 base62>` from 128 random bits (DESIGN §3). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${base62(randomBytes(16), 22)}`;
}

/** Whether `value` has the shape of an id with `prefix`; says nothing about existence. */
export function isId(prefix: IdPrefix, value: unknown): value is string {
  return typeof value === 'string' && value.length === prefix.length + 23 && value.startsWith(`${prefix}_`) && /^[0-9A-Za-z]{22}$/.test(value.slice(prefix.length + 1));
}

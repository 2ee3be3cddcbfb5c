// Hex text <-> bytes. SUN parameters arrive as URL text, so decoding is strict: Buffer.from(s, 'hex')
// silently stops at the first bad character, which would let "ABZZ" pass as one byte.

const HEX_RE = /^[0-9A-Fa-f]*$/;

/** True when `s` is a string of exactly `chars` hex digits (either case). */
export function isHex(s: unknown, chars: number): s is string {
  return typeof s === 'string' && s.length === chars && HEX_RE.test(s);
}

/** Bytes of an even-length hex string (either case), or null when it is not one. */
export function hexToBytes(s: unknown): Buffer | null {
  if (typeof s !== 'string' || s.length % 2 !== 0 || !HEX_RE.test(s)) return null;
  return Buffer.from(s, 'hex');
}

/** Like hexToBytes, for trusted constants and test data: throws on bad input. */
export function fromHex(s: string): Buffer {
  const b = hexToBytes(s);
  if (b === null) throw new TypeError(`not an even-length hex string: ${JSON.stringify(s)}`);
  return b;
}

/** Upper-case hex, the form the chips mirror into URLs. */
export function toHex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex').toUpperCase();
}

/** A Buffer view over the same memory (no copy), so node:crypto accepts any Uint8Array. */
export function asBuffer(b: Uint8Array): Buffer {
  return Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

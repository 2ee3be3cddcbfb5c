// Hex and UTF-8 in the forms wallets exchange them: CIP-30 payloads and addresses are bare hex,
// EIP-1193 data is 0x-prefixed.

export const toHex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/** Bare or 0x-prefixed hex → bytes; null when it is not whole bytes of hex. */
export function fromHex(text: unknown): Uint8Array | null {
  if (typeof text !== 'string') return null;
  const digits = text.startsWith('0x') || text.startsWith('0X') ? text.slice(2) : text;
  if (!/^(?:[0-9a-fA-F]{2})*$/.test(digits)) return null;
  return Uint8Array.from(digits.match(/../g) ?? [], (b) => parseInt(b, 16));
}

/** A secret key given as hex or bytes, checked for its length. */
export function secretBytes(key: string | Uint8Array, what: string): Uint8Array {
  const bytes = typeof key === 'string' ? fromHex(key) : key;
  if (!(bytes instanceof Uint8Array) || bytes.length !== 32) throw new TypeError(`${what} must be 32 bytes (64 hex digits)`);
  return Uint8Array.from(bytes);
}

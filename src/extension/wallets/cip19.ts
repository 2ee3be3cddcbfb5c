// Cardano Shelley addresses (CIP-19): bech32 text, header byte, and the key
// credential a CIP-30 signature must be bound to. Pure.
import { bech32 } from '@scure/base';

/** What a verification key can stand for: a payment key (base, pointer, enterprise) or a stake key (reward). */
export type CredentialRole = 'payment' | 'stake';

export interface ShelleyAddress {
  bytes: Uint8Array;
  /** CIP-19 header type, 0–15 (the high nibble). */
  type: number;
  /** 1 mainnet, 0 the test networks (the low nibble). */
  networkId: number;
  /**
   * The key hash a signing key must match, or null when the address is bound to a
   * script (types 1, 3, 5, 7, 15: no key can sign for it) or is not Shelley.
   */
  keyHash: Uint8Array | null;
  role: CredentialRole | null;
}

// Types whose first credential is a key hash: base (0, 2), pointer (4), enterprise (6), reward (14).
const KEY_CREDENTIAL: Record<number, CredentialRole> = { 0: 'payment', 2: 'payment', 4: 'payment', 6: 'payment', 14: 'stake' };
// Bytes after the header per type: base 56, pointer ≥ 29, enterprise and reward 28.
const LENGTH: Record<number, (n: number) => boolean> = {
  0: (n) => n === 57,
  1: (n) => n === 57,
  2: (n) => n === 57,
  3: (n) => n === 57,
  4: (n) => n >= 32,
  5: (n) => n >= 32,
  6: (n) => n === 29,
  7: (n) => n === 29,
  14: (n) => n === 29,
  15: (n) => n === 29,
};

function prefixFor(type: number, networkId: number): string {
  const stake = type === 14 || type === 15;
  return (stake ? 'stake' : 'addr') + (networkId === 1 ? '' : '_test');
}

/** Header + credentials from raw address bytes; null when they are not a Shelley address. */
export function parseAddressBytes(bytes: Uint8Array): ShelleyAddress | null {
  if (bytes.length === 0) return null;
  const type = bytes[0]! >> 4;
  const networkId = bytes[0]! & 0x0f;
  const lengthOk = LENGTH[type];
  if (!lengthOk || !lengthOk(bytes.length) || (networkId !== 0 && networkId !== 1)) return null;
  const role = KEY_CREDENTIAL[type] ?? null;
  return { bytes, type, networkId, keyHash: role ? bytes.slice(1, 29) : null, role };
}

/** A bech32 Shelley address (addr…, addr_test…, stake…, stake_test…) whose prefix matches its header; null otherwise. */
export function parseAddress(text: string): ShelleyAddress | null {
  let decoded: { prefix: string; words: number[] };
  try {
    // Addresses are longer than bech32's 90-character default limit.
    decoded = bech32.decode(text as `${string}1${string}`, 1023);
  } catch {
    return null;
  }
  const parsed = parseAddressBytes(Uint8Array.from(bech32.fromWords(decoded.words)));
  if (!parsed || decoded.prefix !== prefixFor(parsed.type, parsed.networkId)) return null;
  return parsed;
}

/** The bech32 text of raw address bytes (the prefix follows from the header). */
export function encodeAddress(address: ShelleyAddress): string {
  return bech32.encode(prefixFor(address.type, address.networkId), bech32.toWords(address.bytes), 1023);
}

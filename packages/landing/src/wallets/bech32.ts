// Cardano addresses as bech32 (CIP-19), to match the hex addresses a CIP-30 wallet gives with the
// bech32 `expected_holders` of a challenge. BIP-173 encoding, no length limit (Cardano's addresses
// are longer than Bitcoin's 90 characters).

const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const GENERATOR = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];

function polymod(values: number[]): number {
  let chk = 1;
  for (const value of values) {
    const top = chk >> 25;
    chk = ((chk & 0x1ffffff) << 5) ^ value;
    for (let i = 0; i < 5; i++) if ((top >> i) & 1) chk ^= GENERATOR[i]!;
  }
  return chk;
}

export function bech32Encode(prefix: string, bytes: Uint8Array): string {
  const words: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const byte of bytes) {
    acc = (acc << 8) | byte;
    bits += 8;
    for (; bits >= 5; bits -= 5) words.push((acc >> (bits - 5)) & 31);
  }
  if (bits > 0) words.push((acc << (5 - bits)) & 31);
  const codes = [...prefix].map((c) => c.charCodeAt(0));
  const mod = polymod([...codes.map((c) => c >> 5), 0, ...codes.map((c) => c & 31), ...words, 0, 0, 0, 0, 0, 0]) ^ 1;
  const checksum = [25, 20, 15, 10, 5, 0].map((shift) => (mod >> shift) & 31);
  return `${prefix}1${[...words, ...checksum].map((w) => CHARSET[w]).join('')}`;
}

/** A Shelley address in hex (as CIP-30 wallets give them) → bech32; anything else is returned as is. */
export function cardanoBech32(address: string): string {
  if (!/^([0-9a-fA-F]{2}){29,}$/.test(address)) return address;
  const bytes = new Uint8Array(address.match(/../g)!.map((b) => parseInt(b, 16)));
  const type = bytes[0]! >> 4;
  if (type > 7 && type !== 14 && type !== 15) return address; // Byron and unknown headers have no bech32 form
  const testnet = (bytes[0]! & 15) === 0 ? '_test' : '';
  return bech32Encode((type >= 14 ? 'stake' : 'addr') + testnet, bytes);
}

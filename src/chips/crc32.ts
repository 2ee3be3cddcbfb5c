// CRC32 as NTAG 424 DNA uses it in ChangeKey (NT4H2421Gx section 10.6.1; AN12196 Table 26): the
// IEEE 802.3 polynomial (reflected 0xEDB88320), preset 0xFFFFFFFF, but WITHOUT the final inversion,
// i.e. the bitwise NOT of the usual CRC-32. Sent least significant byte first.

const TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC32NK as a number (no final XOR). */
export function crc32nkValue(data: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < data.length; i++) c = TABLE[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
  return c >>> 0;
}

/** CRC32NK as the 4 bytes sent on the wire (LSB first). */
export function crc32nk(data: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(4);
  out.writeUInt32LE(crc32nkValue(data), 0);
  return out;
}

// Loads the published vector files copied verbatim into test/fixtures/vectors (sources inside each).
import { readFileSync } from 'node:fs';

export function loadVectors<T = any>(name: string): T {
  const url = new URL(`../fixtures/vectors/${name}`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')) as T;
}

export function hex(s: string): Buffer {
  if (s.length % 2 !== 0 || !/^[0-9A-Fa-f]*$/.test(s)) throw new Error(`bad hex in test data: ${s}`);
  return Buffer.from(s, 'hex');
}

export function upper(b: Uint8Array): string {
  return Buffer.from(b).toString('hex').toUpperCase();
}

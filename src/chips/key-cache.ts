// A bounded FIFO cache of objects built from key bytes (an expanded AES or LRP key),
// content-addressed so that mutating the caller's array later is harmless. Bounded
// so that no input can grow memory.
import { asBuffer } from './hex.js';

export function keyCache<T>(limit: number, build: (key: Uint8Array) => T): (key: Uint8Array) => T {
  const cache = new Map<string, T>();
  return (key) => {
    const id = asBuffer(key).toString('latin1');
    let value = cache.get(id);
    if (value === undefined) {
      value = build(key);
      if (cache.size >= limit) {
        const oldest = cache.keys().next();
        if (!oldest.done) cache.delete(oldest.value);
      }
      cache.set(id, value);
    }
    return value;
  };
}

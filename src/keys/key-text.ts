import { hash, randomBytes } from 'node:crypto';
import { base62 } from '../ids.js';
import type { Mode } from '../db/schema.js';

const PREFIX: Record<Mode, string> = { sandbox: 'tp_sandbox_', production: 'tp_live_' };
const KEY_SHAPE = /^tp_(sandbox|live)_[0-9A-Za-z]{32}$/;

/** `tp_sandbox_<32 base62>` / `tp_live_<32 base62>` (docs/decisions.md §3), from 190 random bits. */
export function newKeyText(mode: Mode): string {
  return PREFIX[mode] + base62(randomBytes(24), 32).slice(-32);
}

/** The mode a key's text claims, or null when the text is not a key at all. */
export function modeOfKeyText(text: string): Mode | null {
  const m = KEY_SHAPE.exec(text);
  if (!m) return null;
  return m[1] === 'live' ? 'production' : 'sandbox';
}

/**
 * Keys are stored only as SHA-256. A fast hash is right here (unlike passwords):
 * the key carries 190 random bits, so there is nothing to brute-force.
 */
export function hashKeyText(text: string): string {
  // The one-shot hash: every request pays it, and a Hash object costs more than the digest itself.
  return hash('sha256', text, 'hex');
}

// Passwords, hashed with Node's scrypt (memory-hard; no native addon to build): `scrypt$<logN>$<r>$<p>$<salt>$<hash>`,
// base64url, so that the cost can rise later and older hashes still verify with the cost they name.
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { DISPLAY_CONTROLS, WELL_FORMED, codePoints, isDisplayable, isWellFormed } from '../http/text-rules.js';
import { COMMON_PASSWORDS } from './common-passwords.js';

const LOG_N = 15;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
/** 128 × N × r bytes, with room: scrypt refuses a cost above its memory cap (32 MiB by default). */
const MAX_MEMORY = 64 * 1024 * 1024;

export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 256;

function derive(password: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, { N: 2 ** logN, r, p, maxmem: MAX_MEMORY }, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(password, salt, LOG_N, R, P);
  return ['scrypt', LOG_N, R, P, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

/** Whether `password` is the one `stored` was made from; a malformed hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, logN, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), Number(logN), Number(r), Number(p));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

// An account without a password costs the same scrypt as one with: the time of an answer names no account.
let decoy: Promise<string> | null = null;
export async function spendDecoy(password: string): Promise<void> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'));
  await verifyPassword(password, await decoy);
}

/**
 * Whether `password` is longer than any password that may be set: one so long is refused unread, before
 * it costs scrypt (or, counted by code point, a walk over megabytes). A code point is one or two UTF-16 units.
 */
export function passwordTooLong(password: string): boolean {
  return password.length > 2 * PASSWORD_MAX || (password.length > PASSWORD_MAX && codePoints(password) > PASSWORD_MAX);
}

/** Why a new password is refused; null when it is acceptable. Each refusal names its rule (docs/users.md#passwords). */
export function passwordProblem(password: unknown): string | null {
  if (typeof password !== 'string') return 'password must be a string';
  if (passwordTooLong(password)) return `password must be at most ${PASSWORD_MAX} characters`;
  // A password is typed: a control character or a bidirectional override is a paste accident or a trick
  // that a person could not type again, and a lone surrogate would reach scrypt as U+FFFD, like any other.
  if (!isDisplayable(password)) return `password ${DISPLAY_CONTROLS}`;
  if (!isWellFormed(password)) return `password ${WELL_FORMED}`;
  const characters = [...password];
  if (characters.length < PASSWORD_MIN) return `password must be at least ${PASSWORD_MIN} characters`;
  if (/^\s+$/u.test(password)) return 'password must not be only whitespace';
  if (characters.every((c) => c === characters[0])) return 'password must not be one character repeated';
  if (COMMON_PASSWORDS.has(password.normalize('NFC').toLowerCase())) return 'password must not be a commonly used password';
  return null;
}

// The opaque tokens of sessions and one-time links: 256 random bits, base64url; only their SHA-256 is stored,
// so a copy of the database opens no session and redeems no link.
import { createHash, randomBytes } from 'node:crypto';

export const newToken = (): string => randomBytes(32).toString('base64url');

export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/** Whether `value` has a token's shape (43 base64url characters): anything else is refused unread. */
export const isToken = (value: unknown): value is string => typeof value === 'string' && /^[A-Za-z0-9_-]{43}$/.test(value);

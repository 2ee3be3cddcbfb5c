// What a user's fields may hold: one table validates the API's documents (422 naming each field) and
// publishes their schemas (src/users/schemas.ts); the CLI checks its options with the same rules.
import { Type } from '@sinclair/typebox';
import type { Role } from '../db/schema.js';
import type { FieldRule } from '../http/field-rules.js';
import { textProblem } from '../http/text-rules.js';

/** A user's role: a key's, less `verify` (a landing page's backend is not a person). */
export const USER_ROLES = ['admin', 'write', 'read'] as const satisfies readonly Role[];
export type UserRole = (typeof USER_ROLES)[number];

export const isUserRole = (value: unknown): value is UserRole => typeof value === 'string' && (USER_ROLES as readonly string[]).includes(value);

export const EMAIL_MAX = 254;

/** The address as stored and compared: trimmed and lower-cased (one account per mailbox). */
export const normalEmail = (email: string): string => email.trim().toLowerCase();

// An address is shown to people (Users, the audit log) and compared as typed: a control character, a
// bidirectional override or an invisible one (U+200B) would make two addresses look alike, and NUL is
// refused by PostgreSQL. Control (Cc), format (Cf), private-use, unassigned and separator characters.
const INVISIBLE = /[\p{C}\p{Z}]/u;
export const EMAIL_CHARACTERS = 'email must not contain spaces, control, format or invisible characters (such as U+0000, U+200B or U+202E)';

/** Why an address is refused; null when it has a mailbox's shape. Delivery is the admin's to check. */
export function emailProblem(email: unknown): string | null {
  if (typeof email !== 'string') return 'email must be a string';
  const normal = normalEmail(email);
  if (normal.length > EMAIL_MAX) return `email must be at most ${EMAIL_MAX} characters`;
  const unpaired = textProblem('email', normal);
  if (unpaired) return unpaired;
  if (INVISIBLE.test(normal)) return EMAIL_CHARACTERS;
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(normal)) return 'email must be an address such as ana@example.com';
  return null;
}

/** How long an invite or reset link works. */
export const LINK_HOURS = 72;

export const INVITABLE = ['email', 'role'] as const;
export const UPDATABLE = ['role', 'disabled'] as const;

export const ATTRIBUTES = {
  email: { schema: Type.String({ maxLength: EMAIL_MAX, description: 'Lower-cased; one account per address across the deployment' }), explain: emailProblem },
  role: {
    schema: Type.Union(
      USER_ROLES.map((r) => Type.Literal(r)),
      { description: "admin: everything, users and keys included; write: everything but users and keys; read: look only. A key's roles, less verify" },
    ),
    explain: (value: unknown) => (isUserRole(value) ? null : `role must be one of ${USER_ROLES.join(', ')}`),
  },
  disabled: {
    schema: Type.Boolean({ description: 'true: the user cannot sign in and every session ends; false: enabled again' }),
    explain: (value: unknown) => (typeof value === 'boolean' ? null : 'disabled must be true or false'),
  },
} satisfies Record<string, FieldRule>;

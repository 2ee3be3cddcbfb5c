import type { ResourceObject } from '../http/jsonapi.js';
import { isoMicros, isoOrNull } from '../time.js';
import type { UserRow } from './repository.js';
import type { IssuedLink } from './service.js';

/** A user as the API shows them: whether they have a password, never its hash; a link only where it was made (null: emailed). */
export function renderUser(user: UserRow, passkeys: number, link?: IssuedLink | null): ResourceObject<Record<string, unknown>> {
  return {
    type: 'users',
    id: user.id,
    attributes: {
      team_id: user.team_id,
      email: user.email,
      role: user.role,
      created_at: isoMicros(user.created_at),
      disabled_at: isoOrNull(user.disabled_at),
      last_sign_in_at: isoOrNull(user.last_sign_in_at),
      password: user.password_hash !== null,
      passkeys,
      single_sign_on: user.oidc_subject !== null,
      ...(link === undefined ? {} : { link: linkOf(user, link) }),
    },
  };
}

const linkOf = (user: UserRow, link: IssuedLink | null) =>
  link === null ? { url: null, expires_at: null, emailed_to: user.email } : { url: link.url, expires_at: isoMicros(link.expiresAt), emailed_to: null };

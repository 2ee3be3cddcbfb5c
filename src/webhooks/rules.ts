// The value rules of webhook attributes (docs/decisions.md §6). One table serves
// validation (422 with a path per failed attribute) and the OpenAPI schema of the
// request documents (src/webhooks/schemas.ts composes them from ATTRIBUTES).
import { isIP } from 'node:net';
import { Type } from '@sinclair/typebox';
import type { Config } from '../config.js';
import { EVENT_TYPES } from './event-types.js';
import type { Explanation, FieldRule } from '../http/field-rules.js';
import { codePoints, textProblem } from '../http/text-rules.js';
import { refusedBecause } from './address.js';

export const URL_MAX = 2048;

export const CREATABLE = ['url', 'events'] as const;
export const MUTABLE = ['url', 'events', 'enabled', 'rotate_secret'] as const;

/** What the url rule depends on: the operator's choices about targets. */
export type WebhookTargets = Pick<Config, 'allowHttpWebhooks' | 'allowPrivateWebhooks'>;

// The loopback names of RFC 6761 and of Debian's and Red Hat's /etc/hosts.
const LOOPBACK_NAMES = new Set(['localhost', 'localhost.localdomain', 'localhost6', 'localhost6.localdomain6', 'ip6-localhost', 'ip6-loopback']);

/** Whether a host name (lowercase, as the URL parser gives it, without trailing dots) names this machine. */
const isLoopbackName = (host: string): boolean => LOOPBACK_NAMES.has(host) || host.endsWith('.localhost');

function explainUrl(value: unknown, targets: WebhookTargets): string | null {
  if (typeof value !== 'string' || value.length === 0) return 'url must be a non-empty string';
  if (codePoints(value) > URL_MAX) return `url must be at most ${URL_MAX} characters`;
  // Before parsing: the URL parser silently drops tab and newline, which would hide them.
  const text = textProblem('url', value);
  if (text) return text;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'url must be an absolute URL';
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && targets.allowHttpWebhooks)) {
    return targets.allowHttpWebhooks
      ? 'url must use https or http'
      : 'url must use https (TAPPROOF_ALLOW_HTTP_WEBHOOKS=true allows http for local development)';
  }
  if (url.username || url.password) return 'url must not contain credentials';
  // Trailing dots name the same host to a resolver (`localhost.` is `localhost`, fully qualified, and
  // `localhost..` resolves there too).
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.+$/, '');
  // Names are judged again at every delivery (DNS changes); literals and loopback names can be refused now.
  if (!targets.allowPrivateWebhooks) {
    const why = isLoopbackName(host) ? 'loopback' : isIP(host) ? refusedBecause(host) : null;
    if (why) return `url must not point to a ${why} address (TAPPROOF_ALLOW_PRIVATE_WEBHOOKS=true allows it for local development)`;
  }
  return null;
}

function explainEvents(value: unknown): Explanation {
  if (!Array.isArray(value) || value.length === 0) return `events must be a non-empty list of: ${EVENT_TYPES.join(', ')}`;
  const problems = value.flatMap((kind, i) => {
    if (typeof kind !== 'string' || !(EVENT_TYPES as readonly string[]).includes(kind))
      return [{ path: `events/${i}`, detail: `unknown event kind; one of ${EVENT_TYPES.join(', ')}` }];
    return value.indexOf(kind) !== i ? [{ path: `events/${i}`, detail: `${kind} is listed twice` }] : [];
  });
  return problems.length > 0 ? problems : null;
}

const flag = (name: string) => (value: unknown) => (typeof value === 'boolean' ? null : `${name} must be true or false`);

export const ATTRIBUTES = {
  url: {
    schema: Type.String({
      minLength: 1,
      maxLength: URL_MAX,
      description: 'https (http only where the operator allows it); private and loopback targets are refused',
    }),
    explain: explainUrl,
  },
  events: {
    schema: Type.Array(Type.Union(EVENT_TYPES.map((k) => Type.Literal(k))), {
      minItems: 1,
      uniqueItems: true,
      description: 'Event kinds to receive; the four tag events when omitted at creation (verification.flagged only when listed)',
    }),
    explain: explainEvents,
  },
  enabled: { schema: Type.Boolean(), explain: flag('enabled') },
  rotate_secret: {
    schema: Type.Boolean({ description: 'true: issue a new secret (returned once); the old one keeps signing for 24 hours' }),
    explain: flag('rotate_secret'),
  },
} satisfies Record<(typeof MUTABLE)[number], FieldRule<any, WebhookTargets>>;

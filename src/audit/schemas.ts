import { Type } from '@sinclair/typebox';
import { KeysetQuery, Links, enumOf } from '../http/query.js';
import { Timestamp, resourceOf } from '../http/schemas.js';
import { AUDIT_OPERATIONS } from './operations.js';

const ISO = 'ISO 8601 date (2026-01-31) or time with offset (2026-01-31T12:00:00Z)';
const Nullable = (t: ReturnType<typeof Type.String>) => Type.Union([t, Type.Null()]);

export const AuditOperation = Type.Unsafe<(typeof AUDIT_OPERATIONS)[number]>({
  type: 'string',
  enum: [...AUDIT_OPERATIONS],
  description: 'What was done, as <resource>.<verb>',
});

export const AuditEvent = resourceOf(
  'audit-events',
  Type.Object({
    occurred_at: Timestamp,
    actor: Type.Object(
      {
        type: enumOf(['key', 'user', 'cli', 'system'] as const),
        id: Type.String({ description: "The key's or user's id; the CLI's user@host; the job's name" }),
      },
      { description: 'Who made the change' },
    ),
    address: Nullable(Type.String({ description: "The client's address (API); null elsewhere" })),
    request_id: Nullable(Type.String({ description: 'The X-Request-Id of the request: the events of one request share it' })),
    operation: AuditOperation,
    resource: Type.Object({ type: Type.String(), id: Nullable(Type.String()) }, { description: 'What the change touched' }),
    changes: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
      description: 'The fields the change set ({ from, to } for an update); never a secret',
    }),
  }),
  'aud_… (time-ordered)',
);

export const AuditEventsQuery = Type.Object({
  actor: Type.Optional(Type.String({ description: 'Only changes by this key (key_…), user, or CLI user@host' })),
  resource: Type.Optional(Type.String({ description: 'Only changes to this resource (tag_…, whk_…, key_…, team_…, …)' })),
  operation: Type.Optional(AuditOperation),
  since: Type.Optional(Type.String({ description: `At or after; ${ISO}` })),
  until: Type.Optional(Type.String({ description: `Before; ${ISO}` })),
  ...KeysetQuery,
});

export const AuditEventPage = Type.Object({ data: Type.Array(AuditEvent), links: Links });

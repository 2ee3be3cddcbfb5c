import { isTimePosition, listCursors, type CursorMasters } from '../../http/cursor.js';
import { sendDocument } from '../../http/jsonapi.js';
import { badParameter, checkWindow, isoTime, oneOf, pageOf, pageSize, refuseUnknown, single, type Query } from '../../http/query.js';
import type { RouteApp } from '../../http/route-app.js';
import { answer, errorResponses } from '../../http/schemas.js';
import type { Kernel } from '../../kernel.js';
import { AUDIT_OPERATIONS } from '../operations.js';
import { listAuditEventsFor } from '../service.js';
import { AuditEventPage, AuditEventsQuery } from '../schemas.js';
import { renderAuditEvent } from '../serializer.js';

const isPosition = isTimePosition('aud');

/** An id-like parameter: printable, and no longer than any id or `user@host` the log holds. */
function name(query: Query, parameter: string): string | undefined {
  const value = single(query, parameter);
  if (value !== undefined && !/^[\x21-\x7e]{1,200}$/.test(value))
    throw badParameter(parameter, `${parameter} must be 1 to 200 printable characters without spaces`);
  return value;
}

export default function listAuditEventsRoute(app: RouteApp, ctx: Kernel & { masters: CursorMasters }) {
  app.get('/audit-events', {
    config: { access: 'admin' },
    schema: {
      summary: "Who changed what in the key's world, newest first",
      operationId: 'listAuditEvents',
      tags: ['audit'],
      querystring: AuditEventsQuery,
      response: { 200: answer('A page of audit events.', AuditEventPage), ...errorResponses(400, 401, 403, 406, 429) },
    },
    handler: async (request, reply) => {
      const query = request.query as Query;
      refuseUnknown(query, Object.keys(AuditEventsQuery.properties));
      const cursors = listCursors(ctx.masters, 'audit-events', request.principal, query);
      const since = isoTime(query, 'since');
      const until = isoTime(query, 'until');
      checkWindow(since, until);
      const size = pageSize(query);
      const filter = {
        actor: name(query, 'actor'),
        resource: name(query, 'resource'),
        operation: oneOf(query, 'operation', AUDIT_OPERATIONS),
        since,
        until,
        before: await cursors.read(isPosition),
      };
      const { rows, more } = pageOf(await listAuditEventsFor(ctx.db.kysely, request.principal, { ...filter, limit: size + 1 }), size);
      const last = more ? rows.at(-1)! : null;
      return sendDocument(reply, 200, {
        data: rows.map(renderAuditEvent),
        links: { next: await cursors.next(request.url.split('?')[0]!, last && [last.occurred_at, last.id]) },
      });
    },
  });
}

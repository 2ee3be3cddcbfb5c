import { Type } from '@sinclair/typebox';
import type { RouteApp } from '../../http/route-app.js';
import type { Kernel } from '../../kernel.js';
import { CSV } from '../../http/jsonapi.js';
import { errorResponses } from '../../http/schemas.js';
import { TAG_CSV_COLUMNS, tagCsv } from '../export.js';
import { ExportQuerySchema, readExportQuery } from '../list-query.js';

export default function exportTagsRoute(app: RouteApp, ctx: Kernel) {
  app.get('/tags/export', {
    config: { access: 'read', produces: CSV },
    schema: {
      summary: "The team's tags with the list's filters as CSV, by id, streamed",
      operationId: 'exportTags',
      tags: ['tags'],
      produces: [CSV],
      querystring: ExportQuerySchema,
      response: {
        200: Type.String({
          description: `CSV (RFC 4180, CRLF), a header line then one line per tag: ${TAG_CSV_COLUMNS.join(', ')} (chip_uid empty while no chip is bound).`,
        }),
        ...errorResponses(400, 401, 406, 429),
      },
    },
    handler: async (request, reply) => {
      const filter = readExportQuery(request.query as Record<string, unknown>);
      const day = new Date(ctx.clock.nowMicros() / 1000).toISOString().slice(0, 10);
      return reply
        .code(200)
        .type(`${CSV}; charset=utf-8`)
        .header('content-disposition', `attachment; filename="tags-${request.principal.mode}-${day}.csv"`)
        .send(tagCsv(ctx, request.principal, filter) as never);
    },
  });
}

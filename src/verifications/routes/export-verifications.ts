import { Type } from '@sinclair/typebox';
import type { RouteApp } from '../../http/route-app.js';
import type { Kernel } from '../../kernel.js';
import { CSV } from '../../http/jsonapi.js';
import { errorResponses } from '../../http/schemas.js';
import { SCAN_CSV_COLUMNS, scanCsv } from '../export.js';
import { ExportVerificationsQuery, readExportVerificationsQuery } from '../list-query.js';

export default function exportVerificationsRoute(app: RouteApp, ctx: Kernel) {
  app.get('/verifications/export', {
    config: { access: 'read', produces: CSV },
    schema: {
      summary: "The world's verifications with the list's filters as CSV, newest first, streamed",
      operationId: 'exportVerifications',
      tags: ['verifications'],
      produces: [CSV],
      querystring: ExportVerificationsQuery,
      response: {
        200: Type.String({ description: `CSV (RFC 4180, CRLF), a header line then one line per scan: ${SCAN_CSV_COLUMNS.join(', ')}.` }),
        ...errorResponses(400, 401, 406, 429),
      },
    },
    handler: async (request, reply) => {
      const filter = readExportVerificationsQuery(request.query as Record<string, unknown>);
      const day = new Date(ctx.clock.nowMicros() / 1000).toISOString().slice(0, 10);
      return reply
        .code(200)
        .type(`${CSV}; charset=utf-8`)
        .header('content-disposition', `attachment; filename="scans-${request.principal.mode}-${day}.csv"`)
        .send(scanCsv(ctx, request.principal, filter) as never);
    },
  });
}

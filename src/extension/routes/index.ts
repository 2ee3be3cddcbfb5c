// The extension API (docs/extension.md, docs/decisions.md §7): public,
// plain JSON, CORS. Production verifications at {extPrefix}, sandbox ones at
// {extPrefix}/sandbox (docs/extension.md: a landing page wired to the
// production base can never show a sandbox verification).
import type { FastifyInstance } from 'fastify';
import type { ExtensionContext } from '../context.js';
import { routeApp, type RouteApp } from '../../http/route-app.js';
import type { Mode } from '../../db/schema.js';
import { installExtensionHttp } from '../http.js';
import createChallenge from './create-challenge.js';
import createClaim from './create-claim.js';
import createProof from './create-proof.js';
import getVerification from './get-verification.js';
import listClaims from './list-claims.js';

type ExtensionRoute = (app: RouteApp, ctx: ExtensionContext, mode: Mode) => void;
export const extensionRouteList: ExtensionRoute[] = [getVerification, listClaims, createClaim, createChallenge, createProof];

export const sandboxPrefix = (extPrefix: string) => `${extPrefix}/sandbox`;

export async function extensionApi(app: FastifyInstance, ctx: ExtensionContext): Promise<void> {
  const bases: [string, Mode][] = [
    [ctx.config.extPrefix, 'production'],
    [sandboxPrefix(ctx.config.extPrefix), 'sandbox'],
  ];
  for (const [prefix, mode] of bases) {
    await app.register(
      async (scope) => {
        installExtensionHttp(scope);
        for (const route of extensionRouteList) route(routeApp(scope), ctx, mode);
      },
      { prefix },
    );
  }
}

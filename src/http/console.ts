// The operator console (packages/console, built by Vite during `npm ci`) served at /console/: hashed
// assets cached for a year, index.html for every other console path (the app routes by path) and
// never cached, and a Content-Security-Policy that allows only the console's own files and API calls.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';

export const CONSOLE_PATH = '/console';
/** The Vite build output; src/http and dist/http are both two levels below the checkout. */
export const CONSOLE_DIST = fileURLToPath(new URL('../../packages/console/dist/', import.meta.url));

/** Vite names every file under assets/ after its content: a changed file is a new URL. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function secure(reply: { header(name: string, value: string): unknown }) {
  reply.header('content-security-policy', CSP);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('referrer-policy', 'no-referrer');
  reply.header('x-frame-options', 'DENY');
}

export async function installConsole(app: FastifyInstance, dist = CONSOLE_DIST): Promise<void> {
  const indexFile = join(dist, 'index.html');
  if (!existsSync(indexFile) || !existsSync(join(dist, 'assets'))) {
    // A checkout whose workspaces were not built: the API works, the console says why it is missing.
    app.get(`${CONSOLE_PATH}/*`, { schema: { hide: true } }, async (_request, reply) =>
      reply.code(503).type('text/plain').send('The console is not built: run `npm ci` (or `npm run build -w @tapproof/console`).'),
    );
    return;
  }
  // Read once: the console changes with a deployment, which restarts the server.
  const index = readFileSync(indexFile);
  const sendIndex = (reply: FastifyReply) => {
    secure(reply);
    return reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(index);
  };
  await app.register(fastifyStatic, {
    root: join(dist, 'assets'),
    prefix: `${CONSOLE_PATH}/assets/`,
    // One route per file found at start, so that any other path falls through to the app's routes below.
    wildcard: false,
    serve: true,
    index: false,
    decorateReply: false,
    cacheControl: false,
    setHeaders(res) {
      secure({ header: (name, value) => res.setHeader(name, value) });
      res.setHeader('cache-control', IMMUTABLE);
    },
  });
  app.get(CONSOLE_PATH, { schema: { hide: true } }, async (_request, reply) => reply.redirect(`${CONSOLE_PATH}/`, 301));
  app.get(`${CONSOLE_PATH}/*`, { schema: { hide: true } }, async (request, reply) => {
    // A missing asset is a 404, not the app's page: a browser would run HTML as a script otherwise.
    if (request.url.startsWith(`${CONSOLE_PATH}/assets/`)) return reply.callNotFound();
    return sendIndex(reply);
  });
}

// One harness for every database-backed test: real SQLite files, a real
// PostgreSQL schema per context, and the real HTTP server on a loopback port.
import { randomBytes, randomInt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { after, before } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { KyselyPlugin } from 'kysely';
import { buildApp } from '../../src/app.js';
import { loadConfig, type Config, type DatabaseTarget } from '../../src/config.js';
import { createContext, type AppContext } from '../../src/context.js';
import { openDatabase, type Db } from '../../src/db/database.js';
import type { Mode } from '../../src/db/schema.js';
import { migrate } from '../../src/db/migrations.js';
import { createKey } from '../../src/keys/service.js';
import { createTeam } from '../../src/teams/service.js';
import { testClock, type TestClock } from './clock.js';

export type DatabaseKind = 'sqlite' | 'postgres';

export const POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The engines every database test runs on (TEST_DATABASES=sqlite,postgres by default). */
export const DATABASES: DatabaseKind[] = (process.env.TEST_DATABASES ?? 'sqlite,postgres').split(',').map((s) => s.trim()) as DatabaseKind[];

export interface Storage {
  target: DatabaseTarget;
  /** Extra environment for child processes (server, CLI) to reach the same data. */
  env: Record<string, string>;
  open(): Db;
  drop(): Promise<void>;
}

/** A fresh, empty database of `kind`: a temp SQLite file, or a new PostgreSQL schema. */
export async function freshStorage(kind: DatabaseKind): Promise<Storage> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'tapproof-test-'));
    const path = join(dir, 'tapproof.db');
    return {
      target: { kind: 'sqlite', path },
      env: { DATABASE_URL: `sqlite:${path}`, TAPPROOF_DATA_DIR: dir },
      open: () => openDatabase({ kind: 'sqlite', path }),
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const url = new URL(POSTGRES_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  const dir = mkdtempSync(join(tmpdir(), 'tapproof-test-'));
  return {
    target: { kind: 'postgres', url: url.toString() },
    // On PostgreSQL production key material comes only from the environment (docs/operations.md).
    env: { DATABASE_URL: url.toString(), TAPPROOF_DATA_DIR: dir, TAPPROOF_MASTER_KEY: randomBytes(32).toString('hex') },
    open: () => openDatabase({ kind: 'postgres', url: POSTGRES_URL }, { schema }),
    drop: async () => {
      const c = new pg.Client({ connectionString: POSTGRES_URL });
      await c.connect();
      await c.query(`drop schema ${schema} cascade`);
      await c.end();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface SeededTeam {
  teamId: string;
  sandbox: { id: string; key: string };
  production: { id: string; key: string };
}

export interface TestServer {
  kind: DatabaseKind;
  storage: Storage;
  ctx: AppContext;
  /** The server's clock (ctx.clock): `advance` it where a test would wait for time to pass. */
  clock: TestClock;
  app: FastifyInstance;
  /** `http://127.0.0.1:PORT/api/v1` */
  base: string;
  origin: string;
  /** A team with one key per mode. */
  seedTeam(options?: { parent?: string; name?: string }): Promise<SeededTeam>;
  close(): Promise<void>;
}

/** `plugins` wrap the server's Kysely after the migrations (test/house/sql-snapshot.solo.test.ts records with one). */
export async function startServer(kind: DatabaseKind, env: Record<string, string> = {}, options: { plugins?: KyselyPlugin[] } = {}): Promise<TestServer> {
  const storage = await freshStorage(kind);
  const db = storage.open();
  await migrate(db);
  for (const plugin of options.plugins ?? []) db.kysely = db.kysely.withPlugin(plugin);
  const config: Config = { ...loadConfig({ TAPPROOF_RATE_LIMIT: '1000000', ...storage.env, ...env }), database: storage.target };
  const clock = testClock();
  const ctx = createContext(db, config, clock);
  const app = await buildApp(ctx, { logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const origin = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  return {
    kind,
    storage,
    ctx,
    clock,
    app,
    origin,
    base: origin + config.apiPrefix,
    async seedTeam(options = {}) {
      const { id: teamId } = await createTeam(db.kysely, options.name ?? 'team', options.parent ?? null, clock);
      const sandbox = await createKey(db.kysely, teamId, 'sandbox' as Mode, clock);
      const production = await createKey(db.kysely, teamId, 'production' as Mode, clock);
      return { teamId, sandbox, production };
    },
    async close() {
      await app.close();
      await db.close();
      await storage.drop();
    },
  };
}

/** One real server (and one seeded team) for the whole enclosing describe; read the fields inside tests. */
export function sharedServer(kind: DatabaseKind, env: Record<string, string> = {}): { server: TestServer; world: SeededTeam } {
  const suite = {} as { server: TestServer; world: SeededTeam };
  before(async () => {
    suite.server = await startServer(kind, env);
    suite.world = await suite.server.seedTeam();
  });
  after(() => suite.server.close());
  return suite;
}

/** A random client address (sent as X-Forwarded-For), so that runs sharing one Redis never share a rate-limit budget. */
export const randomIp = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

export const JSON_API = 'application/vnd.api+json';

export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

/** A real HTTP request with JSON:API defaults; `body` objects are serialized, strings sent as-is. */
export async function call(
  server: { base: string },
  method: string,
  path: string,
  options: { key?: string | null; body?: unknown; headers?: Record<string, string> } = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = {};
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.body !== undefined) headers['content-type'] = JSON_API;
  Object.assign(headers, options.headers ?? {});
  const response = await fetch(server.base + path, {
    method,
    headers,
    body: options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
  });
  return answerOf(response);
}

/** A fetch answer read whole: its text, and its JSON when it is JSON. */
export async function answerOf(response: Response): Promise<ApiResponse> {
  const text = await response.text();
  let body: any = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  return { status: response.status, headers: response.headers, text, body };
}

/** The one error of a non-422 JSON:API error body. */
export function onlyError(response: ApiResponse): { status: string; title: string } {
  if (!response.body?.errors || response.body.errors.length !== 1) throw new Error(`expected one error, got ${response.text}`);
  return response.body.errors[0];
}

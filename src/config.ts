// The only reader of process.env. Every value is validated here so that a bad
// deployment stops at start with one clear line instead of failing later.

export type DatabaseTarget =
  | { kind: 'sqlite'; path: string }
  | { kind: 'postgres'; url: string };

export interface Config {
  port: number;
  host: string;
  database: DatabaseTarget;
  redisUrl: string | null;
  masterKey: string | null;
  rateLimit: number;
  /** Fastify `trustProxy`: false, true, a hop count, or a list of addresses/CIDRs. */
  trustProxy: boolean | number | string[];
  apiPrefix: string;
  extPrefix: string;
  logLevel: string;
  allowPrivateWebhooks: boolean;
  allowHttpWebhooks: boolean;
  /** Multiplies the webhook retry delays (1 in production; tests shrink it). */
  webhookRetryScale: number;
  /** Per-attempt webhook timeout; a claimed delivery's lease is twice this. */
  webhookTimeoutMs: number;
  /** Run the background worker (webhook delivery) inside `serve`. */
  embeddedWorker: boolean;
  dataDir: string;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${raw}`);
  return value;
}

function flag(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(`${name} must be 1/0, true/false, yes/no or on/off, got "${raw}"`);
}

function decimal(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || value < min || value > max) throw new ConfigError(`${name} must be a number from ${min} to ${max}, got "${raw}"`);
  return value;
}

function prefix(env: Env, name: string, fallback: string): string {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(raw)) throw new ConfigError(`${name} must be a path such as /api/v1, got "${raw}"`);
  return raw;
}

export function parseDatabaseUrl(raw: string | undefined, dataDir: string): DatabaseTarget {
  if (raw === undefined || raw === '') return { kind: 'sqlite', path: `${dataDir}/tapproof.db` };
  if (/^postgres(ql)?:\/\//.test(raw)) {
    try {
      new URL(raw);
    } catch {
      throw new ConfigError('DATABASE_URL is not a valid postgres:// URL');
    }
    return { kind: 'postgres', url: raw };
  }
  if (raw.startsWith('sqlite:')) {
    const path = raw.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (path === '') throw new ConfigError('DATABASE_URL=sqlite: needs a file path, e.g. sqlite:./data/tapproof.db');
    return { kind: 'sqlite', path };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) {
    throw new ConfigError(`DATABASE_URL must be postgres://…, sqlite:PATH or a file path, got scheme "${raw.split(':')[0]}"`);
  }
  return { kind: 'sqlite', path: raw };
}

function trustProxy(env: Env): Config['trustProxy'] {
  const raw = env.TAPPROOF_TRUST_PROXY;
  if (raw === undefined || raw === '') return false;
  const lower = raw.toLowerCase();
  if (['0', 'false', 'no', 'off'].includes(lower)) return false;
  if (['1', 'true', 'yes', 'on'].includes(lower)) return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  const list = raw.split(',').map((s) => s.trim()).filter(Boolean);
  if (list.length === 0 || list.some((s) => !/^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(s))) {
    throw new ConfigError('TAPPROOF_TRUST_PROXY must be true/false, a hop count, or a comma-separated list of proxy IPs/CIDRs');
  }
  return list;
}

export function loadConfig(env: Env = process.env): Config {
  const dataDir = env.TAPPROOF_DATA_DIR || './data';
  const redisUrl = env.REDIS_URL || null;
  if (redisUrl !== null && !/^rediss?:\/\//.test(redisUrl)) throw new ConfigError('REDIS_URL must start with redis:// or rediss://');
  const masterKey = env.TAPPROOF_MASTER_KEY || null;
  if (masterKey !== null && !/^[0-9a-fA-F]{64}$/.test(masterKey)) {
    throw new ConfigError('TAPPROOF_MASTER_KEY must be 64 hex characters (32 random bytes), e.g. from `openssl rand -hex 32`');
  }
  const logLevel = env.LOG_LEVEL || 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "${logLevel}"`);
  }
  return {
    port: integer(env, 'PORT', 8080, 0, 65535),
    host: env.HOST || '0.0.0.0',
    database: parseDatabaseUrl(env.DATABASE_URL, dataDir),
    redisUrl,
    masterKey,
    rateLimit: integer(env, 'TAPPROOF_RATE_LIMIT', 600, 1, 100_000_000),
    trustProxy: trustProxy(env),
    apiPrefix: prefix(env, 'TAPPROOF_API_PREFIX', '/api/v1'),
    extPrefix: prefix(env, 'TAPPROOF_EXT_PREFIX', '/ext'),
    logLevel,
    allowPrivateWebhooks: flag(env, 'TAPPROOF_ALLOW_PRIVATE_WEBHOOKS', false),
    allowHttpWebhooks: flag(env, 'TAPPROOF_ALLOW_HTTP_WEBHOOKS', false),
    webhookRetryScale: decimal(env, 'TAPPROOF_WEBHOOK_RETRY_SCALE', 1, 0, 1000),
    webhookTimeoutMs: integer(env, 'TAPPROOF_WEBHOOK_TIMEOUT_MS', 15_000, 100, 600_000),
    embeddedWorker: flag(env, 'TAPPROOF_EMBEDDED_WORKER', true),
    dataDir,
  };
}

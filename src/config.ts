// The only reader of process.env. Every value is validated here so that a bad
// deployment stops at start with one clear line instead of failing later.
import { closeSync, openSync, readFileSync, statSync } from 'node:fs';

export type DatabaseTarget = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

export interface Config {
  port: number;
  host: string;
  database: DatabaseTarget;
  redisUrl: string | null;
  masterKey: string | null;
  /** Where `masterKey` came from, for operator messages (never the key itself). */
  masterKeySource: 'TAPPROOF_MASTER_KEY' | 'TAPPROOF_MASTER_KEY_FILE' | null;
  /** Older live production master generations (64 hex each): what still derives and unseals their chips and values. */
  previousMasterKeys: string[];
  previousMasterKeysSource: 'TAPPROOF_PREVIOUS_MASTER_KEYS' | 'TAPPROOF_PREVIOUS_MASTER_KEYS_FILE' | null;
  rateLimit: number;
  /** Prefix of this deployment's keys in a shared Redis (docs/operations.md, Redis). */
  redisPrefix: string;
  /** The whole request (headers and body) must arrive within this (docs/hardening.md, Server timeouts). */
  requestTimeoutMs: number;
  /** Claims one client IP may post per hour on each extension base (docs/extension.md, Claims). */
  claimsPerHour: number;
  /** Scans older than this many days are pruned (docs/operations.md#retention); null keeps every scan. */
  scanRetentionDays: number | null;
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
  /** SQLite files: decide and commit scan batches in a worker thread (docs/throughput.md#group-commit); off: on the event loop. */
  scanCommitThread: boolean;
  dataDir: string;
  /** TAPPROOF_METRICS_TOKEN: bearer token GET /metrics requires; null = open (keep it off the public network). */
  metricsToken: string | null;
  /** TAPPROOF_WORKER_METRICS_PORT: `tapproof worker` serves GET /metrics on this port (on HOST); null = none. */
  workerMetricsPort: number | null;
  /** Networks, the EIP-1271 RPC and the holdings providers of the extension API (docs/wallets.md). */
  wallets: WalletsConfig;
  /** TAPPROOF_GEOIP_DB: the operator's GeoLite2/GeoIP2 Country file; null = the embedded database (docs/operations.md). */
  geoipDb: string | null;
  /** How people sign in to the console (docs/users.md). */
  console: ConsoleConfig;
  /**
   * TAPPROOF_REHEARSAL: production also accepts emulated chips (the emulator's originality signature), so that a
   * production rotation can be rehearsed on a deployment of its own (docs/operations.md, Rehearsing a rotation).
   * Refused with NODE_ENV=production; `tapproof doctor` fails while it is on.
   */
  rehearsal: boolean;
  /** Email to people (docs/email.md); null without TAPPROOF_SMTP_URL: no mail is queued or sent. */
  mail: MailConfig | null;
}

export interface ConsoleConfig {
  /** TAPPROOF_CONSOLE_KEY_SIGN_IN: the console also offers signing in with a pasted API key (default: on unless NODE_ENV=production). */
  keySignIn: boolean;
  /** TAPPROOF_PUBLIC_URL: the origin people reach the console at; it names invite links and is the passkeys' relying party. Null: the request's own. */
  publicUrl: string | null;
  /** A session ends after this long without a request, and after `sessionMaxHours` whatever the activity. */
  sessionIdleMinutes: number;
  sessionMaxHours: number;
  /** Single sign-on; null when not configured. */
  oidc: OidcConfig | null;
}

export interface OidcConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The ID token claim naming the role (admin, write or read). */
  roleClaim: string;
  /** The team a first single sign-on joins. */
  teamId: string;
}

export interface WalletsConfig {
  cardanoNetwork: 'mainnet' | 'preprod' | 'preview';
  ethereumChainId: number;
  /** JSON-RPC node for EIP-1271 contract wallets and the `rpc` holdings provider. */
  ethereumRpcUrl: string | null;
  cardanoHoldings:
    { provider: 'embedded' } | { provider: 'koios'; url: string; token: string | null } | { provider: 'blockfrost'; url: string; projectId: string };
  ethereumHoldings: 'embedded' | 'rpc';
  /** How long a call to Koios, Blockfrost or the EVM RPC may take before the proof answers 500. */
  providerTimeoutMs: number;
}

export class ConfigError extends Error {}

const MASTER_KEY_HINT = '64 hex characters (32 random bytes), e.g. from `openssl rand -hex 32`';

/** TAPPROOF_MASTER_KEY, or the content of the file TAPPROOF_MASTER_KEY_FILE names (a secrets mount). */
function masterKey(env: Env): Pick<Config, 'masterKey' | 'masterKeySource'> {
  const direct = env.TAPPROOF_MASTER_KEY || null;
  const file = env.TAPPROOF_MASTER_KEY_FILE || null;
  if (direct !== null && file !== null) throw new ConfigError('set only one of TAPPROOF_MASTER_KEY and TAPPROOF_MASTER_KEY_FILE');
  if (direct !== null) {
    if (!/^[0-9a-fA-F]{64}$/.test(direct)) throw new ConfigError(`TAPPROOF_MASTER_KEY must be ${MASTER_KEY_HINT}`);
    return { masterKey: direct, masterKeySource: 'TAPPROOF_MASTER_KEY' };
  }
  if (file === null) return { masterKey: null, masterKeySource: null };
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw new ConfigError(`TAPPROOF_MASTER_KEY_FILE: cannot read ${file} (${(error as { code?: string }).code ?? (error as Error).message})`);
  }
  if (!/^[0-9a-fA-F]{64}$/.test(text)) throw new ConfigError(`TAPPROOF_MASTER_KEY_FILE: ${file} must hold ${MASTER_KEY_HINT}`);
  return { masterKey: text, masterKeySource: 'TAPPROOF_MASTER_KEY_FILE' };
}

/** TAPPROOF_PREVIOUS_MASTER_KEYS, or the file TAPPROOF_PREVIOUS_MASTER_KEYS_FILE names: comma-separated (or one a line) 64-hex keys. */
function previousMasterKeys(env: Env): Pick<Config, 'previousMasterKeys' | 'previousMasterKeysSource'> {
  const direct = env.TAPPROOF_PREVIOUS_MASTER_KEYS || null;
  const file = env.TAPPROOF_PREVIOUS_MASTER_KEYS_FILE || null;
  if (direct !== null && file !== null) throw new ConfigError('set only one of TAPPROOF_PREVIOUS_MASTER_KEYS and TAPPROOF_PREVIOUS_MASTER_KEYS_FILE');
  if (direct === null && file === null) return { previousMasterKeys: [], previousMasterKeysSource: null };
  const name = direct !== null ? 'TAPPROOF_PREVIOUS_MASTER_KEYS' : 'TAPPROOF_PREVIOUS_MASTER_KEYS_FILE';
  let text = direct ?? '';
  if (file !== null) {
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new ConfigError(`${name}: cannot read ${file} (${(error as { code?: string }).code ?? (error as Error).message})`);
    }
  }
  const keys = text
    .split(/[,\s]+/)
    .filter((k) => k !== '')
    .map((k) => k.toLowerCase());
  if (keys.some((k) => !/^[0-9a-f]{64}$/.test(k))) throw new ConfigError(`${name} must be comma-separated keys of ${MASTER_KEY_HINT}`);
  return { previousMasterKeys: keys, previousMasterKeysSource: name };
}

type Env = Record<string, string | undefined>;

/** TAPPROOF_GEOIP_DB must name a file this process can read; whether it is a database is checked when it opens. */
function geoipDb(env: Env): string | null {
  const path = env.TAPPROOF_GEOIP_DB || null;
  if (path === null) return null;
  try {
    if (!statSync(path).isFile()) throw new ConfigError(`TAPPROOF_GEOIP_DB: ${path} is not a file`);
    closeSync(openSync(path, 'r'));
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`TAPPROOF_GEOIP_DB: cannot read ${path} (${(error as { code?: string }).code ?? (error as Error).message})`);
  }
  return path;
}

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

const DATABASE_URL_FORMS = 'postgres://…, postgresql://…, sqlite:PATH, file:PATH, or a file path starting with / or ./';

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
  for (const scheme of ['sqlite:', 'file:']) {
    if (!raw.startsWith(scheme)) continue;
    // sqlite:///abs and file:///abs name absolute paths; sqlite:rel and file:rel relative ones.
    const path = raw.slice(scheme.length).replace(/^\/\/(?=\/)/, '');
    if (path === '' || path.startsWith('//')) throw new ConfigError(`DATABASE_URL=${scheme} needs a file path, e.g. ${scheme}./data/tapproof.db`);
    return { kind: 'sqlite', path };
  }
  // A bare value is taken as a file path only when it clearly is one: a typo
  // ("nonsense", "postgress://…") must not silently become a fresh SQLite database.
  if (raw.startsWith('/') || raw.startsWith('./') || raw.startsWith('../')) return { kind: 'sqlite', path: raw };
  // Only the scheme is echoed when there is one: the rest may hold a password.
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(raw)?.[1];
  const got = scheme ? `scheme "${scheme}"` : /[:@]/.test(raw) ? 'an unrecognised value' : `"${raw}"`;
  throw new ConfigError(`DATABASE_URL must be ${DATABASE_URL_FORMS}, got ${got}`);
}

function redisPrefix(env: Env): string {
  const raw = env.TAPPROOF_REDIS_PREFIX || 'tapproof';
  if (!/^[A-Za-z0-9_.:-]{1,64}$/.test(raw)) throw new ConfigError('TAPPROOF_REDIS_PREFIX must be 1 to 64 letters, digits, dashes, underscores, dots or colons');
  return raw;
}

function trustProxy(env: Env): Config['trustProxy'] {
  const raw = env.TAPPROOF_TRUST_PROXY;
  if (raw === undefined || raw === '') return false;
  const lower = raw.toLowerCase();
  if (['0', 'false', 'no', 'off'].includes(lower)) return false;
  if (['1', 'true', 'yes', 'on'].includes(lower)) return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  const list = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (list.length === 0 || list.some((s) => !/^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(s))) {
    throw new ConfigError('TAPPROOF_TRUST_PROXY must be true/false, a hop count, or a comma-separated list of proxy IPs/CIDRs');
  }
  return list;
}

export function loadConfig(env: Env = process.env): Config {
  const dataDir = env.TAPPROOF_DATA_DIR || './data';
  const redisUrl = env.REDIS_URL || null;
  if (redisUrl !== null && !/^rediss?:\/\//.test(redisUrl)) throw new ConfigError('REDIS_URL must start with redis:// or rediss://');
  const logLevel = env.LOG_LEVEL || 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "${logLevel}"`);
  }
  const mail = mailConfig(env);
  const console = consoleConfig(env);
  if (mail !== null && console.publicUrl === null) throw new ConfigError('TAPPROOF_SMTP_URL needs TAPPROOF_PUBLIC_URL: every mail links to the console');
  return {
    port: integer(env, 'PORT', 8080, 0, 65535),
    host: env.HOST || '0.0.0.0',
    database: parseDatabaseUrl(env.DATABASE_URL, dataDir),
    redisUrl,
    ...masterKey(env),
    ...previousMasterKeys(env),
    rateLimit: integer(env, 'TAPPROOF_RATE_LIMIT', 600, 1, 100_000_000),
    redisPrefix: redisPrefix(env),
    requestTimeoutMs: integer(env, 'TAPPROOF_REQUEST_TIMEOUT_MS', 30_000, 1000, 300_000),
    claimsPerHour: integer(env, 'TAPPROOF_CLAIMS_PER_HOUR', 60, 1, 100_000_000),
    scanRetentionDays: env.TAPPROOF_SCAN_RETENTION_DAYS ? integer(env, 'TAPPROOF_SCAN_RETENTION_DAYS', 0, 1, 36_500) : null,
    trustProxy: trustProxy(env),
    apiPrefix: prefix(env, 'TAPPROOF_API_PREFIX', '/api/v1'),
    extPrefix: prefix(env, 'TAPPROOF_EXT_PREFIX', '/ext'),
    logLevel,
    allowPrivateWebhooks: flag(env, 'TAPPROOF_ALLOW_PRIVATE_WEBHOOKS', false),
    allowHttpWebhooks: flag(env, 'TAPPROOF_ALLOW_HTTP_WEBHOOKS', false),
    webhookRetryScale: decimal(env, 'TAPPROOF_WEBHOOK_RETRY_SCALE', 1, 0, 1000),
    webhookTimeoutMs: integer(env, 'TAPPROOF_WEBHOOK_TIMEOUT_MS', 15_000, 100, 600_000),
    embeddedWorker: flag(env, 'TAPPROOF_EMBEDDED_WORKER', true),
    scanCommitThread: flag(env, 'TAPPROOF_SCAN_WRITER_THREAD', true),
    dataDir,
    metricsToken: env.TAPPROOF_METRICS_TOKEN || null,
    workerMetricsPort: env.TAPPROOF_WORKER_METRICS_PORT ? integer(env, 'TAPPROOF_WORKER_METRICS_PORT', 0, 0, 65535) : null,
    wallets: walletsConfig(env),
    geoipDb: geoipDb(env),
    console,
    rehearsal: rehearsal(env),
    mail,
  };
}

export interface MailConfig {
  /** TAPPROOF_SMTP_URL: smtp://user:pass@host:587 (STARTTLS when offered) or smtps://… (TLS from the start). */
  smtpUrl: string;
  /** TAPPROOF_MAIL_FROM: the From of every mail. */
  from: string;
  /** TAPPROOF_DIGEST_HOUR: the hour (UTC, 0–23) the daily digest covers up to and is sent at. */
  digestHour: number;
  /** TAPPROOF_MAIL_RETRY_SCALE: multiplies the retry delays (1 in production; tests shrink it). */
  retryScale: number;
}

function mailConfig(env: Env): MailConfig | null {
  const raw = env.TAPPROOF_SMTP_URL;
  if (!raw) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('TAPPROOF_SMTP_URL must be an smtp:// or smtps:// URL');
  }
  // The URL may carry a password: it is never echoed.
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:')
    throw new ConfigError(`TAPPROOF_SMTP_URL must be an smtp:// or smtps:// URL, got ${url.protocol}//…`);
  const from = env.TAPPROOF_MAIL_FROM || `tapproof <tapproof@${url.hostname || 'localhost'}>`;
  if (/[\r\n]/.test(from)) throw new ConfigError('TAPPROOF_MAIL_FROM must be one line');
  return {
    smtpUrl: raw,
    from,
    digestHour: integer(env, 'TAPPROOF_DIGEST_HOUR', 7, 0, 23),
    retryScale: decimal(env, 'TAPPROOF_MAIL_RETRY_SCALE', 1, 0, 1000),
  };
}

function rehearsal(env: Env): boolean {
  const on = flag(env, 'TAPPROOF_REHEARSAL', false);
  if (on && env.NODE_ENV === 'production')
    throw new ConfigError('TAPPROOF_REHEARSAL accepts emulated chips in production: a rehearsal deployment, never one with NODE_ENV=production');
  return on;
}

function consoleConfig(env: Env): ConsoleConfig {
  const publicUrl = httpUrl(env, 'TAPPROOF_PUBLIC_URL', null);
  return {
    keySignIn: flag(env, 'TAPPROOF_CONSOLE_KEY_SIGN_IN', env.NODE_ENV !== 'production'),
    publicUrl: publicUrl === null ? null : new URL(publicUrl).origin,
    sessionIdleMinutes: integer(env, 'TAPPROOF_SESSION_IDLE_MINUTES', 120, 1, 10_080),
    sessionMaxHours: integer(env, 'TAPPROOF_SESSION_MAX_HOURS', 12, 1, 720),
    oidc: oidcConfig(env),
  };
}

function oidcConfig(env: Env): OidcConfig | null {
  const issuer = httpUrl(env, 'TAPPROOF_OIDC_ISSUER', null);
  if (issuer === null) return null;
  const need = (name: string): string => {
    const value = env[name];
    if (!value) throw new ConfigError(`TAPPROOF_OIDC_ISSUER needs ${name}`);
    return value;
  };
  return {
    issuer,
    clientId: need('TAPPROOF_OIDC_CLIENT_ID'),
    clientSecret: need('TAPPROOF_OIDC_CLIENT_SECRET'),
    teamId: need('TAPPROOF_OIDC_TEAM'),
    roleClaim: env.TAPPROOF_OIDC_ROLE_CLAIM || 'tapproof_role',
  };
}

function httpUrl(env: Env, name: string, fallback: string | null): string | null {
  const raw = env[name] || fallback;
  if (raw === null) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`);
  return raw;
}

function choice<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(allowed as readonly string[]).includes(raw)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  return raw as T;
}

function walletsConfig(env: Env): WalletsConfig {
  const ethereumRpcUrl = httpUrl(env, 'TAPPROOF_ETHEREUM_RPC_URL', null);
  const ethereumHoldings = choice(env, 'TAPPROOF_ETHEREUM_HOLDINGS', ['embedded', 'rpc'] as const, 'embedded');
  if (ethereumHoldings === 'rpc' && !ethereumRpcUrl) throw new ConfigError('TAPPROOF_ETHEREUM_HOLDINGS=rpc needs TAPPROOF_ETHEREUM_RPC_URL');
  const provider = choice(env, 'TAPPROOF_CARDANO_HOLDINGS', ['embedded', 'koios', 'blockfrost'] as const, 'embedded');
  let cardanoHoldings: WalletsConfig['cardanoHoldings'] = { provider: 'embedded' };
  if (provider === 'koios') {
    cardanoHoldings = { provider, url: httpUrl(env, 'TAPPROOF_KOIOS_URL', 'https://api.koios.rest/api/v1')!, token: env.TAPPROOF_KOIOS_TOKEN || null };
  } else if (provider === 'blockfrost') {
    const projectId = env.TAPPROOF_BLOCKFROST_PROJECT_ID;
    if (!projectId) throw new ConfigError('TAPPROOF_CARDANO_HOLDINGS=blockfrost needs TAPPROOF_BLOCKFROST_PROJECT_ID');
    cardanoHoldings = { provider, url: httpUrl(env, 'TAPPROOF_BLOCKFROST_URL', 'https://cardano-mainnet.blockfrost.io/api/v0')!, projectId };
  }
  return {
    cardanoNetwork: choice(env, 'TAPPROOF_CARDANO_NETWORK', ['mainnet', 'preprod', 'preview'] as const, 'mainnet'),
    ethereumChainId: integer(env, 'TAPPROOF_ETHEREUM_CHAIN_ID', 1, 1, 2 ** 32),
    ethereumRpcUrl,
    cardanoHoldings,
    ethereumHoldings,
    providerTimeoutMs: integer(env, 'TAPPROOF_HOLDINGS_TIMEOUT_MS', 5000, 100, 60_000),
  };
}

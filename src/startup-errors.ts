// Start-up failures an operator causes (a database that is not there, a port
// already taken) become one ConfigError line naming the setting to change,
// instead of a stack trace.
import type { Config, DatabaseTarget } from './config.js';
import { ConfigError } from './config.js';

type SystemError = Error & { code?: string; address?: string; port?: number; hostname?: string };

function postgresWhere(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || 5432}`;
  } catch {
    return 'DATABASE_URL';
  }
}

/** The database could not be opened or reached; null when `error` is something else. */
export function databaseStartError(error: unknown, target: DatabaseTarget): ConfigError | null {
  const e = error as SystemError;
  if (target.kind === 'sqlite') {
    if (['SQLITE_CANTOPEN', 'SQLITE_NOTADB', 'SQLITE_READONLY', 'SQLITE_PERM', 'EACCES', 'ENOTDIR', 'EROFS'].includes(e?.code ?? '')) {
      return new ConfigError(`cannot open the SQLite database ${target.path} (DATABASE_URL): ${e.code}`);
    }
    return null;
  }
  const where = postgresWhere(target.url);
  switch (e?.code) {
    case '3D000':
      return new ConfigError(`PostgreSQL at ${where} has no such database (DATABASE_URL): ${e.message}; create it (createdb) or fix the name`);
    case 'ECONNREFUSED':
      return new ConfigError(`cannot connect to PostgreSQL at ${where} (DATABASE_URL): connection refused; is it running and listening there?`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new ConfigError(`cannot connect to PostgreSQL (DATABASE_URL): unknown host "${e.hostname ?? where}"`);
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'ECONNRESET':
      return new ConfigError(`cannot connect to PostgreSQL at ${where} (DATABASE_URL): ${e.code}`);
  }
  // Connection exceptions (08…), authorization (28…), invalid catalog (3D…), SSL and auth setup.
  if (/^(08|28|3D)/.test(e?.code ?? '') || /SSL|password|SASL/i.test(e?.message ?? '')) {
    return new ConfigError(`PostgreSQL at ${where} refused the connection (DATABASE_URL): ${e.message}`);
  }
  return null;
}

/** The server could not listen; null when `error` is something else. */
export function listenStartError(error: unknown, config: Pick<Config, 'host' | 'port'>): ConfigError | null {
  const e = error as SystemError;
  switch (e?.code) {
    case 'EADDRINUSE':
      return new ConfigError(`PORT ${config.port} is already in use on HOST ${config.host}: stop the other process or set another PORT`);
    case 'EACCES':
      return new ConfigError(
        `PORT ${config.port} needs privileges on HOST ${config.host}: use a PORT above 1023 (and a proxy in front) or grant CAP_NET_BIND_SERVICE`,
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EINVAL':
      return new ConfigError(`HOST "${config.host}" is not an address or name this machine can listen on (e.g. 0.0.0.0, 127.0.0.1 or ::)`);
    case 'EADDRNOTAVAIL':
      return new ConfigError(`HOST ${config.host} is not an address of this machine: use one of its addresses, 0.0.0.0 or ::`);
  }
  return null;
}

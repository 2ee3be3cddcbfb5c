// The country of a scan's IP address from a MaxMind-format database: the embedded CC0 one or the operator's TAPPROOF_GEOIP_DB, re-read on SIGHUP and when the file changes (docs/operations.md, GeoIP).
import { unwatchFile, watchFile, type Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { open, type Reader, type Response } from 'maxmind';
import { ConfigError, type Config } from '../config.js';
import { publicAddress } from './addresses.js';

/** The embedded database: ip-location-db's country table built from RIR whois and ASN data, CC0. */
export const EMBEDDED_GEOIP_DB = createRequire(import.meta.url).resolve('@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb');

export interface CountriesOptions {
  /** Called after each reload the file watch or SIGHUP started: null, or why the old database is kept. */
  onReload?: (error: Error | null) => void;
  /** How often the file is checked for a change (a replaced file is seen as well as one written in place). */
  watchIntervalMs?: number;
}

/**
 * The two record shapes in use: GeoLite2/GeoIP2 Country (`country.iso_code`, with
 * `registered_country` where no country is known, e.g. satellite providers) and ip-location-db
 * (`country_code`).
 */
type CountryRecord = Response & {
  country_code?: unknown;
  country?: { iso_code?: unknown };
  registered_country?: { iso_code?: unknown };
};

function countryOf(record: CountryRecord | null): string | null {
  if (record === null || typeof record !== 'object') return null;
  const code = record.country_code ?? record.country?.iso_code ?? record.registered_country?.iso_code;
  // ZZ is ISO 3166's "unknown or unspecified country", which some databases store for unassigned space.
  return typeof code === 'string' && /^[A-Z]{2}$/.test(code) && code !== 'ZZ' ? code : null;
}

/** What tells one version of the file from another. */
type FileVersion = Pick<Stats, 'ino' | 'size' | 'mtimeMs'>;
const sameVersion = (a: FileVersion, b: FileVersion) => a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;

/** The version of the file about to be read (taken first: a change during the read is seen at the next check). */
const versionOf = (path: string): Promise<FileVersion | null> => stat(path).catch(() => null);

async function readDatabase(path: string, setting: string): Promise<Reader<CountryRecord>> {
  try {
    return await open<CountryRecord>(path);
  } catch (error) {
    const reason = (error as { code?: string }).code ?? (error as Error).message;
    throw new ConfigError(`${setting}: cannot open ${path} as a MaxMind database (${reason})`);
  }
}

/** A per-process service: built once at start, handed through the context, closed at shutdown. */
export class Countries {
  readonly path: string;
  readonly #setting: string;
  readonly #options: CountriesOptions;
  #reader: Reader<CountryRecord>;
  #closed = false;
  #reloads: Promise<unknown> = Promise.resolve();
  readonly #onSighup = () => this.#reloadInBackground();
  /** The version of the file last read, whether or not it opened (a broken file is tried once, not every check). */
  #tried: FileVersion | null;
  // Compared with the version last read, not the watcher's previous poll: the watcher's first look may come
  // after a change made right after the read, and would then never report it.
  readonly #onFileChange = (current: Stats) => {
    // A file being replaced may be missing for a moment: wait for the new one instead of failing.
    if (current.nlink === 0 || (this.#tried !== null && sameVersion(current, this.#tried))) return;
    this.#reloadInBackground(true);
  };

  private constructor(path: string, setting: string, reader: Reader<CountryRecord>, tried: FileVersion | null, options: CountriesOptions) {
    this.path = path;
    this.#setting = setting;
    this.#reader = reader;
    this.#tried = tried;
    this.#options = options;
  }

  /** Opens the configured database (or the embedded one); a file that does not open is a ConfigError. */
  static async open(config: Pick<Config, 'geoipDb'>, options: CountriesOptions = {}): Promise<Countries> {
    const path = config.geoipDb ?? EMBEDDED_GEOIP_DB;
    const setting = config.geoipDb === null ? 'the embedded GeoIP database' : 'TAPPROOF_GEOIP_DB';
    const tried = await versionOf(path);
    const countries = new Countries(path, setting, await readDatabase(path, setting), tried, options);
    process.on('SIGHUP', countries.#onSighup);
    // The embedded file only changes with an upgrade, which restarts the process.
    if (config.geoipDb !== null) countries.#watch(options.watchIntervalMs ?? 5000);
    return countries;
  }

  /** ISO 3166-1 alpha-2 code, or null for an address no country owns or the database does not know. */
  lookup(ip: string): string | null {
    const address = publicAddress(ip);
    return address === null ? null : countryOf(this.#reader.get(address));
  }

  /**
   * Reads the file again and swaps the database in once it has opened; on failure the one in use is
   * kept and the returned promise rejects. Reloads run one after the other.
   */
  reload(): Promise<void> {
    return this.#queueReload(false).then(() => undefined);
  }

  /** Resolves true once a read swapped the database in; false when there was nothing to read. */
  #queueReload(onlyIfChanged: boolean): Promise<boolean> {
    const next = this.#reloads.then(async () => {
      if (this.#closed) return false;
      const version = await versionOf(this.path);
      // The watcher and the first check can both report one change: the second finds it read already.
      if (onlyIfChanged && version !== null && this.#tried !== null && sameVersion(version, this.#tried)) return false;
      this.#tried = version;
      this.#reader = await readDatabase(this.path, this.#setting);
      return true;
    });
    this.#reloads = next.catch(() => false);
    return next;
  }

  #reloadInBackground(onlyIfChanged = false): void {
    if (this.#closed) return;
    this.#queueReload(onlyIfChanged).then(
      (reloaded) => reloaded && this.#options.onReload?.(null),
      (error: Error) => this.#options.onReload?.(error),
    );
  }

  #firstCheck: NodeJS.Timeout | undefined;

  /**
   * The watcher reports only a difference between two of its own polls, and its first poll is taken a moment
   * after it starts: a file replaced in between would never be reported. One check of our own, an interval
   * later (after that first poll), compares the file with the version last read and covers that moment.
   */
  #watch(interval: number): void {
    watchFile(this.path, { persistent: false, interval }, this.#onFileChange);
    this.#firstCheck = setTimeout(() => {
      if (!this.#closed) void stat(this.path).then(this.#onFileChange, () => undefined);
    }, interval).unref();
  }

  close(): void {
    this.#closed = true;
    process.off('SIGHUP', this.#onSighup);
    clearTimeout(this.#firstCheck);
    unwatchFile(this.path, this.#onFileChange);
  }
}

/**
 * The context's GeoIP service. The database (~8 MB) is read on the first public address or on `ready`, not
 * when a context is made: CLI commands, workers and most tests never look a country up. `serve` asks for it
 * at start, so that a bad TAPPROOF_GEOIP_DB stops the start rather than the first scan.
 */
export class CountryLookup {
  #countries: Promise<Countries> | null = null;
  #opened: Countries | null = null;

  constructor(
    private readonly config: Pick<Config, 'geoipDb'>,
    private readonly options: CountriesOptions = {},
  ) {}

  ready(): Promise<Countries> {
    if (this.#countries === null) {
      const opening = Countries.open(this.config, this.options);
      // A database that did not open is tried again on the next call, not remembered as failed.
      opening.then(
        (countries) => (this.#opened = countries),
        () => (this.#countries = null),
      );
      this.#countries = opening;
    }
    return this.#countries;
  }

  /** The country of `ip`; private, reserved and absent addresses need no database. */
  async lookup(ip: string | null): Promise<string | null> {
    if (ip === null) return null;
    // Once open, the database is asked at once (it judges the address itself): no second parse, no wait.
    if (this.#opened !== null) return this.#opened.lookup(ip);
    if (publicAddress(ip) === null) return null;
    return (await this.ready()).lookup(ip);
  }

  async close(): Promise<void> {
    const countries = await this.#countries?.catch(() => null);
    countries?.close();
  }
}

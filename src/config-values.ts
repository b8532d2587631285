/**
 * What a loaded configuration's values mean: the project's paths, the store's kind, the SQLite path,
 * PostgreSQL's settings, the proxies, the webhooks' retries and hosts. The schema that reads and checks
 * them is config.ts; this module loads no TypeBox, so that the batches' worker thread, which opens a
 * store from a configuration it is given, does not hold it.
 */
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Config } from './config.js';

/** The project's own folder, for the embedded default's data file. */
export const projectRoot = fileURLToPath(new URL('../../', import.meta.url));
export const defaultDatabasePath = fileURLToPath(new URL('../../data/tariff.sqlite', import.meta.url));
export const demoSourcesDir = fileURLToPath(new URL('../../data/sources/', import.meta.url));

/** libpq's sslmode values that a Node.js client can honour, weakest first. */
export const TLS_MODES = ['disable', 'require', 'verify-ca', 'verify-full'] as const;
export type TlsMode = (typeof TLS_MODES)[number];

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** VIGILANCIAS_REINTENTOS as milliseconds. */
export function retryWaits(config: Config): number[] {
  const unit: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  return config.VIGILANCIAS_REINTENTOS.split(',').map((part) => {
    const m = /^([0-9]+)(ms|s|m|h)$/.exec(part)!;
    return Number(m[1]) * unit[m[2]!]!;
  });
}

/** VIGILANCIAS_HOSTS_PERMITIDOS as lower-case host names (IPv6 addresses without brackets). */
/**
 * Where webhooks may go (src/vigilancias/outbound.ts): the hosts the operator trusts, written as a
 * URL's host is compared (lower case, no brackets, no trailing dot), and the ports open to every other host.
 */
export const webhookPolicy = (config: Config): { hosts: ReadonlySet<string>; ports: ReadonlySet<number> } => ({
  hosts: new Set(
    config.VIGILANCIAS_HOSTS_PERMITIDOS.split(',')
      .map((h) =>
        h
          .trim()
          .toLowerCase()
          .replace(/^\[(.*)\]$/, '$1')
          .replace(/\.+$/, ''),
      )
      .filter((h) => h !== ''),
  ),
  ports: new Set(config.VIGILANCIAS_PUERTOS_PERMITIDOS.split(',').map(Number)),
});

/** The embedded demo: no database configured, so the project's own demo file is served. */
export const isEmbeddedDemo = (config: Config): boolean => config.DATABASE_URL === '';

/** WORKERS as a number of processes: `auto` is one per core the process may use. */
export const workerCount = (config: Config): number => (config.WORKERS === 'auto' ? availableParallelism() : Number(config.WORKERS));

/**
 * LOTES_HILOS as a number of threads: `auto` shares the cores among the server processes and leaves
 * each process's event loop a core of its own (it writes the results and answers the lookups), at
 * least one thread each: one on a 2-core machine, where a second thread was no faster and cost about
 * 60 MB (docs/lotes.md).
 */
export const lotesThreads = (config: Config): number =>
  config.LOTES_HILOS === 'auto' ? Math.max(1, Math.floor(availableParallelism() / workerCount(config)) - 1) : Number(config.LOTES_HILOS);

const PROXY_RANGES = ['loopback', 'linklocal', 'uniquelocal'];

/** TRUST_PROXY as Fastify's trustProxy: off, or the proxies' addresses (a bare hop count cannot tell a proxy from a client). */
export function trustProxy(config: Config): false | string[] {
  const value = config.TRUST_PROXY.trim();
  if (value === '') return false;
  const proxies = value.split(',').map((part) => part.trim());
  const wrong = proxies.find((p) => !PROXY_RANGES.includes(p) && isIP(p.replace(/\/\d+$/, '')) === 0);
  if (wrong !== undefined) {
    throw new ConfigError(
      `invalid TRUST_PROXY=${JSON.stringify(config.TRUST_PROXY)}: ${JSON.stringify(wrong)} is not an address, a CIDR range or one of ${PROXY_RANGES.join(', ')}`,
    );
  }
  return proxies;
}

export function sqlitePath(config: Config): string {
  if (isEmbeddedDemo(config)) return defaultDatabasePath;
  const match = /^sqlite:(.+)$/.exec(config.DATABASE_URL);
  if (!match?.[1]) throw new ConfigError(`invalid DATABASE_URL: expected sqlite:PATH`);
  return match[1];
}

export type StoreKind = 'sqlite' | 'postgres';

const POSTGRES_URL = /^postgres(ql)?:\/\//i;

export const storeKind = (config: Config): StoreKind => (POSTGRES_URL.test(config.DATABASE_URL) ? 'postgres' : 'sqlite');

/** A database URL as it may be shown in logs and errors: any password replaced by `***`. */
export function redactDatabaseUrl(value: string): string {
  // sqlite:PATH holds no secret; anything with an authority may (mysql://…, a mistyped postgres URL).
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return value;
  try {
    const url = new URL(value);
    if (url.password !== '') url.password = '***';
    if (url.searchParams.has('password')) url.searchParams.set('password', '***');
    return url.toString();
  } catch {
    return '(not shown: not a valid URL)';
  }
}

/** Where and how to reach PostgreSQL: DATABASE_URL taken apart and merged with the PG_* variables. */
export interface PostgresSettings {
  readonly host: string;
  readonly port: number;
  /** Absent: the server's default, the user's name. */
  readonly database: string | undefined;
  /** Absent: the driver's defaults (PGUSER, PGPASSWORD, ~/.pgpass). */
  readonly user: string | undefined;
  readonly password: string | undefined;
  readonly tls: TlsMode;
  readonly tlsCaFile: string | undefined;
  readonly applicationName: string;
  /** Server settings the URL asks for (`options=-c search_path=…`), kept so they can be combined with the service's own. */
  readonly options: string;
  /** The URL without its password, for messages. */
  readonly shown: string;
}

/** Query parameters of DATABASE_URL that mean the same as in libpq; anything else is refused, not silently ignored. */
const URL_PARAMETERS = ['host', 'sslmode', 'sslrootcert', 'application_name', 'options'];

const isTlsMode = (value: string): value is TlsMode => (TLS_MODES as readonly string[]).includes(value);

export function postgresSettings(config: Config): PostgresSettings {
  const shown = redactDatabaseUrl(config.DATABASE_URL);
  let url: URL;
  try {
    url = new URL(config.DATABASE_URL);
  } catch {
    throw new ConfigError('invalid DATABASE_URL: not a URL of the form postgres://USER:PASSWORD@HOST:PORT/DATABASE (not shown: it may hold a password)');
  }
  const invalid = (why: string): ConfigError => new ConfigError(`invalid DATABASE_URL=${JSON.stringify(shown)}: ${why}`);
  for (const name of url.searchParams.keys()) {
    if (!URL_PARAMETERS.includes(name)) {
      throw invalid(`parameter ${name} is not supported (supported: ${URL_PARAMETERS.join(', ')}; pool, timeouts and TLS are PG_* variables)`);
    }
  }
  const sslmode = url.searchParams.get('sslmode') ?? 'disable';
  if (!isTlsMode(sslmode)) throw invalid(`sslmode must be one of ${TLS_MODES.join(', ')}`);
  const port = url.port === '' ? 5432 : Number(url.port);
  const host = url.searchParams.get('host') ?? decodeURIComponent(url.hostname).replace(/^\[(.*)\]$/, '$1');
  if (host === '') throw invalid('no host');
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  return {
    host,
    port,
    database: database === '' ? undefined : database,
    user: url.username === '' ? undefined : decodeURIComponent(url.username),
    password: url.password === '' ? undefined : decodeURIComponent(url.password),
    tls: TLS_MODES[Math.max(TLS_MODES.indexOf(config.PG_SSL), TLS_MODES.indexOf(sslmode))] ?? 'disable',
    tlsCaFile: config.PG_SSL_CA || url.searchParams.get('sslrootcert') || undefined,
    applicationName: url.searchParams.get('application_name') ?? 'tariff-lookup',
    options: url.searchParams.get('options') ?? '',
    shown,
  };
}

/**
 * Configuration: one schema, read from the environment once (by server.ts and the CLI), validated,
 * with documented defaults. The type is derived from the schema, never written twice.
 */
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/** The project's own folder, for the embedded default's data file. */
export const projectRoot = fileURLToPath(new URL('../../', import.meta.url));
export const defaultDatabasePath = fileURLToPath(new URL('../../data/tariff.sqlite', import.meta.url));
export const demoSourcesDir = fileURLToPath(new URL('../../data/sources/', import.meta.url));

/** libpq's sslmode values that a Node.js client can honour, weakest first. */
export const TLS_MODES = ['disable', 'require', 'verify-ca', 'verify-full'] as const;
export type TlsMode = (typeof TLS_MODES)[number];

const LogLevel = Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)));

export const ConfigSchema = Type.Object({
  HOST: Type.String({ default: '127.0.0.1', minLength: 1, description: 'Address to listen on' }),
  PORT: Type.Integer({ default: 8000, minimum: 0, maximum: 65535, description: 'Port to listen on' }),
  DATABASE_URL: Type.String({
    default: '',
    pattern: '^$|^sqlite:.|^postgres(ql)?://',
    description:
      'sqlite:PATH; postgres://USER:PASSWORD@HOST:PORT/DATABASE (or postgresql://) for PostgreSQL; empty for the embedded demo database in the data folder',
  }),
  PG_POOL_SIZE: Type.Integer({
    default: 0,
    minimum: 0,
    maximum: 1000,
    description: 'PostgreSQL connections per service process; 0 sizes the pool to this machine (twice its CPUs, from 4 to 20)',
  }),
  PG_STATEMENT_TIMEOUT_MS: Type.Integer({
    default: 5000,
    minimum: 1,
    maximum: 600000,
    description: 'Longest a PostgreSQL query of the service may run; past it the query is cancelled and the request answered 503',
  }),
  PG_CONNECT_TIMEOUT_MS: Type.Integer({
    default: 5000,
    minimum: 1,
    maximum: 600000,
    description: 'Longest wait for a PostgreSQL connection (a new one, or a free one of the pool) before the request is answered 503',
  }),
  PG_SSL: Type.Union(
    TLS_MODES.map((m) => Type.Literal(m)),
    {
      default: 'disable',
      description:
        "TLS to PostgreSQL, with libpq's sslmode meanings: disable, require (encrypted, certificate not checked), verify-ca, verify-full; an sslmode in DATABASE_URL counts too, the stricter wins",
    },
  ),
  PG_SSL_CA: Type.String({
    default: '',
    description: 'PEM file of the CA that signs the PostgreSQL server certificate (verify-ca, verify-full); empty: the system CAs',
  }),
  LOG_LEVEL: Type.Unsafe<'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'>({
    ...LogLevel,
    default: 'info',
    description: 'Least severe log lines written: fatal, error, warn, info (one line per request), debug, trace, or silent',
  }),
  JWT_SECRET: Type.String({
    default: '',
    description: 'Secret that signs access tokens (at least 32 bytes); required, except in the embedded demo, which makes one beside its database',
  }),
  JWT_ALGORITHM: Type.Union([Type.Literal('HS256'), Type.Literal('HS384'), Type.Literal('HS512')], {
    default: 'HS256',
    description: 'HMAC algorithm of access tokens; tokens signed with any other are refused',
  }),
  ACCESS_TOKEN_EXPIRE_MINUTES: Type.Integer({ default: 30, minimum: 1, maximum: 525600, description: 'Lifetime of an access token' }),
  LOGIN_MAX_FAILURES: Type.Integer({ default: 5, minimum: 1, description: 'Failed logins allowed per username in the window' }),
  LOGIN_MAX_FAILURES_PER_ADDRESS: Type.Integer({ default: 100, minimum: 1, description: 'Failed logins allowed per client address in the window' }),
  LOGIN_WINDOW_MINUTES: Type.Integer({
    default: 15,
    minimum: 1,
    description: 'Window in which failed logins are counted; a blocked username or address waits until it ends',
  }),
  AUTH_USER_CACHE_SECONDS: Type.Integer({
    default: 2,
    minimum: 0,
    description: 'How long a user found enabled stays trusted without asking the store again; a disabled user loses access within it',
  }),
  DATASET_VERSIONS_KEEP: Type.Integer({
    default: 0,
    minimum: 0,
    description:
      'Dataset versions kept: past this, an import removes the oldest (never the one in force today, never the newest import); 0 keeps every version',
  }),
  RESPONSE_CACHE_ENTRIES: Type.Integer({ default: 10000, minimum: 0, description: 'Answers kept in memory per dataset; 0 turns the cache off' }),
  RESPONSE_CACHE_MB: Type.Integer({ default: 64, minimum: 0, description: 'Memory the answer cache may use' }),
  SQLITE_STATEMENTS_MAX: Type.Integer({
    default: 300,
    minimum: 1,
    description: 'Prepared statements kept per SQLite statement cache (three per open file), the least recently used dropped past it',
  }),
  SQLITE_STATEMENTS_KB: Type.Integer({ default: 1024, minimum: 1, description: 'SQL text the statements of one SQLite statement cache may hold' }),
  METRICS_ENABLED: Type.Boolean({ default: true, description: 'Serve Prometheus metrics at /metrics' }),
  METRICS_TOKEN: Type.String({ default: '', description: 'When set, /metrics requires Authorization: Bearer <this token>' }),
  CORS_ORIGINS: Type.String({ default: '', description: 'Comma-separated origins allowed to call from a browser; empty: CORS off' }),
  RATE_LIMIT_MAX: Type.Integer({
    default: 60000,
    minimum: 0,
    description:
      'Requests one client may make per window, counted per user for a valid token, else per address; past it 429 with Retry-After; 0 turns the limit off. Counted in each server process',
  }),
  RATE_LIMIT_WINDOW_SECONDS: Type.Integer({ default: 60, minimum: 1, maximum: 86400, description: 'Length of the rate-limit window' }),
  TRUST_PROXY: Type.String({
    default: '',
    description:
      'Reverse proxies whose X-Forwarded-For names the client (for the rate limit and the login throttle): comma-separated addresses or CIDR ranges, or loopback, linklocal, uniquelocal; empty: the service is reached directly',
  }),
  MAX_EVENT_LOOP_DELAY_MS: Type.Integer({
    default: 1000,
    minimum: 0,
    description: 'Mean event-loop delay over a second past which requests are refused with 503 and Retry-After until it recovers; 0 turns the check off',
  }),
  REQUEST_TIMEOUT_SECONDS: Type.Integer({
    default: 10,
    minimum: 0,
    maximum: 3600,
    description: 'Longest a client may take to send a whole request, headers and body (else 408 and the connection closed); 0: no limit',
  }),
  CONNECTION_TIMEOUT_SECONDS: Type.Integer({
    default: 30,
    minimum: 0,
    maximum: 3600,
    description: 'Longest a connection may stay silent in the middle of a request or response before it is closed; 0: no limit',
  }),
  KEEP_ALIVE_TIMEOUT_SECONDS: Type.Integer({
    default: 72,
    minimum: 1,
    maximum: 3600,
    description: 'How long an idle keep-alive connection is kept open; longer than the usual 60 s of load balancers, so that they close it first',
  }),
  SHUTDOWN_TIMEOUT_SECONDS: Type.Integer({
    default: 10,
    minimum: 1,
    maximum: 3600,
    description: 'On SIGTERM or SIGINT, how long requests in flight may take to finish; connections still open after it are closed',
  }),
  VIGILANCIAS_POR_USUARIO: Type.Integer({ default: 50, minimum: 0, maximum: 100000, description: 'Watch lists (/api/v1/vigilancias) one user may have' }),
  VIGILANCIAS_REINTENTOS: Type.String({
    default: '5s,30s,2m,10m,30m,1h,3h,6h',
    pattern: '^[0-9]+(ms|s|m|h)(,[0-9]+(ms|s|m|h))*$',
    description: 'Waits between the attempts of a webhook delivery that fails (ms, s, m, h), comma-separated; after the last one it is fallida',
  }),
  VIGILANCIAS_HOSTS_PERMITIDOS: Type.String({
    default: '',
    description:
      'Comma-separated webhook hosts that may be reached over plain http and at loopback, private or link-local addresses (e.g. an ERP inside the network); empty: https to public addresses only',
  }),
  VIGILANCIAS_CONCURRENCIA: Type.Integer({
    default: 16,
    minimum: 1,
    maximum: 1000,
    description: 'Webhook deliveries one process sends at once (each waits at most 10 s for its answer; at most 2 at once to one watch list)',
  }),
  WORKERS: Type.String({
    default: '1',
    pattern: '^(auto|[1-9][0-9]{0,2})$',
    description: 'Server processes sharing the port: a number, or auto for one per CPU core; 1 runs a single process with no cluster',
  }),
  LOTES_POR_USUARIO: Type.Integer({
    default: 3,
    minimum: 1,
    maximum: 1000,
    description: 'Batches (POST /api/v1/lotes) of one user queued or running at once; one more is a 429 with Retry-After',
  }),
  LOTES_RETENCION_DIAS: Type.Integer({
    default: 30,
    minimum: 1,
    maximum: 3650,
    description: 'Days a finished, cancelled or failed batch and its results are kept before they are deleted',
  }),
});

export type Config = Static<typeof ConfigSchema>;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Reads the configuration from an environment; unknown variables are ignored, bad values are one clear error. */
export function loadConfig(env: Readonly<Record<string, string | undefined>>): Config {
  const input: Record<string, unknown> = {};
  for (const key of Object.keys(ConfigSchema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== '') input[key] = value;
  }
  const withDefaults = Value.Default(ConfigSchema, Value.Convert(ConfigSchema, input));
  const errors = [...Value.Errors(ConfigSchema, withDefaults)];
  const first = errors[0];
  if (first) {
    const name = first.path.replace(/^\//, '');
    const given = env[name] ?? '';
    // The database URL may hold a password: it is shown without it, here as everywhere.
    const shown = name === 'DATABASE_URL' ? redactDatabaseUrl(given) : given;
    throw new ConfigError(`invalid ${name}=${JSON.stringify(shown)}: ${first.message}`);
  }
  const config = withDefaults as Config;
  if (storeKind(config) === 'postgres') postgresSettings(config);
  trustProxy(config);
  return config;
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
export const allowedWebhookHosts = (config: Config): ReadonlySet<string> =>
  new Set(
    config.VIGILANCIAS_HOSTS_PERMITIDOS.split(',')
      .map((h) =>
        h
          .trim()
          .toLowerCase()
          .replace(/^\[(.*)\]$/, '$1'),
      )
      .filter((h) => h !== ''),
  );

/** The embedded demo: no database configured, so the project's own demo file is served. */
export const isEmbeddedDemo = (config: Config): boolean => config.DATABASE_URL === '';

/** WORKERS as a number of processes: `auto` is one per core the process may use. */
export const workerCount = (config: Config): number => (config.WORKERS === 'auto' ? availableParallelism() : Number(config.WORKERS));

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

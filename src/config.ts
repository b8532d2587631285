/**
 * Configuration: one schema, read from the environment once (by server.ts and the CLI), validated,
 * with documented defaults. The type is derived from the schema, never written twice. What the
 * values mean (paths, the store's kind, PostgreSQL's settings…) is config-values.ts, which loads no
 * TypeBox: the batches' worker thread uses it without holding the schema's library.
 */
import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { ConfigError, TLS_MODES, postgresSettings, redactDatabaseUrl, storeKind, trustProxy } from './config-values.js';

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
  SQLITE_CACHE_KB: Type.Integer({
    default: 16384,
    minimum: 0,
    description: "Page cache of each connection to the main SQLite file (better-sqlite3's default); the batches' worker threads keep at most 1024",
  }),
  DATASET_VERSIONS_CHECK_MS: Type.Integer({
    default: 2000,
    minimum: 10,
    maximum: 5000,
    description:
      'How often the catalog of dataset versions is read again: a version loaded or removed by another process is seen within this time (at most 5000, the contract’s 5 s)',
  }),
  RELOAD_CHECK_MS: Type.Integer({
    default: 2000,
    minimum: 10,
    maximum: 60000,
    description: 'How often the service checks whether the main store was replaced (SQLite: another file renamed over the path by import)',
  }),
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
  VIGILANCIAS_PUERTOS_PERMITIDOS: Type.String({
    default: '443',
    pattern: '^([1-9][0-9]{0,4})(,[1-9][0-9]{0,4})*$',
    description:
      'Comma-separated ports a webhook URL may name (hosts in VIGILANCIAS_HOSTS_PERMITIDOS may use any); default 443 only, so that a receiver cannot point the service at another service on a public host',
  }),
  VIGILANCIAS_CONCURRENCIA: Type.Integer({
    default: 16,
    minimum: 1,
    maximum: 1000,
    description: 'Webhook deliveries one process sends at once (each waits at most 10 s for its answer; at most 2 at once to one watch list)',
  }),
  VIGILANCIAS_CHECK_MS: Type.Integer({
    default: 2000,
    minimum: 10,
    maximum: 60000,
    description: 'How often the catalog is looked at for versions loaded or coming into force that watch lists must hear of',
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
  LOTES_HILOS: Type.String({
    default: 'auto',
    pattern: '^(auto|[1-9][0-9]?)$',
    description:
      'Threads answering batch lines, each with a store connection of its own: a number, or auto for the cores the process may use divided among the WORKERS processes, less one for the event loop of each process (at least 1)',
  }),
  LOTES_LEASE_S: Type.Integer({
    default: 20,
    minimum: 2,
    maximum: 55,
    description:
      'Seconds a process holds a batch without committing a slice before another copy may take it over (a copy killed mid-batch is replaced within this plus 1 s; at most 55, so within the contract’s 60 s)',
  }),
});

export type Config = Static<typeof ConfigSchema>;

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

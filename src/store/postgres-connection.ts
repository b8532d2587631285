/**
 * Connections to PostgreSQL: pool settings (TLS, timeouts, read-only service sessions), errors
 * mapped to "cannot answer now" (503), named statements, and the schema every load expects.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import type * as Pg from 'pg';
import type { CustomTypesConfig, Pool, PoolClient, PoolConfig, QueryResult, QueryResultRow } from 'pg';
import type { Config } from '../config.js';
import type { PostgresSettings } from '../config-values.js';
import { ConfigError, postgresSettings } from '../config-values.js';
import type { Field } from '../record-sets/define.js';
import { recordSets } from '../record-sets/index.js';
import { metaDdl } from './core.js';
import { buildCreateTable, buildIndexes } from './sql.js';
import { StoreUnavailableError } from './store.js';
import type { VersionInfo } from './versions.js';

/**
 * The driver, loaded when a PostgreSQL store is first used: a process or thread that serves SQLite
 * (the batches' worker thread) never holds it (about 10 MB of resident memory per thread).
 */
let driver: typeof Pg | undefined;
const pg = (): typeof Pg => (driver ??= createRequire(import.meta.url)('pg') as typeof Pg);

// ---------------------------------------------------------------------------------------------
// Schema

export function columnType(f: Field): string {
  switch (f.type.kind) {
    case 'int':
      // SQLite integers are 64-bit and import accepts any safe integer: INTEGER would refuse some.
      return 'BIGINT';
    case 'dec':
      return `NUMERIC(${f.type.precision}, ${f.type.scale})`;
    case 'str':
      return `VARCHAR(${f.type.length}) COLLATE "C"`;
    case 'date8':
      return 'VARCHAR(8) COLLATE "C"';
    case 'text':
      return 'TEXT COLLATE "C"';
  }
}

const META_DDL = metaDdl({ keyText: 'TEXT COLLATE "C"', boolean: 'BOOLEAN', false: 'FALSE' });

/** Advisory lock keys, shared by every process on the database: schema creation, and loads. */
export const SCHEMA_LOCK = 0x7461726966;
export const LOAD_LOCK = 0x7461726967;

/** Where a load builds the new tables before they replace the main ones. */
export const STAGING_SCHEMA = 'tariff_lookup_loading';

/** Where the record sets of a version that is not the newest import are: a schema of its own. */
export const versionSchema = (version: VersionInfo): string => `tariff_lookup_v${version.seq}`;

export async function createMissingTables(client: PoolClient): Promise<void> {
  const expected = ['dataset_info', 'users', 'dataset_versions', ...recordSets.map((rs) => rs.table)];
  const tables = 'SELECT "tablename" FROM "pg_tables" WHERE "schemaname" = current_schema() AND "tablename" = ANY($1)';
  // Nearly always everything is there: then no lock is taken, and a user change never waits for a load.
  if ((await client.query(tables, [expected])).rowCount === expected.length) return;
  await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
  const encoding = (await client.query<{ server_encoding: string }>('SHOW server_encoding')).rows[0]?.server_encoding;
  // Any other encoding would refuse or mangle the accented texts the data is full of.
  if (encoding !== 'UTF8') throw new Error(`the PostgreSQL database must use the UTF8 encoding, not ${encoding ?? 'unknown'}`);
  for (const statement of META_DDL) await client.query(statement);
  const present = await client.query<{ tablename: string }>(tables, [expected]);
  const names = new Set(present.rows.map((r) => r.tablename));
  for (const rs of recordSets) {
    if (names.has(rs.table)) continue;
    await client.query(buildCreateTable(rs, columnType));
    for (const statement of buildIndexes(rs)) await client.query(statement);
  }
}

/**
 * Creates whatever of the schema is missing: record-set tables with their indexes, `users`,
 * `dataset_info`. Record-set tables that exist are left alone: every load rebuilds them from the
 * registry, which is how a change of the registry reaches the database.
 */
export async function ensurePostgresSchema(pool: Pool): Promise<void> {
  await inTransaction(pool, createMissingTables);
}

// ---------------------------------------------------------------------------------------------
// Connections

const INT8_OID = 20;

/** BIGINT values (the int columns, COUNT(*)) as numbers, as SQLite gives them; import keeps them safe integers. */
const parseInt8 = (value: string): number => Number(value);
function typeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
  return oid === INT8_OID ? parseInt8 : (pg().types.getTypeParser(oid, format) as (value: string) => unknown);
}
export const types: CustomTypesConfig = { getTypeParser: typeParser as CustomTypesConfig['getTypeParser'] };

/** Twice the CPUs of this machine, from 4 to 20, unless PG_POOL_SIZE says otherwise. */
export function poolSize(config: Config): number {
  if (config.PG_POOL_SIZE > 0) return config.PG_POOL_SIZE;
  return Math.min(20, Math.max(4, 2 * availableParallelism()));
}

function tlsOptions(settings: PostgresSettings): PoolConfig['ssl'] {
  if (settings.tls === 'disable') return false;
  if (settings.tls === 'require') return { rejectUnauthorized: false };
  let ca: string | undefined;
  if (settings.tlsCaFile !== undefined) {
    try {
      ca = readFileSync(settings.tlsCaFile, 'utf8');
    } catch {
      throw new ConfigError(`PG_SSL_CA: cannot read ${settings.tlsCaFile}`);
    }
  }
  // verify-ca checks the chain but not the host name, as in libpq.
  return settings.tls === 'verify-ca' ? { ca, checkServerIdentity: () => undefined } : { ca };
}

/** `service`: the read-only pool of the running service; `admin`: the loader and user administration. */
export type Purpose = 'service' | 'admin';

/**
 * `versionSchema`: a service pool reading an older version in its own schema (src/store/versions.ts), whose tables
 * are found first in that schema. Pools connect on demand, so one for a version never asked costs nothing.
 */
export function postgresPoolConfig(config: Config, purpose: Purpose, versionSchema?: string): PoolConfig {
  const settings = postgresSettings(config);
  const service = purpose === 'service';
  // The service's settings come last so that the URL's options cannot turn them off.
  // Generic plans: no prepared statement is planned again on every call.
  const serviceOptions = '-c default_transaction_read_only=on -c plan_cache_mode=force_generic_plan';
  const options = [settings.options, service ? serviceOptions : '', versionSchema ? `-c search_path=${versionSchema}` : ''].filter((o) => o !== '').join(' ');
  return {
    host: settings.host,
    port: settings.port,
    database: settings.database,
    user: settings.user,
    password: settings.password,
    ssl: tlsOptions(settings),
    application_name: settings.applicationName,
    options: options === '' ? undefined : options,
    statement_timeout: service ? config.PG_STATEMENT_TIMEOUT_MS : undefined,
    // For when the server cannot even report its timeout (a network that drops everything).
    query_timeout: service ? config.PG_STATEMENT_TIMEOUT_MS + config.PG_CONNECT_TIMEOUT_MS : undefined,
    connectionTimeoutMillis: config.PG_CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    max: service ? poolSize(config) : 2,
    types,
  };
}

export function createPostgresPool(config: Config, purpose: Purpose, versionSchema?: string): Pool {
  const pool = new (pg().Pool)(postgresPoolConfig(config, purpose, versionSchema));
  // An idle connection that dies (server restart, network) is dropped by the pool and the next query
  // opens a new one; without a listener the event would end the process.
  pool.on('error', () => undefined);
  // A connection that dies while checked out (a transaction, a worker's slice) emits the same event on
  // its client, where the pool no longer listens: the query under way fails with it, which is enough.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/** pg prepares a named statement once per connection; one name per SQL text, so the name is a hash of it. */
export function statementName(text: string): string {
  return `tl_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
}

/**
 * SQLSTATE classes and codes that mean "the database cannot answer now" rather than "this request
 * is wrong": connection (08), authorisation (28), no such database (3D), resources (53), operator
 * intervention and statement timeout (57), system (58); tables or columns not there (no dataset
 * loaded, or loaded by another version); a standby cancelling a query for replication.
 */
const UNAVAILABLE_CLASSES = new Set(['08', '28', '3D', '53', '57', '58']);
const UNAVAILABLE_CODES = new Set(['42P01', '42703', '40001']);

/**
 * The error a store method throws for a failed query: StoreUnavailableError (a 503) when the database
 * cannot answer, the server's own error otherwise. Errors without a SQLSTATE come from the network or
 * the pool (refused, reset, timed out): the database is unavailable. `shown` names the database
 * without its password.
 */
export function storeError(error: unknown, shown: string): unknown {
  if (error instanceof pg().DatabaseError) {
    const code = error.code ?? '';
    if (!UNAVAILABLE_CLASSES.has(code.slice(0, 2)) && !UNAVAILABLE_CODES.has(code)) return error;
    return new StoreUnavailableError(`PostgreSQL at ${shown} cannot answer: ${code} ${error.message}`);
  }
  const reason = error instanceof Error ? `${(error as { code?: string }).code ?? ''} ${error.message}`.trim() : String(error);
  return new StoreUnavailableError(`PostgreSQL at ${shown} cannot answer: ${reason}`);
}

/**
 * Texts prepared as named statements, per pool: each is prepared once per connection and kept by it
 * (pg remembers it, the server keeps its plan) for the connection's life, so their number is bounded.
 * A text is named on its second use, while fewer than this are named; the others are sent unnamed and
 * parsed each time. Lookups and searches have a few dozen texts; a batch's reads of many fractions at
 * once have one per count of fractions, record set and countries: named, they grew a 10,000-line
 * batch's service by 34 MB more.
 */
export const NAMED_MAX = 500;
/** Texts seen once, remembered until this many (then forgotten, and counted again). */
const SEEN_MAX = 2000;

/** A pool and how to name its database in messages; every query goes through `query`. */
export class Connection {
  readonly shown: string;
  readonly pool: Pool;
  /** Each named text and its name (hashed once). */
  private readonly named = new Map<string, string>();
  private readonly seenOnce = new Set<string>();

  constructor(config: Config, purpose: Purpose, versionSchema?: string) {
    this.shown = postgresSettings(config).shown;
    this.pool = createPostgresPool(config, purpose, versionSchema);
  }

  /** The statement's name when `text` is (now) one of the named, else undefined: sent unnamed. */
  private nameOf(text: string): string | undefined {
    const known = this.named.get(text);
    if (known !== undefined) return known;
    if (this.seenOnce.has(text) && this.named.size < NAMED_MAX) {
      this.seenOnce.delete(text);
      const name = statementName(text);
      this.named.set(text, name);
      return name;
    }
    if (this.seenOnce.size >= SEEN_MAX) this.seenOnce.clear();
    this.seenOnce.add(text);
    return undefined;
  }

  async query<T extends QueryResultRow>(text: string, values: readonly unknown[] = []): Promise<QueryResult<T>> {
    const name = this.nameOf(text);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.pool.query<T>(name === undefined ? { text, values: [...values] } : { name, text, values: [...values] });
      } catch (error) {
        // A standby cancels a read that conflicts with replaying a load; a second try reads the new data.
        if (attempt === 1 && error instanceof pg().DatabaseError && error.code === '40001') continue;
        throw storeError(error, this.shown);
      }
    }
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

// ---------------------------------------------------------------------------------------------
// Loading

/**
 * The one transaction block on PostgreSQL (the loads here, the working store's src/store/work.ts):
 * `work` runs between BEGIN and COMMIT on a connection of its own, rolled back when it throws.
 * `connectError`: what to throw when no connection can be had (the pool's error when not given).
 */
export async function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>, connectError?: (error: unknown) => unknown): Promise<T> {
  let client: PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    if (connectError !== undefined) throw connectError(error);
    throw error;
  }
  let failed = false;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    failed = true;
    // The connection may be gone already; the server rolls back by itself then.
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    // A connection whose transaction failed is not trusted again (it may be one cut in the middle,
    // which the pool would otherwise hand to the next transaction).
    client.release(failed);
  }
}

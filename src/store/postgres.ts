/**
 * The PostgreSQL store: the same Store as SQLite, over a pool of connections to a database server
 * that several copies of the service share (docs/adr/0003-postgresql.md).
 *
 * - The SQL is the SQLite store's, from sql.ts, with `$n` placeholders. Every text column is
 *   COLLATE "C", so equality, ordering, prefix ranges and UPPER() compare bytes as SQLite does,
 *   whatever the database's own collation, and plain B-tree indexes serve the prefix ranges.
 * - Service connections are read-only by construction (`default_transaction_read_only`) and carry the
 *   statement timeout; the loader and the user administration open their own, ordinary connections.
 * - Statements are named after a hash of their text: pg prepares each once per connection and reuses it.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import pg from 'pg';
import type { CustomTypesConfig, Pool, PoolClient, PoolConfig, QueryResult, QueryResultRow } from 'pg';
import type { Config, PostgresSettings } from '../config.js';
import { ConfigError, loadConfig, postgresSettings } from '../config.js';
import type { Field, RecordSet } from '../record-sets/define.js';
import { recordSets } from '../record-sets/index.js';
import type { FullTextQuery, FullTextResult } from './fulltext.js';
import { PostgresFullText, SEARCH_TABLES, buildPostgresFullText } from './postgres-fulltext.js';
import type { Suggestion } from '../search/vocabulary.js';
import { DATASET_INFO_DDL, buildCount, buildCreateTable, buildIndexes, buildLookup, buildSearch, postgresDialect, quote } from './sql.js';
import type { Condition } from './sql.js';
import type { BuildOptions, DatasetWriter, UserSummary } from './sqlite.js';
import type { DatasetInfo, Row, SearchQuery, Store, User } from './store.js';
import { StoreUnavailableError } from './store.js';

// ---------------------------------------------------------------------------------------------
// Schema

function columnType(f: Field): string {
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

/** SQLite's tables; `counts` stays JSON text because jsonb would reorder its keys. */
const META_DDL = [
  DATASET_INFO_DDL,
  `CREATE TABLE IF NOT EXISTS "users" (
  "username" TEXT COLLATE "C" PRIMARY KEY,
  "full_name" TEXT,
  "email" TEXT,
  "disabled" BOOLEAN NOT NULL DEFAULT FALSE,
  "password_hash" TEXT NOT NULL,
  "created_at" TEXT NOT NULL
)`,
];

/** Advisory lock keys, shared by every process on the database: schema creation, and loads. */
const SCHEMA_LOCK = 0x7461726966;
const LOAD_LOCK = 0x7461726967;

/** Where a load builds the new tables before they replace the served ones. */
const STAGING_SCHEMA = 'tariff_lookup_loading';

async function createMissingTables(client: PoolClient): Promise<void> {
  const expected = ['dataset_info', 'users', ...recordSets.map((rs) => rs.table)];
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
  return oid === INT8_OID ? parseInt8 : (pg.types.getTypeParser(oid, format) as (value: string) => unknown);
}
const types: CustomTypesConfig = { getTypeParser: typeParser as CustomTypesConfig['getTypeParser'] };

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

export function postgresPoolConfig(config: Config, purpose: Purpose): PoolConfig {
  const settings = postgresSettings(config);
  const service = purpose === 'service';
  // The service's settings come last so that the URL's options cannot turn them off.
  // Generic plans: the search's per-field index subqueries (src/search/ranking.ts) are then always
  // answered through the GIN index, and no prepared statement is planned again on every call.
  const serviceOptions = '-c default_transaction_read_only=on -c plan_cache_mode=force_generic_plan';
  const options = [settings.options, service ? serviceOptions : ''].filter((o) => o !== '').join(' ');
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

export function createPostgresPool(config: Config, purpose: Purpose): Pool {
  const pool = new pg.Pool(postgresPoolConfig(config, purpose));
  // An idle connection that dies (server restart, network) is dropped by the pool and the next query
  // opens a new one; without a listener the event would end the process.
  pool.on('error', () => undefined);
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
  if (error instanceof pg.DatabaseError) {
    const code = error.code ?? '';
    if (!UNAVAILABLE_CLASSES.has(code.slice(0, 2)) && !UNAVAILABLE_CODES.has(code)) return error;
    return new StoreUnavailableError(`PostgreSQL at ${shown} cannot answer: ${code} ${error.message}`);
  }
  const reason = error instanceof Error ? `${(error as { code?: string }).code ?? ''} ${error.message}`.trim() : String(error);
  return new StoreUnavailableError(`PostgreSQL at ${shown} cannot answer: ${reason}`);
}

/** A pool and how to name its database in messages; every query goes through `query`. */
class Connection {
  readonly shown: string;
  readonly pool: Pool;

  constructor(config: Config, purpose: Purpose) {
    this.shown = postgresSettings(config).shown;
    this.pool = createPostgresPool(config, purpose);
  }

  async query<T extends QueryResultRow>(text: string, values: readonly unknown[] = []): Promise<QueryResult<T>> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.pool.query<T>({ name: statementName(text), text, values: [...values] });
      } catch (error) {
        // A standby cancels a read that conflicts with replaying a load; a second try reads the new data.
        if (attempt === 1 && error instanceof pg.DatabaseError && error.code === '40001') continue;
        throw storeError(error, this.shown);
      }
    }
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

// ---------------------------------------------------------------------------------------------
// The store

/** PostgreSQL text cannot hold NUL: a value with one matches no stored text, and must not reach the server. */
const hasNul = (value: string | number): boolean => typeof value === 'string' && value.includes('\0');

function withoutNul(c: Condition): Condition | null {
  if (c.kind === 'null') return c;
  if (c.kind !== 'or') return hasNul(c.value) ? null : c;
  const any = c.any.map(withoutNul).filter((x): x is Condition => x !== null);
  return any.length === 0 ? null : { kind: 'or', any };
}

/** The conditions a server can evaluate, or null when they can match nothing (as SQLite would answer). */
function satisfiable(conditions: readonly Condition[]): Condition[] | null {
  const kept: Condition[] = [];
  for (const c of conditions) {
    const k = withoutNul(c);
    if (k === null) return null;
    kept.push(k);
  }
  return kept;
}

interface DatasetRow {
  source: string;
  imported_at: string;
  hash: string;
  counts: string;
}

interface UserRow {
  username: string;
  full_name: string | null;
  email: string | null;
  disabled: boolean;
  password_hash: string;
}

const DATASET_SQL = 'SELECT "source", "imported_at", "hash", "counts" FROM "dataset_info" WHERE "id" = 1';
const USER_SQL = 'SELECT "username", "full_name", "email", "disabled", "password_hash" FROM "users" WHERE "username" = $1';

export class PostgresStore implements Store {
  readonly kind = 'postgres' as const;
  private readonly db: Connection;

  /** Connects lazily: the service starts, and answers 503, while the database is down. */
  private readonly text: PostgresFullText;

  constructor(config: Config) {
    this.db = new Connection(config, 'service');
    this.text = new PostgresFullText((text, values) => this.db.query(text, values));
  }

  async search(rs: RecordSet, query: SearchQuery): Promise<Row[]> {
    const conditions = satisfiable(query.conditions);
    if (conditions === null) return [];
    const q = buildSearch(rs, conditions, query.skip, query.limit, postgresDialect);
    return (await this.db.query<Row>(q.text, q.values)).rows;
  }

  async count(rs: RecordSet, conditions: readonly Condition[]): Promise<number> {
    const kept = satisfiable(conditions);
    if (kept === null) return 0;
    const q = buildCount(rs, kept, postgresDialect);
    return (await this.db.query<{ total: number }>(q.text, q.values)).rows[0]?.total ?? 0;
  }

  async lookup(rs: RecordSet, key: readonly (string | number)[]): Promise<Row | undefined> {
    if (key.some(hasNul)) return undefined;
    return (await this.db.query<Row>(buildLookup(rs, postgresDialect), key)).rows[0];
  }

  async dataset(): Promise<DatasetInfo | null> {
    const row = (await this.db.query<DatasetRow>(DATASET_SQL)).rows[0];
    if (!row) return null;
    return { source: row.source, importedAt: row.imported_at, hash: row.hash, counts: JSON.parse(row.counts) as Record<string, number> };
  }

  async findUser(username: string): Promise<User | undefined> {
    if (hasNul(username)) return undefined;
    const row = (await this.db.query<UserRow>(USER_SQL, [username])).rows[0];
    if (!row) return undefined;
    return { username: row.username, fullName: row.full_name, email: row.email, disabled: row.disabled, passwordHash: row.password_hash };
  }

  fullText(query: FullTextQuery): Promise<FullTextResult> {
    return this.text.search(query);
  }

  suggest(q: string): Promise<Suggestion[]> {
    return this.text.suggest(q);
  }

  close(): Promise<void> {
    return this.db.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Loading

async function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
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
    // A connection that failed is not trusted again.
    client.release(failed);
  }
}

type Values = readonly (string | number | null)[];

/** Rows per INSERT: many per round trip, within the protocol's 65,535 parameters. */
const BATCH_ROWS = 1000;
const MAX_PARAMETERS = 65535;
/** Batches sent and not yet answered before `ready()` makes a load wait. */
const MAX_IN_FLIGHT = 2;
/** Rows read back per query to hash the content. */
const HASH_PAGE = 5000;

function buildBatchInsert(rs: RecordSet, rows: number): string {
  const width = rs.fields.length;
  const tuple = (r: number): string => `(${rs.fields.map((_, c) => postgresDialect.placeholder(r * width + c + 1)).join(', ')})`;
  const tuples = Array.from({ length: rows }, (_, r) => tuple(r));
  return `INSERT INTO ${quote(rs.table)} (${columnList(rs)}) VALUES ${tuples.join(', ')}`;
}

const columnList = (rs: RecordSet): string => rs.fields.map((f) => quote(f.name)).join(', ');

/**
 * The content hash of SQLite's loader, byte for byte: every record set's rows in identifier order,
 * as stored, so the same data has the same hash on both stores however it was loaded. Read back in
 * pages that follow the primary key, so a large dataset is never held in memory at once.
 */
async function contentHash(client: PoolClient): Promise<string> {
  const hash = createHash('sha256');
  for (const rs of recordSets) {
    const keys = rs.key.map(quote).join(', ');
    const keyAt = rs.key.map((k) => rs.fields.findIndex((f) => f.name === k));
    let after: unknown[] = [];
    for (;;) {
      const from = after.length === 0 ? '' : ` WHERE (${keys}) > (${after.map((_, i) => postgresDialect.placeholder(i + 1)).join(', ')})`;
      const text = `SELECT ${columnList(rs)} FROM ${quote(rs.table)}${from} ORDER BY ${keys} LIMIT ${HASH_PAGE}`;
      const { rows } = await client.query<unknown[]>({ text, values: after, rowMode: 'array', types });
      for (const row of rows) hash.update(`${rs.path}\t${JSON.stringify(row)}\n`);
      const last = rows[rows.length - 1];
      if (rows.length < HASH_PAGE || !last) break;
      after = keyAt.map((i) => last[i]);
    }
  }
  return hash.digest('hex');
}

/** GRANT statements that give the new table what the old one had been granted (a reader role, say). */
async function grantsOf(client: PoolClient, schema: string, table: string): Promise<string[]> {
  const result = await client.query<{ grant: string }>(
    `SELECT format('GRANT %s ON TABLE %I.%I TO %s%s', a.privilege_type, n.nspname, c.relname,
              CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(r.rolname) END,
              CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END) AS "grant"
       FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace
       CROSS JOIN LATERAL aclexplode(c.relacl) a
       LEFT JOIN pg_roles r ON r.oid = a.grantee
      WHERE n.nspname = $1 AND c.relname = $2 AND a.grantee <> c.relowner`,
    [schema, table],
  );
  return result.rows.map((r) => r.grant);
}

/**
 * A new dataset, built in one transaction: the rows go into tables of a staging schema beside the
 * served ones, and commit() puts them in place of the served tables and commits, so readers (every
 * copy of the service) see the old dataset until then, and a failed or abandoned build changes
 * nothing. The PostgreSQL counterpart of SqliteDatasetBuild, with the same `insert`; only start,
 * commit and abandon are asynchronous, and `ready()` lets a long load wait for the rows it has sent
 * (rows are buffered and sent in multi-row INSERTs).
 *
 * Users are always kept: the users table is never part of a load. Only one build runs at a time
 * across every process that shares the database; a second one is refused.
 */
export class PostgresDatasetBuild implements DatasetWriter {
  private readonly buffers = new Map<RecordSet, Values[]>();
  private readonly identifiers = new Map<RecordSet, Set<string>>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly statements = new Map<string, { text: string; name: string }>();
  private failure: { error: unknown } | undefined;
  private last: Promise<void> = Promise.resolve();
  private finished = false;

  private constructor(
    private readonly client: PoolClient,
    private readonly schema: string,
    private readonly served: boolean,
    private readonly options: BuildOptions,
    private readonly onEnd: () => Promise<void>,
  ) {}

  /** `target`: a DATABASE_URL, or a pool of ordinary (not read-only) connections such as createPostgresPool(config, 'admin'). */
  static async start(target: string | Pool, options: BuildOptions = {}): Promise<PostgresDatasetBuild> {
    const owned = typeof target === 'string' ? createPostgresPool(loadConfig({ DATABASE_URL: target }), 'admin') : null;
    const pool = owned ?? (target as Pool);
    const end = async (): Promise<void> => {
      if (owned) await owned.end();
    };
    let client: PoolClient | undefined;
    try {
      client = await pool.connect();
      await client.query('BEGIN');
      const locked = (await client.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS "locked"', [LOAD_LOCK])).rows[0];
      if (!locked?.locked) throw new Error('another import into this PostgreSQL database is running');
      await createMissingTables(client);
      const schema = (await client.query<{ schema: string | null }>('SELECT current_schema() AS "schema"')).rows[0]?.schema;
      if (!schema) throw new Error('PostgreSQL: no schema to load into (check search_path)');
      const served = ((await client.query('SELECT 1 FROM "dataset_info"')).rowCount ?? 0) > 0;
      await client.query(`DROP SCHEMA IF EXISTS ${quote(STAGING_SCHEMA)} CASCADE`);
      await client.query(`CREATE SCHEMA ${quote(STAGING_SCHEMA)}`);
      // Unqualified names mean the staging tables until commit() qualifies the served ones.
      await client.query(`SET LOCAL search_path TO ${quote(STAGING_SCHEMA)}`);
      for (const rs of recordSets) await client.query(buildCreateTable(rs, columnType));
      return new PostgresDatasetBuild(client, schema, served, options, end);
    } catch (error) {
      await client?.query('ROLLBACK').catch(() => undefined);
      client?.release(true);
      await end();
      throw error;
    }
  }

  /** Whether a dataset is served now, to keep record sets from. */
  get replacesExisting(): boolean {
    return this.served;
  }

  /** Adds a row; false, and nothing added, when the record set already holds a row with its identifier. */
  insert(rs: RecordSet, row: Values): boolean {
    this.stillOpen();
    if (this.failure) throw this.failure.error;
    // Known here, without waiting for the server: the staging tables start empty and get rows only from here.
    const seen = this.identifiers.get(rs) ?? new Set<string>();
    this.identifiers.set(rs, seen);
    const id = JSON.stringify(rs.key.map((k) => row[rs.fields.findIndex((f) => f.name === k)]));
    if (seen.has(id)) return false;
    seen.add(id);
    const buffer = this.buffers.get(rs) ?? [];
    buffer.push(row);
    this.buffers.set(rs, buffer);
    if (buffer.length >= Math.min(BATCH_ROWS, Math.floor(MAX_PARAMETERS / rs.fields.length))) {
      this.buffers.delete(rs);
      this.send(rs, buffer);
    }
    return true;
  }

  /** Resolves once few enough batches await the server; a long load awaits it now and then to bound its memory. */
  async ready(): Promise<void> {
    while (this.inFlight.size > MAX_IN_FLIGHT) await this.inFlight.values().next().value;
    if (this.failure) throw this.failure.error;
  }

  /** Completes the new dataset and puts it in place of the served one, in the same transaction. */
  async commit(source: string): Promise<DatasetInfo> {
    this.claim();
    const { client } = this;
    try {
      for (const [rs, rows] of this.buffers) if (rows.length > 0) this.send(rs, rows);
      this.buffers.clear();
      await Promise.all(this.inFlight);
      if (this.failure) throw this.failure.error;
      for (const rs of this.options.keep ?? []) await this.copyFromServed(rs);
      // Indexes built once over the loaded rows are faster to make than kept up row by row.
      for (const rs of recordSets) for (const statement of buildIndexes(rs)) await client.query(statement);
      await buildPostgresFullText(client);
      const counts: Record<string, number> = {};
      for (const rs of recordSets) {
        const total = (await client.query<{ total: number }>({ text: buildCount(rs, [], postgresDialect).text, types })).rows[0]?.total;
        counts[rs.path] = total ?? 0;
      }
      const info: DatasetInfo = { source, importedAt: new Date().toISOString(), hash: await contentHash(client), counts };
      await client.query(`ANALYZE ${recordSets.map((rs) => quote(rs.table)).join(', ')}`);
      await this.switchIn(info);
      await client.query('COMMIT');
      client.release();
      return info;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release(true);
      throw error;
    } finally {
      await this.onEnd();
    }
  }

  /** Throws the new dataset away; the served one was never touched. */
  async abandon(): Promise<void> {
    if (this.finished) return;
    this.claim();
    await Promise.all(this.inFlight);
    await this.client.query('ROLLBACK').catch(() => undefined);
    this.client.release(true);
    await this.onEnd();
  }

  private stillOpen(): void {
    if (this.finished) throw new Error('this PostgreSQL load has already been committed or abandoned');
  }

  private claim(): void {
    this.stillOpen();
    this.finished = true;
  }

  /** The served tables are locked only from here to COMMIT, a matter of milliseconds. */
  private async switchIn(info: DatasetInfo): Promise<void> {
    const { client } = this;
    const target = quote(this.schema);
    for (const rs of recordSets) {
      const grants = await grantsOf(client, this.schema, rs.table);
      await client.query(`DROP TABLE IF EXISTS ${target}.${quote(rs.table)}`);
      await client.query(`ALTER TABLE ${quote(STAGING_SCHEMA)}.${quote(rs.table)} SET SCHEMA ${target}`);
      for (const grant of grants) await client.query(grant);
    }
    for (const table of SEARCH_TABLES) {
      const grants = await grantsOf(client, this.schema, table);
      await client.query(`DROP TABLE IF EXISTS ${target}.${quote(table)}`);
      await client.query(`ALTER TABLE ${quote(STAGING_SCHEMA)}.${quote(table)} SET SCHEMA ${target}`);
      for (const grant of grants) await client.query(grant);
    }
    await client.query(`DROP SCHEMA ${quote(STAGING_SCHEMA)}`);
    await client.query(
      `INSERT INTO ${target}."dataset_info" ("id", "source", "imported_at", "hash", "counts") VALUES (1, $1, $2, $3, $4)
       ON CONFLICT ("id") DO UPDATE SET "source" = EXCLUDED."source", "imported_at" = EXCLUDED."imported_at",
         "hash" = EXCLUDED."hash", "counts" = EXCLUDED."counts"`,
      [info.source, info.importedAt, info.hash, JSON.stringify(info.counts)],
    );
  }

  /** Copies a record set as it is served; a served table from an older schema cannot be kept silently. */
  private async copyFromServed(rs: RecordSet): Promise<void> {
    const { rows } = await this.client.query<{ column_name: string }>(
      'SELECT "column_name" FROM information_schema.columns WHERE "table_schema" = $1 AND "table_name" = $2',
      [this.schema, rs.table],
    );
    const present = new Set(rows.map((r) => r.column_name));
    if (present.size === 0) throw new Error(`cannot keep ${rs.path}: the current database has no table ${rs.table}`);
    const missing = rs.fields.filter((f) => !present.has(f.name)).map((f) => f.name);
    if (missing.length > 0) throw new Error(`cannot keep ${rs.path}: the current database has no column ${missing.join(', ')}`);
    const columns = columnList(rs);
    await this.client.query(`INSERT INTO ${quote(rs.table)} (${columns}) SELECT ${columns} FROM ${quote(this.schema)}.${quote(rs.table)}`);
  }

  private statement(rs: RecordSet, rows: number): { text: string; name: string } {
    const key = `${rs.path}\t${rows}`;
    let statement = this.statements.get(key);
    if (!statement) {
      const text = buildBatchInsert(rs, rows);
      statement = { text, name: statementName(text) };
      this.statements.set(key, statement);
    }
    return statement;
  }

  /** Queues a batch behind the previous one (a connection runs one query at a time); never rejects. */
  private send(rs: RecordSet, rows: readonly Values[]): void {
    const { text, name } = this.statement(rs, rows.length);
    const values = rows.flat();
    const sent = this.last.then(async () => {
      if (this.failure) return;
      try {
        await this.client.query({ name, text, values });
      } catch (error) {
        this.failure = { error };
      }
    });
    this.last = sent;
    this.inFlight.add(sent);
    void sent.then(() => this.inFlight.delete(sent));
  }
}

/** What a fill receives: SQLite's DatasetWriter, plus a wait that bounds the rows held in memory. */
export interface PostgresDatasetWriter extends DatasetWriter {
  ready(): Promise<void>;
}

/**
 * Builds a complete dataset from `fill` (see PostgresDatasetBuild), as writeSqliteDatabase does on
 * SQLite: two rows with one identifier are an error here. `fill` may be synchronous (its rows are
 * then held until sent) or asynchronous, awaiting `ready()` now and then.
 */
export async function writePostgresDatabase(
  target: string | Pool,
  source: string,
  fill: (writer: PostgresDatasetWriter) => void | Promise<void>,
  options: BuildOptions = {},
): Promise<DatasetInfo> {
  const build = await PostgresDatasetBuild.start(target, options);
  try {
    await fill({
      insert: (rs, row) => {
        if (!build.insert(rs, row)) throw new Error(`${rs.path}: a second record with the identifier of ${JSON.stringify(row)}`);
        return true;
      },
      ready: () => build.ready(),
    });
  } catch (error) {
    await build.abandon();
    throw error;
  }
  return build.commit(source);
}

// ---------------------------------------------------------------------------------------------
// Users

/** The same operations as SqliteUserAdmin, for the command line; creates the schema if it is missing. */
export class PostgresUserAdmin {
  private constructor(private readonly db: Connection) {}

  static async open(config: Config): Promise<PostgresUserAdmin> {
    const db = new Connection(config, 'admin');
    try {
      await ensurePostgresSchema(db.pool);
    } catch (error) {
      await db.close();
      throw storeError(error, db.shown);
    }
    return new PostgresUserAdmin(db);
  }

  async list(): Promise<UserSummary[]> {
    const result = await this.db.query<UserSummary>(
      'SELECT "username", "full_name", "email", "disabled", "created_at" FROM "users" ORDER BY "username"',
    );
    return result.rows;
  }

  /** False when the username is taken. */
  async add(username: string, passwordHash: string, fullName: string | null, email: string | null): Promise<boolean> {
    const result = await this.db.query(
      'INSERT INTO "users" ("username", "full_name", "email", "disabled", "password_hash", "created_at") VALUES ($1, $2, $3, FALSE, $4, $5) ON CONFLICT DO NOTHING',
      [username, fullName, email, passwordHash, new Date().toISOString()],
    );
    return result.rowCount === 1;
  }

  /** Each returns false when there is no such user. */
  async setDisabled(username: string, disabled: boolean): Promise<boolean> {
    return (await this.db.query('UPDATE "users" SET "disabled" = $1 WHERE "username" = $2', [disabled, username])).rowCount === 1;
  }

  async setPassword(username: string, passwordHash: string): Promise<boolean> {
    return (await this.db.query('UPDATE "users" SET "password_hash" = $1 WHERE "username" = $2', [passwordHash, username])).rowCount === 1;
  }

  async remove(username: string): Promise<boolean> {
    return (await this.db.query('DELETE FROM "users" WHERE "username" = $1', [username])).rowCount === 1;
  }

  close(): Promise<void> {
    return this.db.close();
  }
}

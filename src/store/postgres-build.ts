/**
 * Loading PostgreSQL: a new dataset built in a staging schema inside one transaction and switched in
 * place of the main tables at commit, so readers see the old dataset or the whole new one.
 */
import type { PoolClient } from 'pg';
import type { Config } from '../config.js';
import { redactDatabaseUrl } from '../config-values.js';
import type { RecordSet } from '../record-sets/define.js';
import { recordSets } from '../record-sets/index.js';
import {
  DATASET_SELECT,
  catalogOf,
  checkKeepable,
  columnList,
  datasetValues,
  describeDataset,
  newVersion,
  planVersion,
  removalRefused,
  selectChanges,
  toDatasetInfo,
} from './core.js';
import type { DatasetRow, VersionPlan } from './core.js';
import {
  LOAD_LOCK,
  STAGING_SCHEMA,
  columnType,
  createMissingTables,
  createPostgresPool,
  inTransaction,
  statementName,
  storeError,
  types,
  versionSchema,
} from './postgres-connection.js';
import { SEARCH_TABLES, buildPostgresFullText } from './postgres-fulltext.js';
import { TIPOS_CAMBIO_ALL, TIPOS_CAMBIO_TABLE, tiposCambioDdl } from './rates-coverage.js';
import { shippedTiposCambio } from '../tipos-cambio/series.js';
import { shippedReglas } from '../reglas-origen/archivos.js';
import { REGLAS_ORIGEN_ALL, REGLAS_ORIGEN_TABLE, reglasOrigenDdl, reglasOrigenInsert, reglasValues } from './reglas-origen-table.js';
import type { Fix } from '../tipos-cambio/series.js';
import { buildCount, buildCreateTable, buildIndexes, postgresDialect, quote } from './sql.js';
import type { BuildOptions, CommittedDataset, DatasetBuild, DatasetInfo, Values } from './store.js';
import type { VersionInfo, VersionRow } from './versions.js';
import { VERSIONS_SELECT, newestImport, versionInsert, versionValues } from './versions.js';

/** Exchange rates per INSERT (two arrays, whatever their length). */
const TIPOS_CAMBIO_BATCH = 10000;
/** Rows per INSERT: many per round trip, within the protocol's 65,535 parameters. */
const BATCH_ROWS = 1000;
const MAX_PARAMETERS = 65535;
/** Batches sent and not yet answered before `ready()` makes a load wait. */
const MAX_IN_FLIGHT = 2;
/** Rows read back per query to hash the content. */
const HASH_PAGE = 5000;
/** Rows read per query for a download: each client holds a page at a time, so a small one keeps several at once light. */
const STREAM_PAGE = 500;

function buildBatchInsert(rs: RecordSet, rows: number): string {
  const width = rs.fields.length;
  const tuple = (r: number): string => `(${rs.fields.map((_, c) => postgresDialect.placeholder(r * width + c + 1)).join(', ')})`;
  const tuples = Array.from({ length: rows }, (_, r) => tuple(r));
  return `INSERT INTO ${quote(rs.table)} (${columnList(rs)}) VALUES ${tuples.join(', ')}`;
}

/** Rows of a record set in identifier order, read in pages that follow the primary key, so a large dataset is never held in memory at once. */
async function* pagedRows(client: PoolClient, rs: RecordSet, page = HASH_PAGE): AsyncIterable<Values> {
  const keys = rs.key.map(quote).join(', ');
  const keyAt = rs.key.map((k) => rs.fields.findIndex((f) => f.name === k));
  let after: unknown[] = [];
  for (;;) {
    const from = after.length === 0 ? '' : ` WHERE (${keys}) > (${after.map((_, i) => postgresDialect.placeholder(i + 1)).join(', ')})`;
    const text = `SELECT ${columnList(rs)} FROM ${quote(rs.table)}${from} ORDER BY ${keys} LIMIT ${page}`;
    const rows = (await client.query({ text, values: after, rowMode: 'array', types })).rows as unknown as Values[];
    yield* rows;
    const last = rows[rows.length - 1];
    if (rows.length < page || !last) return;
    after = keyAt.map((i) => last[i]);
  }
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
 * main ones, and commit() puts them in place of the main tables and commits, so readers (every
 * copy of the service) see the old dataset until then, and a failed or abandoned build changes
 * nothing. The PostgreSQL counterpart of SqliteDatasetBuild, with the same `insert`; only start,
 * commit and abandon are asynchronous, and `ready()` lets a long load wait for the rows it has sent
 * (rows are buffered and sent in multi-row INSERTs).
 *
 * Users are always kept: the users table is never part of a load. Only one build runs at a time
 * across every process that shares the database; a second one is refused.
 */
export class PostgresDatasetBuild implements DatasetBuild {
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
    private readonly plan: VersionPlan,
    private readonly options: BuildOptions,
    private readonly onEnd: () => Promise<void>,
  ) {}

  /** Over a pool of its own, of ordinary (not read-only) connections, ended with the build. */
  static async start(config: Config, options: BuildOptions = {}): Promise<PostgresDatasetBuild> {
    const pool = createPostgresPool(config, 'admin');
    const end = (): Promise<void> => pool.end();
    let client: PoolClient | undefined;
    try {
      client = await pool.connect();
      await client.query('BEGIN');
      const locked = (await client.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS "locked"', [LOAD_LOCK])).rows[0];
      if (!locked?.locked) throw new Error('another import into this PostgreSQL database is running');
      await createMissingTables(client);
      const schema = (await client.query<{ schema: string | null }>('SELECT current_schema() AS "schema"')).rows[0]?.schema;
      if (!schema) throw new Error('PostgreSQL: no schema to load into (check search_path)');
      const catalog = await readCatalog(client);
      await client.query(`DROP SCHEMA IF EXISTS ${quote(STAGING_SCHEMA)} CASCADE`);
      await client.query(`CREATE SCHEMA ${quote(STAGING_SCHEMA)}`);
      // Unqualified names mean the staging tables until commit() qualifies the main ones.
      await client.query(`SET LOCAL search_path TO ${quote(STAGING_SCHEMA)}`);
      for (const rs of recordSets) await client.query(buildCreateTable(rs, columnType));
      await client.query(tiposCambioDdl('TEXT COLLATE "C"'));
      await client.query(reglasOrigenDdl('TEXT COLLATE "C"'));
      return new PostgresDatasetBuild(client, schema, planVersion(catalog, options.vigenteDesde), options, end);
    } catch (error) {
      await client?.query('ROLLBACK').catch(() => undefined);
      client?.release(true);
      await end();
      throw error;
    }
  }

  /** Whether there is a version in force on the new one's date to keep record sets from. */
  get replacesExisting(): boolean {
    return this.plan.keepFrom !== undefined;
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

  /** Completes the new dataset and puts it in place of the main one, in the same transaction. */
  async commit(source: string): Promise<CommittedDataset> {
    this.claim();
    const { client } = this;
    try {
      for (const [rs, rows] of this.buffers) if (rows.length > 0) this.send(rs, rows);
      this.buffers.clear();
      await Promise.all(this.inFlight);
      if (this.failure) throw this.failure.error;
      if (this.plan.keepFrom) for (const rs of this.options.keep ?? []) await this.copyFromMainTables(rs);
      // Indexes built once over the loaded rows are faster to make than kept up row by row.
      for (const rs of recordSets) for (const statement of buildIndexes(rs)) await client.query(statement);
      await buildPostgresFullText(client, this.options.references);
      await insertTiposCambio(client, this.options.tiposCambio ?? shippedTiposCambio());
      for (const values of reglasValues(this.options.reglasOrigen ?? shippedReglas())) await client.query(reglasOrigenInsert(postgresDialect), [...values]);
      const info = await describeDataset(
        source,
        (rs) => pagedRows(client, rs),
        async (rs) => (await client.query<{ total: number }>({ text: buildCount(rs, [], postgresDialect).text, types })).rows[0]?.total ?? 0,
        (await client.query({ text: TIPOS_CAMBIO_ALL, rowMode: 'array', types })).rows,
        (await client.query({ text: REGLAS_ORIGEN_ALL, rowMode: 'array', types })).rows,
      );
      await client.query(`ANALYZE ${recordSets.map((rs) => quote(rs.table)).join(', ')}`);
      const version = await this.switchIn(info);
      await client.query('COMMIT');
      client.release();
      return { ...info, version };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release(true);
      throw error;
    } finally {
      await this.onEnd();
    }
  }

  /** Throws the new dataset away; the main one was never touched. */
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

  /**
   * The main tables are locked only from here to COMMIT, a matter of milliseconds. They are moved
   * into the schema of their version (the newest import until now), the new ones take their place, and
   * the catalog gets the new version.
   */
  private async switchIn(info: DatasetInfo): Promise<VersionInfo> {
    const { client } = this;
    const target = quote(this.schema);
    const { main } = this.plan;
    if (main) await client.query(`CREATE SCHEMA IF NOT EXISTS ${quote(versionSchema(main))}`);
    for (const rs of recordSets) {
      const grants = await grantsOf(client, this.schema, rs.table);
      if (main) await client.query(`ALTER TABLE IF EXISTS ${target}.${quote(rs.table)} SET SCHEMA ${quote(versionSchema(main))}`);
      else await client.query(`DROP TABLE IF EXISTS ${target}.${quote(rs.table)}`);
      await client.query(`ALTER TABLE ${quote(STAGING_SCHEMA)}.${quote(rs.table)} SET SCHEMA ${target}`);
      for (const grant of grants) await client.query(grant);
    }
    for (const table of [...SEARCH_TABLES, TIPOS_CAMBIO_TABLE, REGLAS_ORIGEN_TABLE]) {
      const grants = await grantsOf(client, this.schema, table);
      // The search index moves with its version into the version's schema, so that buscar as of an older date finds it.
      if (main) await client.query(`ALTER TABLE IF EXISTS ${target}.${quote(table)} SET SCHEMA ${quote(versionSchema(main))}`);
      else await client.query(`DROP TABLE IF EXISTS ${target}.${quote(table)}`);
      await client.query(`ALTER TABLE ${quote(STAGING_SCHEMA)}.${quote(table)} SET SCHEMA ${target}`);
      for (const grant of grants) await client.query(grant);
    }
    await client.query(`DROP SCHEMA ${quote(STAGING_SCHEMA)}`);
    await client.query(
      `INSERT INTO ${target}."dataset_info" ("id", "source", "imported_at", "hash", "counts") VALUES (1, $1, $2, $3, $4)
       ON CONFLICT ("id") DO UPDATE SET "source" = EXCLUDED."source", "imported_at" = EXCLUDED."imported_at",
         "hash" = EXCLUDED."hash", "counts" = EXCLUDED."counts"`,
      datasetValues(info),
    );
    const version = newVersion(this.plan, info);
    // The whole catalog is written again: a database from before versions gets its one version listed too.
    await client.query(`DELETE FROM ${target}."dataset_versions"`);
    const insert = versionInsert(postgresDialect).replace('INSERT INTO "dataset_versions"', `INSERT INTO ${target}."dataset_versions"`);
    for (const v of [...this.plan.catalog, version]) await client.query(insert, versionValues(v));
    return version;
  }

  /** Copies a record set as the main tables hold it; a main table from an older schema cannot be kept silently. */
  private async copyFromMainTables(rs: RecordSet): Promise<void> {
    const { keepFrom, main } = this.plan;
    const from = keepFrom && keepFrom !== main ? versionSchema(keepFrom) : this.schema;
    const { rows } = await this.client.query<{ column_name: string }>(
      'SELECT "column_name" FROM information_schema.columns WHERE "table_schema" = $1 AND "table_name" = $2',
      [from, rs.table],
    );
    checkKeepable(rs, new Set(rows.map((r) => r.column_name)));
    const columns = columnList(rs);
    await this.client.query(`INSERT INTO ${quote(rs.table)} (${columns}) SELECT ${columns} FROM ${quote(from)}.${quote(rs.table)}`);
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

/** The version's exchange-rate series, in one statement per batch of unnested arrays. */
async function insertTiposCambio(client: PoolClient, series: readonly Fix[]): Promise<void> {
  for (let at = 0; at < series.length; at += TIPOS_CAMBIO_BATCH) {
    const batch = series.slice(at, at + TIPOS_CAMBIO_BATCH);
    await client.query(`INSERT INTO ${quote(TIPOS_CAMBIO_TABLE)} ("FECHA", "TIPO_CAMBIO") SELECT * FROM unnest($1::text[], $2::text[])`, [
      batch.map((f) => f.fecha),
      batch.map((f) => f.tipo_cambio),
    ]);
  }
}

/** Every row of every record set, in identifier order, as stored (export, downloads). */
export async function readPostgresDataset(
  config: Config,
  visit: (rs: RecordSet, rows: AsyncIterable<Values>) => void | Promise<void>,
  olderVersion?: VersionInfo,
): Promise<void> {
  const pool = createPostgresPool(config, 'admin', olderVersion && versionSchema(olderVersion));
  const client = await pool.connect().catch(async (error: unknown) => {
    await pool.end();
    throw error;
  });
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    for (const rs of recordSets) await visit(rs, pagedRows(client, rs));
    await client.query('COMMIT');
  } finally {
    client.release(true);
    await pool.end();
  }
}

/** The catalog, read in a load's or a removal's transaction (catalogOf: a database from before versions is one version). */
async function readCatalog(client: PoolClient): Promise<VersionInfo[]> {
  const present = (
    await client.query<{ versions: boolean; info: boolean }>(
      `SELECT to_regclass('dataset_versions') IS NOT NULL AS "versions", to_regclass('dataset_info') IS NOT NULL AS "info"`,
    )
  ).rows[0];
  const rows = present?.versions ? (await client.query<VersionRow>(VERSIONS_SELECT)).rows : [];
  const info = present?.info ? (await client.query<DatasetRow>(DATASET_SELECT)).rows[0] : undefined;
  return catalogOf(rows, toDatasetInfo(info));
}

/** Removes a version and its schema in one transaction, under the load lock: never while a load runs. */
export async function removePostgresVersion(config: Config, version: string, today: string): Promise<void> {
  const pool = createPostgresPool(config, 'admin');
  try {
    await inTransaction(pool, async (client) => {
      const locked = (await client.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS "locked"', [LOAD_LOCK])).rows[0];
      if (!locked?.locked) throw new Error('an import into this PostgreSQL database is running; try again when it is done');
      const catalog = await readCatalog(client);
      const refused = removalRefused(catalog, version, today);
      if (refused !== null) throw new Error(refused);
      await client.query('DELETE FROM "dataset_versions" WHERE "version" = $1', [version]);
      await client.query(`DROP SCHEMA IF EXISTS ${quote(versionSchema(catalog.find((v) => v.version === version)!))} CASCADE`);
    });
  } finally {
    await pool.end();
  }
}

/** One record set, in identifier order, in one read-only snapshot on a connection of its own that ends when the reading stops. */
export async function* postgresRecordSet(config: Config, rs: RecordSet, olderVersion?: VersionInfo): AsyncGenerator<Values> {
  const pool = createPostgresPool(config, 'service', olderVersion && versionSchema(olderVersion));
  try {
    const client = await pool.connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      yield* pagedRows(client, rs, STREAM_PAGE);
      await client.query('COMMIT');
    } finally {
      client.release(true);
    }
  } finally {
    await pool.end();
  }
}

/**
 * What differs between two versions in each of `sets` (selectChanges), compared by PostgreSQL over
 * both identifier indexes in one read-only snapshot. The main tables are locked for reading before
 * the snapshot is taken, so a load cannot move them to an older version's schema between reading the catalog (which says
 * which version they hold) and reading them.
 */
export async function postgresChanges(config: Config, sets: readonly RecordSet[], desde: VersionInfo, hasta: VersionInfo): Promise<Values[][]> {
  const pool = createPostgresPool(config, 'service');
  try {
    const client = await pool.connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      await client.query(`LOCK TABLE ${sets.map((rs) => quote(rs.table)).join(', ')} IN ACCESS SHARE MODE`);
      const newest = newestImport(await readCatalog(client))?.version;
      const tableOf = (version: VersionInfo, rs: RecordSet): string =>
        version.version === newest ? quote(rs.table) : `${quote(versionSchema(version))}.${quote(rs.table)}`;
      const answer: Values[][] = [];
      for (const rs of sets) {
        const text = selectChanges(rs, tableOf(desde, rs), tableOf(hasta, rs));
        answer.push((await client.query({ text, rowMode: 'array', types })).rows);
      }
      await client.query('COMMIT');
      return answer;
    } finally {
      client.release(true);
    }
  } catch (error) {
    throw storeError(error, redactDatabaseUrl(config.DATABASE_URL));
  } finally {
    await pool.end();
  }
}

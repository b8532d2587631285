/**
 * The embedded store: one SQLite file, opened read-only by the service. Statements are prepared
 * once per SQL text and reused. Data is written only by building a new file beside the main one
 * and renaming it into place (sqlite-build.ts), so a reader never sees a half-written load.
 */
import { statSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { RecordSet } from '../record-sets/define.js';
import { DATASET_SELECT, catalogOf, shapeProblem, toDatasetInfo, toUser, userSelect } from './core.js';
import type { DatasetRow, UserRow } from './core.js';
import type { Suggestion } from '../buscar/vocabulary.js';
import type { FullTextQuery, FullTextResult } from './fulltext.js';
import { buildCount, buildLookup, buildLookupMany, buildSearch, sqliteDialect } from './sql.js';
import type { Condition, SqlQuery } from './sql.js';
import { SqliteFullText, hasFullText } from './sqlite-fulltext.js';
import type { StatementLimits } from './sqlite-statements.js';
import { DEFAULT_STATEMENT_LIMITS, StatementCache, sumStats } from './sqlite-statements.js';
import type { Coverage, WindowRow } from './rates-coverage.js';
import type { ReglasAcuerdo } from '../reglas-origen/archivos.js';
import type { ReglasRow } from './reglas-origen-table.js';
import { REGLAS_ORIGEN_ALL, REGLAS_ORIGEN_TABLE, toReglas } from './reglas-origen-table.js';
import { EMPTY_WINDOW, TIPOS_CAMBIO_TABLE, coverageSql, tiposCambioWindowSql, toCoverage, toSeriesWindow } from './rates-coverage.js';
import type { SeriesWindow } from '../tipos-cambio/rule.js';
import type { CacheStats, DatasetInfo, Row, SearchQuery, Store, User, Values } from './store.js';
import { StoreUnavailableError, UnservableDatasetError } from './store.js';
import type { VersionInfo, VersionRow } from './versions.js';
import { VERSIONS_SELECT } from './versions.js';

/**
 * A record set's rows as objects, from the arrays SQLite reads (`raw`). better-sqlite3 builds each
 * row object by setting its columns one by one by name, which took two thirds of a lookup's time; an
 * object literal with the record set's fields, in the order they are selected, is built at a fraction
 * of that. It is written once per record set from the registry's field names (docs/adr/0006-hot-path.md).
 */
const rowMakers = new WeakMap<RecordSet, (values: Values) => Row>();
function rowMaker(rs: RecordSet): (values: Values) => Row {
  let make = rowMakers.get(rs);
  if (!make) {
    const fields = rs.fields.map((f, i) => `${JSON.stringify(f.name)}: v[${i}]`).join(', ');
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the registry's field names, quoted as JSON, and nothing else
    make = new Function('v', `return { ${fields} };`) as (values: Values) => Row;
    rowMakers.set(rs, make);
  }
  return make;
}

/** A synchronous piece of work as a promise: rejected, never thrown, when it fails, as callers of a promise expect. */
function settled<T>(work: () => T): Promise<T> {
  // The executor runs at once, and what it throws rejects the promise.
  return new Promise((resolve) => resolve(work()));
}

const noSearchIndex = (): StoreUnavailableError => new StoreUnavailableError('this database has no search index: load the data again (tariff-lookup import)');

/**
 * glibc's malloc gives freed memory back to the system as soon as 128 KiB of it lie free at the top of
 * the heap (M_TRIM_THRESHOLD), and asks for it again on the next allocation: a brk call, then a page
 * fault for every page. A statement's transient indexes (as the search's `IN (SELECT rowid …)` over
 * FTS5 did before issue 44 ranked in memory) take and free hundreds of KiB, so an uncached search took three
 * times the CPU it needs (bench/buscar-queries.csv: 14.2 ms a query against 4.5). glibc raises both
 * thresholds by itself the first time the process frees a mapped block larger than the current one,
 * to the block's size and twice that (mallopt(3), the dynamic mmap threshold): a process that built a
 * database had done so, one that only opens it, as the service does, had not. One 8 MiB value made and
 * freed at the first open does it (trim threshold 16 MiB). It is harmless under other C libraries, and
 * does nothing where GLIBC_TUNABLES sets a malloc threshold (the operator's choice then stands).
 */
const HEAP_THRESHOLD_BLOCK = 8 * 2 ** 20;
let heapThresholdRaised = false;
function raiseHeapThreshold(db: Database.Database): void {
  if (heapThresholdRaised) return;
  heapThresholdRaised = true;
  db.prepare('SELECT octet_length(CAST(zeroblob(?) AS BLOB))').get(HEAP_THRESHOLD_BLOCK);
}

/** Stores of this process with a read transaction open (SqliteStore.beginRead). */
const openReads = new Set<SqliteStore>();

/** Ends every read transaction open in this process: called before writing the main file in place. */
export function endReads(): void {
  for (const store of openReads) store.endRead();
}

export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;
  private readonly db: Database.Database;
  private readonly prepare: (sql: string) => Database.Statement;
  /** Statements that read a record set's rows, as arrays (rowMaker). */
  private readonly prepareRows: (sql: string) => Database.Statement;

  /** Which file is open: an import replaces the file at `path` by renaming another one over it. */
  private readonly file: string;

  private readonly hasCatalog: boolean;

  /** Why this file cannot be served (built for another shape of the registry), or null. */
  private readonly unservable: string | null;

  /** False for a file built before versions held exchange rates: it holds none. */
  private readonly hasRates: boolean;
  private readonly hasReglas: boolean;

  /** Null for a file built before the search index existed: searching it says so until data is loaded again. */
  private readonly text: SqliteFullText | null;

  private readonly statements: StatementCache;
  private readonly rowStatements: StatementCache;

  constructor(
    readonly path: string,
    /** The bound of each of its statement caches (SQLITE_STATEMENTS_MAX, SQLITE_STATEMENTS_KB). */
    readonly statementLimits: StatementLimits = DEFAULT_STATEMENT_LIMITS,
    /** The connection's page cache in KiB (SQLITE_CACHE_KB); absent, better-sqlite3's default. */
    cacheKib?: number,
  ) {
    const identity = fileIdentity(path);
    if (identity === null) throw new StoreUnavailableError(`SQLite database not found: ${path}`);
    this.file = identity;
    this.db = new Database(path, { readonly: true, fileMustExist: true });
    this.db.pragma('query_only = ON');
    // No memory map: a file truncated or copied over in place (`cp backup.sqlite PATH`) would kill the
    // process with SIGBUS on the next read; with plain reads it is an error, answered 503.
    this.db.pragma('mmap_size = 0');
    if (cacheKib !== undefined) this.db.pragma(`cache_size = -${cacheKib}`);
    raiseHeapThreshold(this.db);
    this.statements = new StatementCache(this.db, statementLimits);
    this.rowStatements = new StatementCache(this.db, statementLimits, true);
    this.prepare = this.statements.prepare;
    this.prepareRows = this.rowStatements.prepare;
    const columns = sqliteColumns(this.db);
    this.unservable = shapeProblem(columns);
    this.hasCatalog = columns.has('dataset_versions');
    this.text = hasFullText(this.db) ? new SqliteFullText(this.db, statementLimits) : null;
    this.hasRates = columns.has(TIPOS_CAMBIO_TABLE);
    this.hasReglas = columns.has(REGLAS_ORIGEN_TABLE);
    this.begin = this.db.prepare('BEGIN');
    this.end = this.db.prepare('COMMIT');
  }

  caches(): Readonly<Record<string, CacheStats>> {
    const all = [this.statements.stats(), this.rowStatements.stats(), ...(this.text ? [this.text.statementStats()] : [])];
    return { sqlite_statements: sumStats(all) };
  }

  fullText(query: FullTextQuery): Promise<FullTextResult> {
    const text = this.text;
    if (!text) return Promise.reject(noSearchIndex());
    return this.read(() => text.search(query));
  }

  searchReading(query: FullTextQuery): Promise<string> {
    const text = this.text;
    if (!text) return Promise.reject(noSearchIndex());
    return settled(() => text.reading(query));
  }

  suggest(q: string): Promise<Suggestion[]> {
    const text = this.text;
    if (!text) return Promise.reject(noSearchIndex());
    return settled(() => text.suggest(q));
  }

  /**
   * Reads share one read transaction per turn of the event loop. Outside a transaction SQLite takes
   * and drops its file lock, looks for a hot journal and rereads the file's change counter around
   * every statement: seven system calls, more than a lookup's own work. The transaction opens on the
   * first read of a turn and ends when the turn does (setImmediate), so every request a turn serves
   * pays that once, and the reads of one request see one snapshot. A writer in another process (user
   * administration, a version's removal) waits for the end of a turn as it waited for the end of a
   * statement; one in this process ends the open reads first (endReads), as it would otherwise wait on
   * a lock its own thread holds.
   */
  private reading = false;
  private readonly begin: Database.Statement;
  private readonly end: Database.Statement;

  private beginRead(): void {
    this.begin.run();
    this.reading = true;
    openReads.add(this);
    setImmediate(this.endRead);
  }

  readonly endRead = (): void => {
    if (!this.reading) return;
    this.reading = false;
    openReads.delete(this);
    try {
      if (this.db.inTransaction) this.end.run();
    } catch {
      // Nothing was written; a read that failed on the file has said so (run) and the main store reopens it (src/store/main-store.ts).
    }
  };

  /** The lookup by identifier of each record set, prepared on its first use. */
  private readonly lookups = new Map<RecordSet, Database.Statement>();

  /** A read as the Store interface gives it: a promise that rejects with what the read throws, never a throw. */
  private read<T>(action: () => T, users = false): Promise<T> {
    return settled(() => this.run(action, users));
  }

  /** `users`: a read of the users only, which a dataset of another shape does not stop (logins go on working). */
  private run<T>(action: () => T, users = false): T {
    if (this.unservable !== null && !users) throw new UnservableDatasetError(this.unservable);
    try {
      if (!this.reading) this.beginRead();
      return action();
    } catch (error) {
      const code = (error as { code?: string }).code ?? '';
      if (/^SQLITE_(BUSY|LOCKED)/.test(code)) throw new StoreUnavailableError(code);
      const missingTable = code === 'SQLITE_ERROR' && /^no such table/.test((error as Error).message);
      if (!missingTable && !/^SQLITE_(CANTOPEN|CORRUPT|NOTADB|IOERR)/.test(code)) throw error;
      // The file itself failed (emptied, overwritten or damaged in place). This connection may go on
      // failing once the file is put right, so the service opens the file anew (src/store/main-store.ts).
      this.failedOnFile = true;
      throw new StoreUnavailableError(missingTable ? (error as Error).message : code);
    }
  }

  private failedOnFile = false;

  /** Whether a read failed on the file itself: a new connection may succeed where this one cannot. */
  get damaged(): boolean {
    return this.failedOnFile;
  }

  search(rs: RecordSet, query: SearchQuery): Promise<Row[]> {
    const q: SqlQuery = buildSearch(rs, query.conditions, query.skip, query.limit, sqliteDialect);
    return this.read(() => (this.prepareRows(q.text).all(...q.values) as Values[]).map(rowMaker(rs)));
  }

  count(rs: RecordSet, conditions: readonly Condition[]): Promise<number> {
    const q = buildCount(rs, conditions, sqliteDialect);
    return this.read(() => (this.prepare(q.text).get(...q.values) as { total: number }).total);
  }

  lookup(rs: RecordSet, key: readonly (string | number)[]): Promise<Row | undefined> {
    return this.read(() => {
      let statement = this.lookups.get(rs);
      if (!statement) {
        statement = this.db.prepare(buildLookup(rs, sqliteDialect)).raw(true);
        this.lookups.set(rs, statement);
      }
      const values = statement.get(...key) as Values | undefined;
      return values === undefined ? undefined : rowMaker(rs)(values);
    });
  }

  lookupMany(rs: RecordSet, keys: readonly (readonly (string | number)[])[]): Promise<Row[]> {
    if (keys.length === 0) return Promise.resolve([]);
    const q = buildLookupMany(rs, keys, sqliteDialect);
    return this.read(() => this.prepare(q.text).all(...q.values) as Row[]);
  }

  dataset(): Promise<DatasetInfo | null> {
    return this.read(() => toDatasetInfo(this.prepare(DATASET_SELECT).get() as DatasetRow | undefined));
  }

  /** The catalog of the file; a file from before versions has none and is one version (catalogOf). */
  versions(): Promise<VersionInfo[]> {
    return this.read(() => {
      const rows = this.hasCatalog ? (this.prepare(VERSIONS_SELECT).all() as VersionRow[]) : [];
      return catalogOf(rows, toDatasetInfo(this.prepare(DATASET_SELECT).get() as DatasetRow | undefined));
    });
  }

  tiposCambio(fecha: string): Promise<SeriesWindow> {
    if (!this.hasRates) return this.read(() => EMPTY_WINDOW);
    return this.read(() => toSeriesWindow(this.prepare(tiposCambioWindowSql(sqliteDialect)).all(fecha) as WindowRow[]));
  }

  reglasOrigen(): Promise<ReglasAcuerdo[]> {
    if (!this.hasReglas) return this.read(() => []);
    return this.read(() => toReglas(this.prepare(REGLAS_ORIGEN_ALL).all() as ReglasRow[]));
  }

  coverage(): Promise<Coverage> {
    return this.read(() => toCoverage(this.prepare(coverageSql()).get() as Record<string, unknown> | undefined));
  }

  findUser(username: string): Promise<User | undefined> {
    return this.read(() => toUser(this.prepare(userSelect(sqliteDialect)).get(username) as UserRow | undefined), true);
  }

  /**
   * Whether `path` now names another file than the one open. The inode tells: this store keeps the old
   * file open, so the new one cannot have its number. Changes made inside the file (users) do not count.
   */
  replaced(): boolean {
    const identity = fileIdentity(this.path);
    return identity !== null && identity !== this.file;
  }

  close(): Promise<void> {
    this.endRead();
    this.db.close();
    return Promise.resolve();
  }
}

/** The columns of every table of the file, for the shape check. */
export function sqliteColumns(db: Database.Database): Map<string, Set<string>> {
  const rows = db
    .prepare(`SELECT m."name" AS "table", p."name" AS "column" FROM "sqlite_master" m, pragma_table_info(m."name") p WHERE m."type" = 'table'`)
    .all() as { table: string; column: string }[];
  const columns = new Map<string, Set<string>>();
  for (const r of rows) {
    const set = columns.get(r.table) ?? new Set<string>();
    set.add(r.column);
    columns.set(r.table, set);
  }
  return columns;
}

export function fileIdentity(path: string): string | null {
  const stats = statSync(path, { bigint: true, throwIfNoEntry: false });
  return stats === undefined ? null : `${stats.dev}:${stats.ino}`;
}

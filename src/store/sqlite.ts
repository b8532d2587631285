/**
 * The embedded store: one SQLite file, opened read-only by the service. Statements are prepared
 * once per SQL text and reused. Data is written only by building a new file beside the served one
 * and renaming it into place (sqlite-build.ts), so a reader never sees a half-written load.
 */
import { statSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { RecordSet } from '../record-sets/define.js';
import { DATASET_SELECT, catalogOf, shapeProblem, toDatasetInfo, toUser, userSelect } from './core.js';
import type { DatasetRow, UserRow } from './core.js';
import type { Suggestion } from '../search/vocabulary.js';
import type { FullTextQuery, FullTextResult } from './fulltext.js';
import { buildCount, buildLookup, buildLookupMany, buildSearch, sqliteDialect } from './sql.js';
import type { Condition, SqlQuery } from './sql.js';
import { SqliteFullText, hasFullText } from './sqlite-fulltext.js';
import type { DatasetInfo, Row, SearchQuery, Store, User } from './store.js';
import { StoreUnavailableError, UnservableDatasetError } from './store.js';
import type { VersionInfo, VersionRow } from './versions.js';
import { VERSIONS_SELECT } from './versions.js';

export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();

  /** Which file is open: an import replaces the file at `path` by renaming another one over it. */
  private readonly file: string;

  private readonly hasCatalog: boolean;

  /** Why this file cannot be served (built for another shape of the registry), or null. */
  private readonly unservable: string | null;

  /** Null for a file built before the search index existed: searching it says so until data is loaded again. */
  private readonly text: SqliteFullText | null;

  constructor(readonly path: string) {
    const identity = fileIdentity(path);
    if (identity === null) throw new StoreUnavailableError(`SQLite database not found: ${path}`);
    this.file = identity;
    this.db = new Database(path, { readonly: true, fileMustExist: true });
    this.db.pragma('query_only = ON');
    // No memory map: a file truncated or copied over in place (`cp backup.sqlite PATH`) would kill the
    // process with SIGBUS on the next read; with plain reads it is an error, answered 503.
    this.db.pragma('mmap_size = 0');
    const columns = sqliteColumns(this.db);
    this.unservable = shapeProblem(columns);
    this.hasCatalog = columns.has('dataset_versions');
    this.text = hasFullText(this.db) ? new SqliteFullText(this.db) : null;
  }

  fullText(query: FullTextQuery): Promise<FullTextResult> {
    const text = this.text;
    if (!text) throw new StoreUnavailableError('this database has no search index: load the data again (tariff-lookup import)');
    return Promise.resolve(this.run(() => text.search(query)));
  }

  suggest(q: string): Promise<Suggestion[]> {
    const text = this.text;
    if (!text) throw new StoreUnavailableError('this database has no search index: load the data again (tariff-lookup import)');
    return Promise.resolve(text.suggest(q));
  }

  private prepare(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** `users`: a read of the users only, which a dataset of another shape does not stop (logins go on working). */
  private run<T>(action: () => T, users = false): T {
    if (this.unservable !== null && !users) throw new UnservableDatasetError(this.unservable);
    try {
      return action();
    } catch (error) {
      const code = (error as { code?: string }).code ?? '';
      if (/^SQLITE_(BUSY|LOCKED)/.test(code)) throw new StoreUnavailableError(code);
      const missingTable = code === 'SQLITE_ERROR' && /^no such table/.test((error as Error).message);
      if (!missingTable && !/^SQLITE_(CANTOPEN|CORRUPT|NOTADB|IOERR)/.test(code)) throw error;
      // The file itself failed (emptied, overwritten or damaged in place). This connection may go on
      // failing once the file is put right, so the service opens the file anew (src/store/slot.ts).
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
    return Promise.resolve(this.run(() => this.prepare(q.text).all(...q.values) as Row[]));
  }

  count(rs: RecordSet, conditions: readonly Condition[]): Promise<number> {
    const q = buildCount(rs, conditions, sqliteDialect);
    return Promise.resolve(this.run(() => (this.prepare(q.text).get(...q.values) as { total: number }).total));
  }

  lookup(rs: RecordSet, key: readonly (string | number)[]): Promise<Row | undefined> {
    return Promise.resolve(this.run(() => this.prepare(buildLookup(rs, sqliteDialect)).get(...key) as Row | undefined));
  }

  lookupMany(rs: RecordSet, keys: readonly (readonly (string | number)[])[]): Promise<Row[]> {
    if (keys.length === 0) return Promise.resolve([]);
    const q = buildLookupMany(rs, keys, sqliteDialect);
    return Promise.resolve(this.run(() => this.prepare(q.text).all(...q.values) as Row[]));
  }

  dataset(): Promise<DatasetInfo | null> {
    return Promise.resolve(this.run(() => toDatasetInfo(this.prepare(DATASET_SELECT).get() as DatasetRow | undefined)));
  }

  /** The catalog of the file; a file from before versions has none and is one version (catalogOf). */
  versions(): Promise<VersionInfo[]> {
    return Promise.resolve(
      this.run(() => {
        const rows = this.hasCatalog ? (this.prepare(VERSIONS_SELECT).all() as VersionRow[]) : [];
        return catalogOf(rows, toDatasetInfo(this.prepare(DATASET_SELECT).get() as DatasetRow | undefined));
      }),
    );
  }

  findUser(username: string): Promise<User | undefined> {
    return Promise.resolve(this.run(() => toUser(this.prepare(userSelect(sqliteDialect)).get(username) as UserRow | undefined), true));
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

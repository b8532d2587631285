/**
 * The embedded store: one SQLite file, opened read-only by the service. Statements are prepared
 * once per SQL text and reused. Data is written only by building a new file beside the served one
 * and renaming it into place (see SqliteDatasetBuild), so a reader never sees a half-written load.
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, openSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import type { Field, RecordSet } from '../record-sets/define.js';
import { recordSets } from '../record-sets/index.js';
import { DATASET_INFO_DDL, buildCount, buildCreateTable, buildIndexes, buildInsert, buildLookup, buildSearch, quote, sqliteDialect } from './sql.js';
import type { Condition, SqlQuery } from './sql.js';
import type { FullTextQuery, FullTextResult } from './fulltext.js';
import { SqliteFullText, buildSqliteFullText, hasFullText } from './sqlite-fulltext.js';
import type { Suggestion } from '../search/vocabulary.js';
import type { DatasetInfo, Row, SearchQuery, Store, User } from './store.js';
import { StoreUnavailableError } from './store.js';

const columnType = (f: Field): string => (f.type.kind === 'int' ? 'INTEGER' : 'TEXT');

const META_DDL = [
  DATASET_INFO_DDL,
  `CREATE TABLE "users" (
  "username" TEXT PRIMARY KEY,
  "full_name" TEXT,
  "email" TEXT,
  "disabled" INTEGER NOT NULL DEFAULT 0,
  "password_hash" TEXT NOT NULL,
  "created_at" TEXT NOT NULL
)`,
];

interface UserRow {
  username: string;
  full_name: string | null;
  email: string | null;
  disabled: number;
  password_hash: string;
}

export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();

  /** Which file is open: an import replaces the file at `path` by renaming another one over it. */
  private readonly file: string;

  constructor(readonly path: string) {
    const identity = fileIdentity(path);
    if (identity === null) throw new StoreUnavailableError(`SQLite database not found: ${path}`);
    this.file = identity;
    this.db = new Database(path, { readonly: true, fileMustExist: true });
    this.db.pragma('query_only = ON');
    // No memory map: a file truncated or copied over in place (`cp backup.sqlite PATH`) would kill the
    // process with SIGBUS on the next read; with plain reads it is an error, answered 503.
    this.db.pragma('mmap_size = 0');
    this.text = hasFullText(this.db) ? new SqliteFullText(this.db) : null;
  }

  /** Null for a file built before the search index existed: searching it says so until data is loaded again. */
  private readonly text: SqliteFullText | null;

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

  private run<T>(action: () => T): T {
    try {
      return action();
    } catch (error) {
      const code = (error as { code?: string }).code ?? '';
      if (/^SQLITE_(BUSY|LOCKED)/.test(code)) throw new StoreUnavailableError(code);
      const missingTable = code === 'SQLITE_ERROR' && /^no such table/.test((error as Error).message);
      if (!missingTable && !/^SQLITE_(CANTOPEN|CORRUPT|NOTADB|IOERR)/.test(code)) throw error;
      // The file itself failed (emptied, overwritten or damaged in place). This connection may go on
      // failing once the file is put right, so the service opens the file anew (src/app.ts).
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

  dataset(): Promise<DatasetInfo | null> {
    return Promise.resolve(this.run(() => readDatasetInfo(this.db)));
  }

  findUser(username: string): Promise<User | undefined> {
    const row = this.run(
      () =>
        this.prepare('SELECT "username", "full_name", "email", "disabled", "password_hash" FROM "users" WHERE "username" = ?').get(
          username,
        ) as UserRow | undefined,
    );
    return Promise.resolve(row && toUser(row));
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

function fileIdentity(path: string): string | null {
  const stats = statSync(path, { bigint: true, throwIfNoEntry: false });
  return stats === undefined ? null : `${stats.dev}:${stats.ino}`;
}

function toUser(row: UserRow): User {
  return {
    username: row.username,
    fullName: row.full_name,
    email: row.email,
    disabled: row.disabled !== 0,
    passwordHash: row.password_hash,
  };
}

function readDatasetInfo(db: Database.Database): DatasetInfo | null {
  const row = db.prepare('SELECT "source", "imported_at", "hash", "counts" FROM "dataset_info" WHERE "id" = 1').get() as
    | { source: string; imported_at: string; hash: string; counts: string }
    | undefined;
  if (!row) return null;
  return { source: row.source, importedAt: row.imported_at, hash: row.hash, counts: JSON.parse(row.counts) as Record<string, number> };
}

/** Receives rows for one record set at a time, already checked against the registry. */
export interface DatasetWriter {
  /** Adds a row; false, and nothing added, when the record set already holds a row with its identifier. */
  insert(rs: RecordSet, row: readonly (string | number | null)[]): boolean;
}

export interface BuildOptions {
  /** Record sets copied as they are from the file currently at the path, instead of being filled. */
  readonly keep?: readonly RecordSet[];
  /** Carries the users over from the file currently at the path, so that a load logs nobody out. */
  readonly keepUsers?: boolean;
}

/** How long a build waits for a user change on the served file to finish (milliseconds) before giving up. */
const LOCK_WAIT_MS = 1000;

const selectAll = (rs: RecordSet): string =>
  `SELECT ${rs.fields.map((f) => quote(f.name)).join(', ')} FROM ${quote(rs.table)} ORDER BY ${rs.key.map(quote).join(', ')}`;

/**
 * A new database built in a file of its own beside `path` (`PATH.building-PID`) and renamed over
 * `path` by commit, so the file at `path` is only ever the old dataset or the complete new one: a
 * failed, abandoned or killed build leaves it exactly as it was. While a build runs it holds a write
 * lock on the served file: a second build is refused, and no user change can be made and then lost
 * with the old file (readers, the service included, are not blocked).
 */
export class SqliteDatasetBuild implements DatasetWriter {
  private readonly inserts: ReadonlyMap<string, Database.Statement>;

  private constructor(
    private readonly path: string,
    private readonly building: string,
    private readonly db: Database.Database,
    private readonly served: Database.Database | null,
    private readonly options: BuildOptions,
  ) {
    // Conflicts are reported to the caller (a duplicate identifier is a refused row, not a failure).
    this.inserts = new Map(recordSets.map((rs) => [rs.path, db.prepare(`${buildInsert(rs, sqliteDialect)} ON CONFLICT DO NOTHING`)]));
  }

  static start(path: string, options: BuildOptions = {}): SqliteDatasetBuild {
    const served = lockServedFile(path);
    try {
      removeStaleBuilds(path);
      const building = `${path}.building-${process.pid}`;
      rmSync(building, { force: true });
      const db = new Database(building);
      // The file is private until the rename and thrown away on any failure, so no journal is needed on
      // disk. (OFF is refused in the defensive mode better-sqlite3 opens connections in; in MEMORY only
      // the pages that existed at BEGIN, the empty tables, are journaled, so it stays small.)
      db.pragma('journal_mode = MEMORY');
      db.pragma('synchronous = OFF');
      db.pragma('main.locking_mode = EXCLUSIVE');
      db.pragma('cache_size = -65536');
      for (const statement of [...recordSets.map((rs) => buildCreateTable(rs, columnType)), ...META_DDL]) db.exec(statement);
      db.exec('BEGIN');
      return new SqliteDatasetBuild(path, building, db, served, options);
    } catch (error) {
      served?.close();
      throw error;
    }
  }

  /** Whether there is a file at the path to keep record sets and users from. */
  get replacesExisting(): boolean {
    return this.served !== null;
  }

  insert(rs: RecordSet, row: readonly (string | number | null)[]): boolean {
    return this.inserts.get(rs.path)!.run(...row).changes === 1;
  }

  /** Completes the new database and puts it in place of the served one. */
  commit(source: string): DatasetInfo {
    const { db } = this;
    db.exec('COMMIT');
    if (this.served) this.copyFromServed();
    for (const statement of recordSets.flatMap(buildIndexes)) db.exec(statement);
    buildSqliteFullText(db);
    const info = datasetInfo(db, source, contentHash(db));
    db.prepare('INSERT INTO "dataset_info" ("id", "source", "imported_at", "hash", "counts") VALUES (1, ?, ?, ?, ?)').run(
      info.source,
      info.importedAt,
      info.hash,
      JSON.stringify(info.counts),
    );
    db.exec('ANALYZE');
    db.close();
    // Without these a power failure right after the rename could leave a renamed but incomplete file.
    syncToDisk(this.building);
    renameSync(this.building, this.path);
    try {
      syncToDisk(dirname(this.path));
    } catch {
      // Some file systems cannot sync a directory; the rename is atomic all the same.
    }
    this.served?.close();
    return info;
  }

  /** Throws the new database away; the served file was never touched. */
  abandon(): void {
    if (this.db.open) this.db.close();
    rmSync(this.building, { force: true });
    this.served?.close();
  }

  private copyFromServed(): void {
    const { db } = this;
    db.prepare('ATTACH DATABASE ? AS "previous"').run(this.path);
    try {
      db.transaction(() => {
        for (const rs of this.options.keep ?? []) copyRecordSet(db, rs);
        if (this.options.keepUsers) db.exec('INSERT INTO "users" SELECT * FROM "previous"."users"');
      })();
    } finally {
      db.exec('DETACH DATABASE "previous"');
    }
  }
}

/**
 * Builds a complete database from `fill` (see SqliteDatasetBuild). Two rows with one identifier are
 * an error here: the callers (demo build, fixtures) generate their rows and must not make any.
 */
export function writeSqliteDatabase(
  path: string,
  source: string,
  fill: (writer: DatasetWriter) => void,
  options: BuildOptions = {},
): DatasetInfo {
  const build = SqliteDatasetBuild.start(path, options);
  try {
    fill({
      insert: (rs, row) => {
        if (!build.insert(rs, row)) throw new Error(`${rs.path}: a second record with the identifier of ${JSON.stringify(row)}`);
        return true;
      },
    });
    return build.commit(source);
  } catch (error) {
    build.abandon();
    throw error;
  }
}

/** Every row of every record set of the file at `path`, in identifier order, as stored. */
export function readSqliteDataset(path: string, visit: (rs: RecordSet, rows: Iterable<(string | number | null)[]>) => void): void {
  if (!existsSync(path)) throw new StoreUnavailableError(`SQLite database not found: ${path}`);
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    for (const rs of recordSets) visit(rs, db.prepare(selectAll(rs)).raw().iterate() as Iterable<(string | number | null)[]>);
  } finally {
    db.close();
  }
}

/** A write lock on the file being replaced, or null when there is none yet. */
function lockServedFile(path: string): Database.Database | null {
  if (!existsSync(path)) return null;
  const db = new Database(path, { fileMustExist: true, timeout: LOCK_WAIT_MS });
  try {
    db.exec('BEGIN IMMEDIATE');
    return db;
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') {
      throw new Error(`${path} is locked: another import is running, or a user change did not finish`);
    }
    throw error;
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}

/**
 * Build files left by a killed build (its process is gone) only take space: they are removed, with
 * any SQLite side file, and so is the `.building` of versions that did not name the process.
 */
function removeStaleBuilds(path: string): void {
  const dir = dirname(path);
  const prefix = `${basename(path)}.building`;
  for (const name of readdirSync(dir)) {
    if (!name.startsWith(prefix)) continue;
    const match = /^(?:-(\d+))?(?:-journal|-wal|-shm)?$/.exec(name.slice(prefix.length));
    if (!match) continue;
    const pid = match[1];
    if (pid !== undefined && isRunning(Number(pid))) continue;
    rmSync(join(dir, name), { force: true });
  }
}

function syncToDisk(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Copies a record set as it is; a served file from an older schema cannot be kept silently. */
function copyRecordSet(db: Database.Database, rs: RecordSet): void {
  const present = new Set((db.pragma(`"previous".table_info(${quote(rs.table)})`) as { name: string }[]).map((c) => c.name));
  if (present.size === 0) throw new Error(`cannot keep ${rs.path}: the current database has no table ${rs.table}`);
  const missing = rs.fields.filter((f) => !present.has(f.name)).map((f) => f.name);
  if (missing.length > 0) throw new Error(`cannot keep ${rs.path}: the current database has no column ${missing.join(', ')}`);
  const columns = rs.fields.map((f) => quote(f.name)).join(', ');
  db.exec(`INSERT INTO ${quote(rs.table)} (${columns}) SELECT ${columns} FROM "previous".${quote(rs.table)}`);
}

/**
 * The hash of the content only: every record set's rows in identifier order, so the same data gives
 * the same hash however it was loaded (from files, copied from the previous file, in any row order).
 */
function contentHash(db: Database.Database): string {
  const hash = createHash('sha256');
  for (const rs of recordSets) {
    for (const row of db.prepare(selectAll(rs)).raw().iterate()) hash.update(`${rs.path}\t${JSON.stringify(row)}\n`);
  }
  return hash.digest('hex');
}

function datasetInfo(db: Database.Database, source: string, hash: string): DatasetInfo {
  const counts: Record<string, number> = {};
  for (const rs of recordSets) {
    counts[rs.path] = (db.prepare(buildCount(rs, [], sqliteDialect).text).get() as { total: number }).total;
  }
  return { source, importedAt: new Date().toISOString(), hash, counts };
}

export interface UserSummary {
  readonly username: string;
  readonly full_name: string | null;
  readonly email: string | null;
  readonly disabled: boolean;
  readonly created_at: string;
}

/** User administration (the CLI, the demo user): the one writer of the served file besides a load. */
export class SqliteUserAdmin {
  private readonly db: Database.Database;

  constructor(path: string) {
    if (!existsSync(path)) throw new StoreUnavailableError(`SQLite database not found: ${path}`);
    this.db = new Database(path, { fileMustExist: true });
    this.db.pragma('busy_timeout = 5000');
  }

  list(): UserSummary[] {
    const rows = this.db
      .prepare('SELECT "username", "full_name", "email", "disabled", "created_at" FROM "users" ORDER BY "username"')
      .all() as (Omit<UserSummary, 'disabled'> & { disabled: number })[];
    return rows.map((r) => ({ ...r, disabled: r.disabled !== 0 }));
  }

  /** False when the username is taken. */
  add(username: string, passwordHash: string, fullName: string | null, email: string | null): boolean {
    const result = this.db
      .prepare(
        'INSERT INTO "users" ("username", "full_name", "email", "disabled", "password_hash", "created_at") VALUES (?, ?, ?, 0, ?, ?) ON CONFLICT DO NOTHING',
      )
      .run(username, fullName, email, passwordHash, new Date().toISOString());
    return result.changes === 1;
  }

  /** Each returns false when there is no such user. */
  setDisabled(username: string, disabled: boolean): boolean {
    return this.db.prepare('UPDATE "users" SET "disabled" = ? WHERE "username" = ?').run(disabled ? 1 : 0, username).changes === 1;
  }

  setPassword(username: string, passwordHash: string): boolean {
    return this.db.prepare('UPDATE "users" SET "password_hash" = ? WHERE "username" = ?').run(passwordHash, username).changes === 1;
  }

  remove(username: string): boolean {
    return this.db.prepare('DELETE FROM "users" WHERE "username" = ?').run(username).changes === 1;
  }

  close(): void {
    this.db.close();
  }
}

/**
 * The embedded store: one SQLite file, opened read-only by the service. Statements are prepared
 * once per SQL text and reused. Data is written only by building a new file beside the served one
 * and renaming it into place (see writeSqliteDatabase), so a reader never sees a half-written load.
 */
import { createHash } from 'node:crypto';
import { existsSync, renameSync, rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { Field, RecordSet } from '../record-sets/define.js';
import { recordSets } from '../record-sets/index.js';
import { buildCount, buildCreateTable, buildIndexes, buildInsert, buildLookup, buildSearch, sqliteDialect } from './sql.js';
import type { Condition, SqlQuery } from './sql.js';
import type { DatasetInfo, Row, SearchQuery, Store, User } from './store.js';
import { StoreUnavailableError } from './store.js';

const columnType = (f: Field): string => (f.type.kind === 'int' ? 'INTEGER' : 'TEXT');

const META_DDL = [
  `CREATE TABLE "dataset_info" (
  "id" INTEGER PRIMARY KEY CHECK ("id" = 1),
  "source" TEXT NOT NULL,
  "imported_at" TEXT NOT NULL,
  "hash" TEXT NOT NULL,
  "counts" TEXT NOT NULL
)`,
  `CREATE TABLE "users" (
  "username" TEXT PRIMARY KEY,
  "full_name" TEXT,
  "email" TEXT,
  "disabled" INTEGER NOT NULL DEFAULT 0,
  "password_hash" TEXT NOT NULL,
  "created_at" TEXT NOT NULL
)`,
];

export function sqliteSchema(): string[] {
  const statements = recordSets.flatMap((rs) => [buildCreateTable(rs, columnType), ...buildIndexes(rs)]);
  return [...statements, ...META_DDL];
}

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

  constructor(readonly path: string) {
    if (!existsSync(path)) throw new StoreUnavailableError(`SQLite database not found: ${path}`);
    this.db = new Database(path, { readonly: true, fileMustExist: true });
    this.db.pragma('query_only = ON');
    this.db.pragma('mmap_size = 268435456');
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
      if (/^SQLITE_(CANTOPEN|CORRUPT|NOTADB|IOERR|BUSY|LOCKED)/.test(code)) throw new StoreUnavailableError(code);
      throw error;
    }
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

  close(): Promise<void> {
    this.db.close();
    return Promise.resolve();
  }
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
  insert(rs: RecordSet, row: readonly (string | number | null)[]): void;
}

/**
 * Builds a complete database in `path + '.building'` and renames it over `path` only when every row
 * is in: an interrupted or failed build leaves the file at `path` exactly as it was.
 */
export function writeSqliteDatabase(
  path: string,
  source: string,
  fill: (writer: DatasetWriter) => void,
  keepUsersFrom?: string,
): DatasetInfo {
  const building = `${path}.building`;
  rmSync(building, { force: true });
  const db = new Database(building);
  try {
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    for (const statement of sqliteSchema()) db.exec(statement);
    const inserts = new Map(recordSets.map((rs) => [rs.path, db.prepare(buildInsert(rs, sqliteDialect))]));
    const content = createHash('sha256');
    const load = db.transaction(() =>
      fill({
        insert: (rs, row) => {
          content.update(rs.path).update(JSON.stringify(row));
          inserts.get(rs.path)!.run(...row);
        },
      }),
    );
    load();
    if (keepUsersFrom && existsSync(keepUsersFrom)) copyUsers(db, keepUsersFrom);
    const info = datasetInfo(db, source, content.digest('hex'));
    db.prepare('INSERT INTO "dataset_info" ("id", "source", "imported_at", "hash", "counts") VALUES (1, ?, ?, ?, ?)').run(
      info.source,
      info.importedAt,
      info.hash,
      JSON.stringify(info.counts),
    );
    db.exec('ANALYZE');
    db.close();
    renameSync(building, path);
    return info;
  } catch (error) {
    if (db.open) db.close();
    rmSync(building, { force: true });
    throw error;
  }
}

function copyUsers(db: Database.Database, from: string): void {
  db.prepare('ATTACH DATABASE ? AS "previous"').run(from);
  db.exec('INSERT INTO "users" SELECT * FROM "previous"."users"');
  db.exec('DETACH DATABASE "previous"');
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

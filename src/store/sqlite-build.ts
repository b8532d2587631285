/**
 * Building a new SQLite dataset: a file of its own beside the served one, renamed over it when
 * complete, so the file at the path is only ever the old dataset or the complete new one.
 */
import { closeSync, existsSync, fsyncSync, openSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import type { Field, RecordSet } from '../record-sets/define.js';
import { recordSets } from '../record-sets/index.js';
import { checkKeepable, columnList, datasetInsert, datasetValues, describeDataset, metaDdl, selectAll } from './core.js';
import { buildCount, buildCreateTable, buildIndexes, buildInsert, quote, sqliteDialect } from './sql.js';
import { buildSqliteFullText } from './sqlite-fulltext.js';
import type { BuildOptions, DatasetBuild, DatasetInfo, Values } from './store.js';

const columnType = (f: Field): string => (f.type.kind === 'int' ? 'INTEGER' : 'TEXT');

export const SQLITE_META_DDL = metaDdl({ keyText: 'TEXT', boolean: 'INTEGER', false: '0' });

/** How long a build waits for a user change on the served file to finish (milliseconds) before giving up. */
const LOCK_WAIT_MS = 1000;

/**
 * A new database built in a file of its own beside `path` (`PATH.building-PID`) and renamed over
 * `path` by commit, so the file at `path` is only ever the old dataset or the complete new one: a
 * failed, abandoned or killed build leaves it exactly as it was. While a build runs it holds a write
 * lock on the served file: a second build is refused, and no user change can be made and then lost
 * with the old file (readers, the service included, are not blocked).
 */
export class SqliteDatasetBuild implements DatasetBuild {
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
      for (const statement of [...recordSets.map((rs) => buildCreateTable(rs, columnType)), ...SQLITE_META_DDL]) db.exec(statement);
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

  insert(rs: RecordSet, row: Values): boolean {
    return this.inserts.get(rs.path)!.run(...row).changes === 1;
  }

  /** Completes the new database and puts it in place of the served one. */
  async commit(source: string): Promise<DatasetInfo> {
    try {
      return await this.complete(source);
    } catch (error) {
      await this.abandon();
      throw error;
    }
  }

  /** Rows are taken as they come: there is nothing to wait for. */
  ready(): Promise<void> {
    return Promise.resolve();
  }

  private async complete(source: string): Promise<DatasetInfo> {
    const { db } = this;
    db.exec('COMMIT');
    if (this.served) this.copyFromServed();
    for (const statement of recordSets.flatMap(buildIndexes)) db.exec(statement);
    buildSqliteFullText(db, this.options.references);
    const info = await describeDataset(
      source,
      (rs) => db.prepare(selectAll(rs)).raw().iterate() as Iterable<Values>,
      (rs) => (db.prepare(buildCount(rs, [], sqliteDialect).text).get() as { total: number }).total,
    );
    db.prepare(datasetInsert(sqliteDialect)).run(...datasetValues(info));
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
  abandon(): Promise<void> {
    if (this.db.open) this.db.close();
    rmSync(this.building, { force: true });
    if (this.served?.open) this.served.close();
    return Promise.resolve();
  }

  private copyFromServed(): void {
    const { db } = this;
    db.prepare('ATTACH DATABASE ? AS "previous"').run(this.path);
    try {
      db.transaction(() => {
        for (const rs of this.options.keep ?? []) copyRecordSet(db, rs);
        // Users are never part of a load: they go on to the new file, so that a load logs nobody out.
        db.exec('INSERT INTO "users" SELECT * FROM "previous"."users"');
      })();
    } finally {
      db.exec('DETACH DATABASE "previous"');
    }
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
  checkKeepable(rs, present);
  const columns = columnList(rs);
  db.exec(`INSERT INTO ${quote(rs.table)} (${columns}) SELECT ${columns} FROM "previous".${quote(rs.table)}`);
}

/** Every row of every record set of the file at `path`, in identifier order, as stored. */
export async function readSqliteDataset(path: string, visit: (rs: RecordSet, rows: Iterable<Values>) => void | Promise<void>): Promise<void> {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    for (const rs of recordSets) await visit(rs, db.prepare(selectAll(rs)).raw().iterate() as Iterable<Values>);
  } finally {
    db.close();
  }
}

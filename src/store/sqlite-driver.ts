/** The SQLite driver: a file named by DATABASE_URL (`sqlite:PATH`, or the embedded demo's file). */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { Config } from '../config.js';
import { sqlitePath } from '../config-values.js';
import type { StatementLimits } from './sqlite-statements.js';
import { SqlUserAdmin, removalRefused } from './core.js';
import { sqliteDialect } from './sql.js';
import { SqliteDatasetBuild, readSqliteDataset, sqliteCatalog, sqliteChanges, sqliteRecordSet, versionFile } from './sqlite-build.js';
import { MissingSqliteFile } from './sqlite-missing.js';
import { SqliteStore, endReads } from './sqlite.js';
import type { Replacement, Store, StoreDriver, UserAdmin } from './store.js';
import { StoreUnavailableError } from './store.js';

const notFound = (path: string): StoreUnavailableError => new StoreUnavailableError(`SQLite database not found: ${path}`);

/** User administration writes the main file in place: the one writer of it besides a load. */
function sqliteUserAdmin(path: string): UserAdmin {
  if (!existsSync(path)) throw notFound(path);
  const db = new Database(path, { fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  return new SqlUserAdmin({
    dialect: sqliteDialect,
    bool: (value) => (value ? 1 : 0),
    run: (text, values) => {
      // A store of this process reading the file would hold the lock this write waits for (SqliteStore.beginRead).
      endReads();
      return Promise.resolve(db.prepare(text).run(...values).changes);
    },
    all: <T>(text: string, values: readonly unknown[] = []) => Promise.resolve(db.prepare(text).all(...values) as T[]),
    close: () => Promise.resolve(void db.close()),
  });
}

/**
 * Removes a version from the catalog of the main file, in place (as user changes are made), then its
 * file. The write lock refuses it while an import runs, so the two never interleave.
 */
function removeSqliteVersion(path: string, version: string, today: string): void {
  if (!existsSync(path)) throw notFound(path);
  const db = new Database(path, { fileMustExist: true, timeout: 1000 });
  try {
    endReads();
    db.exec('BEGIN IMMEDIATE');
    const catalog = sqliteCatalog(db);
    const refused = removalRefused(catalog, version, today);
    if (refused !== null) throw new Error(refused);
    db.prepare('DELETE FROM "dataset_versions" WHERE "version" = ?').run(version);
    db.exec('COMMIT');
    rmSync(
      versionFile(
        path,
        catalog.find((v) => v.version === version)!,
      ),
      { force: true },
    );
  } catch (error) {
    if ((error as { code?: string }).code === 'SQLITE_BUSY') throw new Error(`${path} is locked: an import is running; try again when it is done`);
    throw error;
  } finally {
    db.close();
  }
}

/** Why the main store should be opened anew, or null when it should not. */
function reopenReason(open: Store, force: boolean): string | null {
  if (open instanceof MissingSqliteFile) return existsSync(open.path) || force ? 'a file is at the path again' : null;
  if (!(open instanceof SqliteStore)) return null;
  if (force) return 'asked to';
  if (open.replaced()) return 'another file at the path';
  return open.damaged ? 'reads failed on the file' : null;
}

/** The bound of each statement cache of a store (src/store/sqlite-statements.ts). */
const statementLimits = (config: Config): StatementLimits => ({
  maxEntries: config.SQLITE_STATEMENTS_MAX,
  maxBytes: config.SQLITE_STATEMENTS_KB * 1024,
});

export const sqliteDriver: StoreDriver = {
  open: (config) => new SqliteStore(sqlitePath(config), statementLimits(config), config.SQLITE_CACHE_KB),
  openUserAdmin: (config) => Promise.resolve(sqliteUserAdmin(sqlitePath(config))),
  startBuild: (config, options) => {
    const path = sqlitePath(config);
    mkdirSync(dirname(path), { recursive: true });
    return Promise.resolve(SqliteDatasetBuild.start(path, options));
  },
  openVersion: (config, version) => new SqliteStore(versionFile(sqlitePath(config), version), statementLimits(config), config.SQLITE_CACHE_KB),
  // A refusal is a rejected promise, never a throw before there is one.
  removeVersion: (config, version, today) => new Promise<void>((resolve) => resolve(removeSqliteVersion(sqlitePath(config), version, today))),
  readRecordSet: (config, rs, olderVersion) => sqliteRecordSet(olderVersion ? versionFile(sqlitePath(config), olderVersion) : sqlitePath(config), rs),
  changes: (config, sets, desde, hasta) => sqliteChanges(sqlitePath(config), sets, desde, hasta),
  readDataset: (config, visit, olderVersion) => {
    const path = olderVersion ? versionFile(sqlitePath(config), olderVersion) : sqlitePath(config);
    if (!existsSync(path)) throw notFound(path);
    return readSqliteDataset(path, visit);
  },
  replacement: (config, main, force): Replacement | null => {
    if (main instanceof SqliteStore && !existsSync(main.path)) {
      const { path } = main;
      return {
        reason: 'the SQLite file is gone from its path: answering 503 until a file is there again',
        open: () => new MissingSqliteFile(path),
        failing: true,
      };
    }
    const reason = reopenReason(main, force);
    if (reason === null) return null;
    const { path } = main as SqliteStore | MissingSqliteFile;
    return { reason, open: () => new SqliteStore(path, statementLimits(config), config.SQLITE_CACHE_KB) };
  },
  describe: (config) => resolve(sqlitePath(config)),
};

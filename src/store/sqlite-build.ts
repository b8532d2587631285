/**
 * Building a new SQLite dataset: a file of its own beside the main one, renamed over it when
 * complete, so the file at the path is only ever the old dataset or the complete new one.
 */
import { setImmediate } from 'node:timers/promises';
import { closeSync, existsSync, fsyncSync, linkSync, mkdirSync, openSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import type { Field, RecordSet } from '../record-sets/define.js';
import { recordSets } from '../record-sets/index.js';
import {
  DATASET_SELECT,
  catalogOf,
  checkKeepable,
  columnList,
  datasetInsert,
  datasetValues,
  describeDataset,
  metaDdl,
  newVersion,
  planVersion,
  selectAll,
  selectChanges,
  toDatasetInfo,
} from './core.js';
import type { DatasetRow, VersionPlan } from './core.js';
import { buildCount, buildCreateTable, buildIndexes, buildInsert, quote, sqliteDialect } from './sql.js';
import { buildSqliteFullText } from './sqlite-fulltext.js';
import { TIPOS_CAMBIO_ALL, fixValues, tiposCambioDdl, tiposCambioInsert } from './rates-coverage.js';
import { shippedTiposCambio } from '../tipos-cambio/series.js';
import { shippedReglas } from '../reglas-origen/archivos.js';
import { REGLAS_ORIGEN_ALL, reglasOrigenDdl, reglasOrigenInsert, reglasValues } from './reglas-origen-table.js';
import type { BuildOptions, CommittedDataset, DatasetBuild, Values } from './store.js';
import { StoreUnavailableError } from './store.js';
import type { VersionInfo, VersionRow } from './versions.js';
import { VERSIONS_SELECT, newestImport, versionInsert, versionValues } from './versions.js';

const columnType = (f: Field): string => (f.type.kind === 'int' ? 'INTEGER' : 'TEXT');

export const SQLITE_META_DDL = metaDdl({ keyText: 'TEXT', boolean: 'INTEGER', false: '0' });

/** How long a build waits for a user change on the main file to finish (milliseconds) before giving up. */
const LOCK_WAIT_MS = 1000;

/**
 * A new database built in a file of its own beside `path` (`PATH.building-PID`) and renamed over
 * `path` by commit, so the file at `path` is only ever the old dataset or the complete new one: a
 * failed, abandoned or killed build leaves it exactly as it was. While a build runs it holds a write
 * lock on the main file: a second build is refused, and no user change can be made and then lost
 * with the old file (readers, the service included, are not blocked).
 */
export class SqliteDatasetBuild implements DatasetBuild {
  private readonly inserts: ReadonlyMap<string, Database.Statement>;

  private constructor(
    private readonly path: string,
    private readonly building: string,
    private readonly db: Database.Database,
    private readonly mainFile: Database.Database | null,
    private readonly options: BuildOptions,
    private readonly plan: VersionPlan,
  ) {
    // Conflicts are reported to the caller (a duplicate identifier is a refused row, not a failure).
    this.inserts = new Map(recordSets.map((rs) => [rs.path, db.prepare(`${buildInsert(rs, sqliteDialect)} ON CONFLICT DO NOTHING`)]));
  }

  static start(path: string, options: BuildOptions = {}): SqliteDatasetBuild {
    const mainFile = lockMainFile(path);
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
      for (const statement of [
        ...recordSets.map((rs) => buildCreateTable(rs, columnType)),
        ...SQLITE_META_DDL,
        tiposCambioDdl('TEXT'),
        reglasOrigenDdl('TEXT'),
      ])
        db.exec(statement);
      db.exec('BEGIN');
      const plan = planVersion(mainFile ? sqliteCatalog(mainFile) : [], options.vigenteDesde);
      return new SqliteDatasetBuild(path, building, db, mainFile, options, plan);
    } catch (error) {
      mainFile?.close();
      throw error;
    }
  }

  /** Whether there is a version in force on the new one's date to keep record sets from. */
  get replacesExisting(): boolean {
    return this.plan.keepFrom !== undefined;
  }

  insert(rs: RecordSet, row: Values): boolean {
    return this.inserts.get(rs.path)!.run(...row).changes === 1;
  }

  /** Completes the new database and puts it in place of the main one. */
  async commit(source: string): Promise<CommittedDataset> {
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

  private async complete(source: string): Promise<CommittedDataset> {
    const { db } = this;
    const addRate = db.prepare(tiposCambioInsert(sqliteDialect));
    for (const fix of this.options.tiposCambio ?? shippedTiposCambio()) addRate.run(...fixValues(fix));
    const addReglas = db.prepare(reglasOrigenInsert(sqliteDialect));
    for (const values of reglasValues(this.options.reglasOrigen ?? shippedReglas())) addReglas.run(...values);
    db.exec('COMMIT');
    if (this.mainFile) this.copyFromMainFile();
    for (const statement of recordSets.flatMap(buildIndexes)) db.exec(statement);
    buildSqliteFullText(db, this.options.references);
    const info = await describeDataset(
      source,
      (rs) => db.prepare(selectAll(rs)).raw().iterate() as Iterable<Values>,
      (rs) => (db.prepare(buildCount(rs, [], sqliteDialect).text).get() as { total: number }).total,
      db.prepare(TIPOS_CAMBIO_ALL).raw().iterate() as Iterable<Values>,
      db.prepare(REGLAS_ORIGEN_ALL).raw().all() as Values[],
    );
    db.prepare(datasetInsert(sqliteDialect)).run(...datasetValues(info));
    const version = newVersion(this.plan, info);
    const addVersion = db.prepare(versionInsert(sqliteDialect));
    for (const v of [...this.plan.catalog, version]) addVersion.run(...versionValues(v));
    db.exec('ANALYZE');
    db.close();
    // Without these a power failure right after the rename could leave a renamed but incomplete file.
    syncToDisk(this.building);
    // The main file becomes its version's own file, an older version now; a link, so that the rename below is still the one switch.
    if (this.plan.main) keepAsOlderVersion(this.path, this.plan.main);
    renameSync(this.building, this.path);
    try {
      syncToDisk(dirname(this.path));
    } catch {
      // Some file systems cannot sync a directory; the rename is atomic all the same.
    }
    this.mainFile?.close();
    return { ...info, version };
  }

  /** Throws the new database away; the main file was never touched. */
  abandon(): Promise<void> {
    if (this.db.open) this.db.close();
    rmSync(this.building, { force: true });
    if (this.mainFile?.open) this.mainFile.close();
    return Promise.resolve();
  }

  private copyFromMainFile(): void {
    const { db } = this;
    const { keepFrom, main } = this.plan;
    const keepFile = keepFrom === undefined || keepFrom === main ? this.path : versionFile(this.path, keepFrom);
    db.prepare('ATTACH DATABASE ? AS "previous"').run(this.path);
    db.prepare('ATTACH DATABASE ? AS "kept"').run(keepFile);
    try {
      db.transaction(() => {
        if (keepFrom) for (const rs of this.options.keep ?? []) copyRecordSet(db, rs);
        // Users are never part of a load: they go on to the new file, so that a load logs nobody out.
        db.exec('INSERT INTO "users" SELECT * FROM "previous"."users"');
      })();
    } finally {
      db.exec('DETACH DATABASE "previous"');
      db.exec('DETACH DATABASE "kept"');
    }
  }
}

/** A write lock on the file being replaced, or null when there is none yet. */
function lockMainFile(path: string): Database.Database | null {
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

/** Whether a process with this id runs (one of another user's counts). */
export function isRunning(pid: number): boolean {
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

/** Copies a record set as it is; a main file from an older schema cannot be kept silently. */
function copyRecordSet(db: Database.Database, rs: RecordSet): void {
  const present = new Set((db.pragma(`"kept".table_info(${quote(rs.table)})`) as { name: string }[]).map((c) => c.name));
  checkKeepable(rs, present);
  const columns = columnList(rs);
  db.exec(`INSERT INTO ${quote(rs.table)} (${columns}) SELECT ${columns} FROM "kept".${quote(rs.table)}`);
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

/** Where the record sets of a version that is not the newest import are: a file of its own beside the main one. */
export const versionFile = (path: string, version: VersionInfo): string => join(`${path}.versions`, `${version.version}.sqlite`);

/** Links the main file as its version's file (once: a build that died after linking left the same file). */
function keepAsOlderVersion(path: string, version: VersionInfo): void {
  const file = versionFile(path, version);
  if (existsSync(file)) return;
  mkdirSync(dirname(file), { recursive: true });
  linkSync(path, file);
}

/**
 * Puts complete one-version files, built side by side (the demo build), in place as versions of the
 * file at `path` imported before its own: each becomes an older version in its version's own file, and the catalog of
 * `path` names them, oldest import first. `path` is not served yet.
 */
export function adoptOlderVersions(path: string, older: readonly { readonly file: string; readonly version: VersionInfo }[]): void {
  const db = new Database(path);
  try {
    const own = new Set(sqliteCatalog(db).map((v) => v.version));
    const clash = older.find(({ version }) => own.has(version.version));
    if (clash) throw new Error(`${path} already holds a version ${clash.version.version}`);
    db.transaction(() => {
      db.prepare('UPDATE "dataset_versions" SET "seq" = "seq" + ?').run(older.length);
      const add = db.prepare(versionInsert(sqliteDialect));
      older.forEach(({ version }, i) => add.run(...versionValues({ ...version, seq: i + 1 })));
    })();
  } finally {
    db.close();
  }
  for (const { file, version } of older) {
    mkdirSync(`${path}.versions`, { recursive: true });
    renameSync(file, versionFile(path, version));
  }
  syncToDisk(path);
}

/** The catalog of a SQLite file (catalogOf: a file from before versions is one version). */
export function sqliteCatalog(db: Database.Database): VersionInfo[] {
  const tables = new Set((db.prepare(`SELECT "name" FROM "sqlite_master" WHERE "type" = 'table'`).all() as { name: string }[]).map((t) => t.name));
  if (!tables.has('dataset_info')) return [];
  const rows = tables.has('dataset_versions') ? (db.prepare(VERSIONS_SELECT).all() as VersionRow[]) : [];
  return catalogOf(rows, toDatasetInfo(db.prepare(DATASET_SELECT).get() as DatasetRow | undefined));
}

/** The page cache of a connection that reads a table once, in order (KiB). */
const STREAM_CACHE_KIB = 256;

/** One record set of the file at `path`, in identifier order, read on a connection of its own that closes when the reading stops. */
export async function* sqliteRecordSet(path: string, rs: RecordSet): AsyncGenerator<Values> {
  let db: Database.Database;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new StoreUnavailableError(`${path}: ${(error as Error).message}`);
  }
  // One pass in order gains nothing from a page cache: the default (16 MB a connection) would make the
  // memory of several downloads at once grow with the number of clients.
  db.pragma(`cache_size = -${STREAM_CACHE_KIB}`);
  const rows = db.prepare(selectAll(rs)).raw().iterate() as IterableIterator<Values>;
  try {
    // A pause now and then lets a long read share the process with the requests around it.
    let n = 0;
    for (const row of rows) {
      yield row;
      if (++n % 1000 === 0) await setImmediate();
    }
  } finally {
    rows.return?.();
    db.close();
  }
}

/**
 * What differs between two versions in each of `sets` (selectChanges), read on a connection of its own
 * to the main file with the other version's file attached. Which version the main file holds is
 * read from that same file, so a load that replaces it meanwhile changes nothing. The comparison runs
 * in SQLite over both identifier indexes; a pause after each record set and every thousand changes
 * lets it share the process with the requests around it.
 */
export async function sqliteChanges(path: string, sets: readonly RecordSet[], desde: VersionInfo, hasta: VersionInfo): Promise<Values[][]> {
  let db: Database.Database;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new StoreUnavailableError(`${path}: ${(error as Error).message}`);
  }
  try {
    const newest = newestImport(sqliteCatalog(db))?.version;
    const schemaOf = (version: VersionInfo, name: string): string => {
      if (version.version === newest) return '"main"';
      try {
        db.prepare(`ATTACH DATABASE ? AS ${quote(name)}`).run(versionFile(path, version));
      } catch (error) {
        throw new StoreUnavailableError(`${versionFile(path, version)}: ${(error as Error).message}`);
      }
      return quote(name);
    };
    const from = schemaOf(desde, 'desde');
    const to = schemaOf(hasta, 'hasta');
    const answer: Values[][] = [];
    for (const rs of sets) {
      const changes: Values[] = [];
      for (const row of db
        .prepare(selectChanges(rs, `${from}.${quote(rs.table)}`, `${to}.${quote(rs.table)}`))
        .raw()
        .iterate() as Iterable<Values>) {
        changes.push(row);
        if (changes.length % 1000 === 0) await setImmediate();
      }
      answer.push(changes);
      await setImmediate();
    }
    return answer;
  } finally {
    db.close();
  }
}

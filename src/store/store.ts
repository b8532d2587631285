/**
 * The store: where records live. One core (core.ts) and a thin driver per database (SQLite,
 * PostgreSQL), chosen from one table (drivers.ts). These are the shapes every driver provides.
 */
import type { Config } from '../config.js';
import type { RecordSet } from '../record-sets/define.js';
import type { FullTextQuery, FullTextResult } from './fulltext.js';
import type { Condition } from './sql.js';
import type { VersionInfo } from './versions.js';
import type { Reference } from '../buscar/references.js';
import type { Suggestion } from '../buscar/vocabulary.js';
import type { SeriesWindow } from '../tipos-cambio/rule.js';
import type { Fix } from '../tipos-cambio/series.js';
import type { Coverage } from './rates-coverage.js';
import type { ReglasAcuerdo } from '../reglas-origen/archivos.js';

export type Row = Record<string, string | number | null>;
export type Values = readonly (string | number | null)[];

export interface SearchQuery {
  readonly conditions: readonly Condition[];
  readonly skip: number;
  readonly limit: number;
}

/** What is loaded: written by every load, shown by /health. */
export interface DatasetInfo {
  readonly source: string;
  readonly importedAt: string;
  readonly hash: string;
  readonly counts: Readonly<Record<string, number>>;
}

export interface User {
  readonly username: string;
  /** The identity the user's batches and watch lists are kept under: never that of another user of the same name (src/store/accounts.ts). */
  readonly account: string;
  /** When the user was created (ISO time, as stored). */
  readonly createdAt: string;
  readonly fullName: string | null;
  readonly email: string | null;
  readonly disabled: boolean;
  readonly passwordHash: string;
}

/** What an in-process cache holds and may hold, for /metrics. */
export interface CacheStats {
  readonly entries: number;
  readonly bytes: number;
  readonly maxEntries: number;
  readonly maxBytes: number;
  /** Entries dropped to stay within the bounds, since the cache was made. */
  readonly evictions: number;
}

export interface Store {
  readonly kind: string;
  /** The store's own caches by name (prepared statements), for /metrics; none when it keeps none. */
  caches?(): Readonly<Record<string, CacheStats>>;
  search(rs: RecordSet, query: SearchQuery): Promise<Row[]>;
  count(rs: RecordSet, conditions: readonly Condition[]): Promise<number>;
  lookup(rs: RecordSet, key: readonly (string | number)[]): Promise<Row | undefined>;
  /** Several records by identifier, in no particular order; those not there are left out. */
  lookupMany(rs: RecordSet, keys: readonly (readonly (string | number)[])[]): Promise<Row[]>;
  /** A real query against the store; throws when it cannot answer. */
  dataset(): Promise<DatasetInfo | null>;
  /** The catalog of versions the database holds (src/store/versions.ts); empty when nothing is loaded. */
  versions(): Promise<VersionInfo[]>;
  findUser(username: string): Promise<User | undefined>;
  /** Fractions by description or code, ranked by relevance (`/api/v1/buscar`). */
  fullText(query: FullTextQuery): Promise<FullTextResult>;
  /** How fullText reads a query (buscar/ranking.ts, planReading): two queries read alike are answered alike. */
  searchReading(query: FullTextQuery): Promise<string>;
  /** Completions of what is being typed in a search box (`/api/v1/buscar/sugerencias`). */
  suggest(q: string): Promise<Suggestion[]>;
  /** The rows of the version's exchange-rate series the rule for `fecha` reads (src/tipos-cambio/rule.ts); empty when it holds none. */
  tiposCambio(fecha: string): Promise<SeriesWindow>;
  /** Per record set with a fraction column: how many of the version's fractions have a record of it. */
  coverage(): Promise<Coverage>;
  /** The version's rules of origin, per agreement (src/reglas-origen/); none when it holds none (loaded before they existed). */
  reglasOrigen(): Promise<ReglasAcuerdo[]>;
  close(): Promise<void>;
}

/** The store could not be reached or could not answer in time: a 503, not a 500. */
export class StoreUnavailableError extends Error {
  override readonly name: string = 'StoreUnavailableError';
}

/**
 * The database answers but holds a dataset this version of the service cannot serve (built for
 * another shape of the registry): a 503 too, and /health says what the operator has to do.
 */
export class UnservableDatasetError extends StoreUnavailableError {
  override readonly name = 'UnservableDatasetError';
}

/** Receives rows for one record set at a time, already checked against the registry. */
export interface DatasetWriter {
  /** Adds a row; false, and nothing added, when the record set already holds a row with its identifier. */
  insert(rs: RecordSet, row: Values): boolean;
  /** Waits until the rows sent so far are taken, so that a long load stays within bounded memory. */
  ready(): Promise<void>;
}

/**
 * A new dataset being built beside the main one (SQLite: a new file; PostgreSQL: a staging schema in
 * one transaction). Nothing is visible until commit; abandon leaves the main store as it was.
 */
export interface DatasetBuild extends DatasetWriter {
  /** Whether the main store holds a dataset whose record sets can be kept. */
  readonly replacesExisting: boolean;
  /** Completes the dataset and adds it as a new version; `source` is its `fuente`. */
  commit(source: string): Promise<CommittedDataset>;
  abandon(): Promise<void>;
}

export interface CommittedDataset extends DatasetInfo {
  readonly version: VersionInfo;
}

export interface BuildOptions {
  /** Record sets copied as they are from the version in force on `vigenteDesde`, instead of being filled. */
  readonly keep?: readonly RecordSet[];
  /** The date the new version is in force from (`YYYY-MM-DD`); since always when not given. */
  readonly vigenteDesde?: string;
  /** The search references the search index is built with; the project's shipped table when absent. */
  readonly references?: readonly Reference[];
  /** The exchange-rate series the version holds; the project's shipped series when absent. */
  readonly tiposCambio?: readonly Fix[];
  /** The rules of origin the version holds, per agreement; the project's shipped files when absent. */
  readonly reglasOrigen?: readonly ReglasAcuerdo[];
}

export interface UserSummary {
  readonly username: string;
  readonly full_name: string | null;
  readonly email: string | null;
  readonly disabled: boolean;
  readonly created_at: string;
}

/** User administration (the command line, the demo user), the same on every store. */
export interface UserAdmin {
  list(): Promise<readonly UserSummary[]>;
  /** False when the username is taken. */
  add(username: string, passwordHash: string, fullName: string | null, email: string | null): Promise<boolean>;
  /** These return false when there is no such user. */
  setDisabled(username: string, disabled: boolean): Promise<boolean>;
  setPassword(username: string, passwordHash: string): Promise<boolean>;
  remove(username: string): Promise<boolean>;
  close(): Promise<void>;
}

/** A store the main one should be replaced by, and why (a new file at the path, say). */
export interface Replacement {
  readonly reason: string;
  open(): Store;
  /** A store that answers 503 (the file is gone): switched to without checking that it answers, and logged as an error. */
  readonly failing?: boolean;
}

/**
 * One database kind: everything the rest of the service asks of it. A new kind of database is a
 * driver (and its files) added to the table in drivers.ts.
 */
export interface StoreDriver {
  /** The store the service reads; connects lazily or fails with StoreUnavailableError. */
  open(config: Config): Store;
  openUserAdmin(config: Config): Promise<UserAdmin>;
  startBuild(config: Config, options: BuildOptions): Promise<DatasetBuild>;
  /** One record set as readDataset reads it, while the caller reads on (a download); stopping early closes what it opened. */
  readRecordSet(config: Config, rs: RecordSet, olderVersion?: VersionInfo): AsyncGenerator<Values>;
  /** Every row of every record set, in identifier order, as stored: of the newest import, or of `olderVersion`, an older version in a file or schema of its own. */
  readDataset(
    config: Config,
    visit: (rs: RecordSet, rows: AsyncIterable<Values> | Iterable<Values>) => Promise<void> | void,
    olderVersion?: VersionInfo,
  ): Promise<void>;
  /**
   * What differs between two versions in each of `sets` (core.ts selectChanges): per record set, one
   * row per changed record, its identifier's values then the index of the change in CHANGE_KINDS, in
   * identifier order. Where each version's tables are is read in the same snapshot as the tables.
   */
  changes(config: Config, sets: readonly RecordSet[], desde: VersionInfo, hasta: VersionInfo): Promise<Values[][]>;
  /** The store of a version whose record sets are not the main tables (an older version, moved to a file or schema of its own by a later import). */
  openVersion(config: Config, version: VersionInfo): Store;
  /** Removes a version that is neither in force on `today` nor the newest import; refused while a load runs. */
  removeVersion(config: Config, version: string, today: string): Promise<void>;
  /** Called every few seconds with the main store: what should replace it, if anything (a reload). */
  replacement(config: Config, main: Store, force: boolean): Replacement | null;
  /** How the database is named in reports (a path, a URL without its password). */
  describe(config: Config): string;
}

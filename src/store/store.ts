/** The store: where records live. Two implementations (SQLite, PostgreSQL) chosen by configuration. */
import type { RecordSet } from '../record-sets/define.js';
import type { FullTextQuery, FullTextResult } from './fulltext.js';
import type { Condition } from './sql.js';
import type { Suggestion } from '../search/vocabulary.js';

export type Row = Record<string, string | number | null>;

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
  readonly fullName: string | null;
  readonly email: string | null;
  readonly disabled: boolean;
  readonly passwordHash: string;
}

export interface Store {
  readonly kind: 'sqlite' | 'postgres';
  search(rs: RecordSet, query: SearchQuery): Promise<Row[]>;
  count(rs: RecordSet, conditions: readonly Condition[]): Promise<number>;
  lookup(rs: RecordSet, key: readonly (string | number)[]): Promise<Row | undefined>;
  /** A real query against the store; throws when it cannot answer. */
  dataset(): Promise<DatasetInfo | null>;
  findUser(username: string): Promise<User | undefined>;
  /** Fractions by description or code, ranked by relevance (`/api/v1/buscar`). */
  fullText(query: FullTextQuery): Promise<FullTextResult>;
  /** Completions of what is being typed in a search box (`/api/v1/buscar/sugerencias`). */
  suggest(q: string): Promise<Suggestion[]>;
  close(): Promise<void>;
}

/** The store could not be reached or could not answer in time: a 503, not a 500. */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}

/**
 * A new dataset being built beside the served one (SQLite: a new file; PostgreSQL: a staging schema in
 * one transaction). Nothing is visible until commit; abandon leaves the served data as it was.
 */
export interface DatasetBuild {
  /** Whether there is a served dataset whose record sets can be kept. */
  readonly replacesExisting: boolean;
  /** Adds a checked row; false, and nothing added, when its identifier is already in the record set. */
  insert(rs: RecordSet, row: readonly (string | number | null)[]): boolean;
  /** Waits until the rows sent so far are taken, so that a long load stays within bounded memory. */
  ready?(): Promise<void>;
  commit(source: string): DatasetInfo | Promise<DatasetInfo>;
  abandon(): void | Promise<void>;
}

/**
 * Prepared statements of one SQLite connection: each prepared on its first use and kept by its SQL
 * text, the least recently used dropped past a bound on their number and on the size of their SQL
 * (a statement's compiled program grows with its text). Without the bound, every new shape of query
 * (a search with one more word, another mix of filters) kept one more statement for the life of the
 * process (issue 26). A statement dropped is finalised by better-sqlite3 when collected.
 */
import type Database from 'better-sqlite3';
import { Lru } from '../lru.js';
import type { CacheStats } from './store.js';

export interface StatementLimits {
  readonly maxEntries: number;
  /** Characters of SQL text kept, all statements together. */
  readonly maxBytes: number;
}

/** SQLITE_STATEMENTS_MAX and SQLITE_STATEMENTS_KB's defaults (src/config.ts). */
export const DEFAULT_STATEMENT_LIMITS: StatementLimits = { maxEntries: 300, maxBytes: 1024 * 1024 };

export class StatementCache {
  // The statement just prepared stays whatever its size: it is about to run.
  private readonly statements: Lru<Database.Statement>;

  /** `raw`: the statements give rows as arrays (SqliteStore turns them into objects once per record set). */
  constructor(
    private readonly db: Database.Database,
    limits: StatementLimits = DEFAULT_STATEMENT_LIMITS,
    private readonly raw = false,
  ) {
    this.statements = new Lru<Database.Statement>({ ...limits, weight: (sql) => sql.length, keep: 1 });
  }

  readonly prepare = (sql: string): Database.Statement => {
    const kept = this.statements.get(sql);
    if (kept !== undefined) return kept;
    const statement = this.raw ? this.db.prepare(sql).raw(true) : this.db.prepare(sql);
    this.statements.set(sql, statement);
    return statement;
  };

  stats(): CacheStats {
    return this.statements.stats();
  }
}

/** Several caches' figures as one (the statement caches of one store). */
export function sumStats(all: readonly CacheStats[]): CacheStats {
  const sum = (pick: (s: CacheStats) => number): number => all.reduce((total, s) => total + pick(s), 0);
  return {
    entries: sum((s) => s.entries),
    bytes: sum((s) => s.bytes),
    maxEntries: sum((s) => s.maxEntries),
    maxBytes: sum((s) => s.maxBytes),
    evictions: sum((s) => s.evictions),
  };
}

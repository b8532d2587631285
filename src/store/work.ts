/**
 * The service's own working tables: what users ask it to do over time (batches, watch lists, their
 * deliveries), written while it runs and never part of a load. SQLite: a file of their own beside the
 * main one (`NAME.trabajo.sqlite`), because a load replaces the main file whole and would lose
 * writes made between its copy and its rename; PostgreSQL: tables in the service's database beside
 * `users`, which a load never touches. Work taken by one process is taken with a lease in one
 * statement (`lockRows`: `FOR UPDATE SKIP LOCKED` on PostgreSQL, so several copies never take the same
 * row), as docs/adr/0010-work-store.md says.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Pool, PoolClient } from 'pg';
import type { Config } from '../config.js';
import type { StoreKind } from '../config-values.js';
import { postgresSettings, sqlitePath, storeKind } from '../config-values.js';
import { createPostgresPool, inTransaction, storeError } from './postgres-connection.js';
import type { Dialect } from './sql.js';
import { postgresDialect, sqliteDialect } from './sql.js';

/** Column types as each database names them, for the working tables' DDL. */
export interface WorkTypes {
  /** An identifier the database assigns. */
  readonly serial: string;
  readonly bigint: string;
  readonly boolean: string;
  readonly text: string;
  /**
   * `ALTER TABLE t ${addColumn} c …` adds a column a working store made by an older version lacks:
   * PostgreSQL's `IF NOT EXISTS`; on SQLite, which has no such clause, `ensure` skips the statement
   * when the column is there.
   */
  readonly addColumn: string;
}

/** Statements inside a transaction, or outside one. */
export interface WorkStatements {
  readonly kind: StoreKind;
  readonly dialect: Dialect;
  readonly types: WorkTypes;
  /** Appended to a `SELECT` that takes rows for work: other copies skip the rows one copy holds. */
  readonly lockRows: string;
  /** A boolean as the database binds it (SQLite: 0/1). */
  bool(value: boolean): boolean | number;
  /** Rows changed. */
  run(text: string, values?: readonly unknown[]): Promise<number>;
  all<T>(text: string, values?: readonly unknown[]): Promise<T[]>;
}

export interface WorkDb extends WorkStatements {
  /** `work`'s statements in one transaction: all of them or, on any failure, none. */
  transaction<T>(work: (tx: WorkStatements) => Promise<T>): Promise<T>;
  /** Creates what is missing (idempotent DDL: `CREATE … IF NOT EXISTS`), once per statement list. */
  ensure(ddl: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * The name a process takes leases under: its host, its process id and a nonce. On SQLite every process
 * using the working file runs on one host, so a process starting can tell (deadHolder) that a lease is
 * held by one that was killed, and take the work back at once instead of when the lease runs out.
 */
export function leaseHolder(): string {
  return `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

/** Whether `holder` (leaseHolder) names another process of this host that no longer runs. */
export function deadHolder(holder: string): boolean {
  const [host, pid] = holder.split(':');
  if (host !== hostname() || !/^[0-9]+$/.test(pid ?? '') || Number(pid) === process.pid) return false;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** Placeholders in the order their values are bound (SQLite's `?` are positional). */
export function binder(db: WorkStatements): ((value: unknown) => string) & { values: unknown[] } {
  const values: unknown[] = [];
  const bind = (value: unknown): string => {
    values.push(value);
    return db.dialect.placeholder(values.length);
  };
  return Object.assign(bind, { values });
}

/** Where the SQLite working file of the main file is. */
export function workFilePath(mainPath: string): string {
  return mainPath.replace(/(\.sqlite3?|\.db)?$/i, '.trabajo.sqlite');
}

export function openWorkDb(config: Config): WorkDb {
  return storeKind(config) === 'postgres' ? new PostgresWorkDb(config) : new SqliteWorkDb(workFilePath(sqlitePath(config)));
}

// ---------------------------------------------------------------------------------------------
// SQLite

const SQLITE_TYPES: WorkTypes = { serial: 'INTEGER PRIMARY KEY AUTOINCREMENT', bigint: 'INTEGER', boolean: 'INTEGER', text: 'TEXT', addColumn: 'ADD COLUMN' };

const WORK_CACHE_KIB = 4096;

/**
 * One writable connection per process, in WAL mode so that readers never wait for a writer. SQLite
 * runs statements synchronously, so a transaction whose work awaits in between is kept whole by
 * making every other statement of this process wait for it (`turn`).
 */
class SqliteWorkDb implements WorkDb {
  readonly kind = 'sqlite' as const;
  readonly dialect = sqliteDialect;
  readonly types = SQLITE_TYPES;
  readonly lockRows = '';
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();
  private turn: Promise<unknown> = Promise.resolve();
  private readonly ensured = new WeakSet<readonly string[]>();

  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 5000');
    // WAL with NORMAL survives a killed process (not a lost machine's last commits), as the batches' durability needs.
    this.db.pragma('synchronous = NORMAL');
    // Written in appends (a batch's lines and results) and read a page at a time: 4 MiB of page cache,
    // not better-sqlite3's 16, which a 100,000-line batch's results filled in the service's memory.
    this.db.pragma(`cache_size = -${WORK_CACHE_KIB}`);
  }

  bool(value: boolean): number {
    return value ? 1 : 0;
  }

  private statement(text: string): Database.Statement {
    let statement = this.statements.get(text);
    if (!statement) {
      statement = this.db.prepare(text);
      // The working tables' statements are a fixed set written in code; the bound keeps a mistake from growing memory.
      if (this.statements.size >= 500) this.statements.clear();
      this.statements.set(text, statement);
    }
    return statement;
  }

  private direct: WorkStatements = {
    kind: 'sqlite',
    dialect: sqliteDialect,
    types: SQLITE_TYPES,
    lockRows: '',
    bool: (value) => (value ? 1 : 0),
    run: (text, values = []) => Promise.resolve(this.statement(text).run(...values).changes),
    all: <T>(text: string, values: readonly unknown[] = []) => {
      const statement = this.statement(text);
      return Promise.resolve((statement.reader ? statement.all(...values) : (statement.run(...values), [])) as T[]);
    },
  };

  private queued<T>(action: () => Promise<T>): Promise<T> {
    const result = this.turn.then(action, action);
    this.turn = result.catch(() => undefined);
    return result;
  }

  run(text: string, values: readonly unknown[] = []): Promise<number> {
    return this.queued(() => this.direct.run(text, values));
  }

  all<T>(text: string, values: readonly unknown[] = []): Promise<T[]> {
    return this.queued(() => this.direct.all<T>(text, values));
  }

  transaction<T>(work: (tx: WorkStatements) => Promise<T>): Promise<T> {
    return this.queued(async () => {
      this.db.exec('BEGIN IMMEDIATE');
      try {
        const result = await work(this.direct);
        this.db.exec('COMMIT');
        return result;
      } catch (error) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw error;
      }
    });
  }

  ensure(ddl: readonly string[]): Promise<void> {
    if (this.ensured.has(ddl)) return Promise.resolve();
    return this.queued(() => {
      this.db.transaction(() => {
        for (const statement of ddl) if (!this.hasColumnAdded(statement)) this.db.exec(statement);
      })();
      this.ensured.add(ddl);
      return Promise.resolve();
    });
  }

  /** Whether `statement` adds a column (`ALTER TABLE t ADD COLUMN c …`) that the table already has. */
  private hasColumnAdded(statement: string): boolean {
    const adds = /^\s*ALTER\s+TABLE\s+"?(\w+)"?\s+ADD\s+COLUMN\s+"?(\w+)"?/i.exec(statement);
    if (adds === null) return false;
    const columns = this.db.prepare(`SELECT name FROM pragma_table_info(?)`).all(adds[1]) as { name: string }[];
    return columns.some((c) => c.name === adds[2]);
  }

  close(): Promise<void> {
    return this.queued(() => {
      this.db.close();
      return Promise.resolve();
    });
  }
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL

const POSTGRES_TYPES: WorkTypes = {
  serial: 'BIGSERIAL PRIMARY KEY',
  bigint: 'BIGINT',
  boolean: 'BOOLEAN',
  text: 'TEXT',
  addColumn: 'ADD COLUMN IF NOT EXISTS',
};

/** Advisory lock key under which the working tables are created, so that copies starting together do not race. */
const WORK_SCHEMA_LOCK = 0x7461726968;

function postgresStatements(query: (text: string, values: readonly unknown[]) => Promise<{ rows: unknown[]; rowCount: number | null }>): WorkStatements {
  return {
    kind: 'postgres',
    dialect: postgresDialect,
    types: POSTGRES_TYPES,
    lockRows: ' FOR UPDATE SKIP LOCKED',
    bool: (value) => value,
    run: async (text, values = []) => (await query(text, values)).rowCount ?? 0,
    all: async <T>(text: string, values: readonly unknown[] = []) => (await query(text, values)).rows as T[],
  };
}

class PostgresWorkDb implements WorkDb {
  readonly kind = 'postgres' as const;
  readonly dialect = postgresDialect;
  readonly types = POSTGRES_TYPES;
  readonly lockRows = ' FOR UPDATE SKIP LOCKED';
  private readonly pool: Pool;
  private readonly outside: WorkStatements;
  private readonly ensured = new WeakSet<readonly string[]>();
  private readonly shown: string;

  constructor(config: Config) {
    this.shown = postgresSettings(config).shown;
    // The admin pool: writable sessions (the service's own pools are read-only).
    this.pool = createPostgresPool(config, 'admin');
    this.outside = postgresStatements((text, values) => this.query(this.pool, text, values));
  }

  private async query(on: Pool | PoolClient, text: string, values: readonly unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }> {
    try {
      return await on.query(text, [...values]);
    } catch (error) {
      throw storeError(error, this.shown);
    }
  }

  bool(value: boolean): boolean {
    return value;
  }

  run(text: string, values: readonly unknown[] = []): Promise<number> {
    return this.outside.run(text, values);
  }

  all<T>(text: string, values: readonly unknown[] = []): Promise<T[]> {
    return this.outside.all<T>(text, values);
  }

  transaction<T>(work: (tx: WorkStatements) => Promise<T>): Promise<T> {
    return inTransaction(
      this.pool,
      (client) => work(postgresStatements((text, values) => this.query(client, text, values))),
      (error) => storeError(error, this.shown),
    );
  }

  async ensure(ddl: readonly string[]): Promise<void> {
    if (this.ensured.has(ddl)) return;
    await this.transaction(async (tx) => {
      await tx.run(`SELECT pg_advisory_xact_lock(${WORK_SCHEMA_LOCK})`);
      for (const statement of ddl) await tx.run(statement);
    });
    this.ensured.add(ddl);
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

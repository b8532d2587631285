/**
 * The PostgreSQL store: the same Store as SQLite, over a pool of connections to a database server
 * that several copies of the service share (docs/adr/0003-postgresql.md).
 *
 * - The SQL is the SQLite store's, from sql.ts, with `$n` placeholders. Every text column is
 *   COLLATE "C", so equality, ordering, prefix ranges and UPPER() compare bytes as SQLite does,
 *   whatever the database's own collation, and plain B-tree indexes serve the prefix ranges.
 * - Service connections are read-only by construction (`default_transaction_read_only`) and carry the
 *   statement timeout; the loader and the user administration open their own, ordinary connections.
 * - Statements are named after a hash of their text: pg prepares each once per connection and reuses
 *   it. Only texts used twice are named, and a bounded number of them (Connection in postgres-connection.ts).
 */
import type { QueryResultRow } from 'pg';
import type { Config } from '../config.js';
import type { RecordSet } from '../record-sets/define.js';
import { DATASET_SELECT, catalogOf, expectedTables, shapeProblem, toDatasetInfo, toUser, userSelect } from './core.js';
import type { DatasetRow, UserRow } from './core.js';
import type { Suggestion } from '../buscar/vocabulary.js';
import type { FullTextQuery, FullTextResult } from './fulltext.js';
import { Connection, versionSchema } from './postgres-connection.js';
import { PostgresFullText } from './postgres-fulltext.js';
import type { Coverage, WindowRow } from './rates-coverage.js';
import type { ReglasAcuerdo } from '../reglas-origen/archivos.js';
import type { ReglasRow } from './reglas-origen-table.js';
import { REGLAS_ORIGEN_ALL, REGLAS_ORIGEN_TABLE, toReglas } from './reglas-origen-table.js';
import { EMPTY_WINDOW, TIPOS_CAMBIO_TABLE, coverageSql, tiposCambioWindowSql, toCoverage, toSeriesWindow } from './rates-coverage.js';
import type { SeriesWindow } from '../tipos-cambio/rule.js';
import { buildCount, buildLookup, buildLookupMany, buildSearch, postgresDialect } from './sql.js';
import type { Condition } from './sql.js';
import type { DatasetInfo, Row, SearchQuery, Store, User } from './store.js';
import { UnservableDatasetError } from './store.js';
import type { VersionInfo, VersionRow } from './versions.js';
import { VERSIONS_SELECT } from './versions.js';

// ---------------------------------------------------------------------------------------------
// The store

/** PostgreSQL text cannot hold NUL: a value with one matches no stored text, and must not reach the server. */
const hasNul = (value: string | number): boolean => typeof value === 'string' && value.includes('\0');

function withoutNul(c: Condition): Condition | null {
  if (c.kind === 'null') return c;
  if (c.kind !== 'or') return hasNul(c.value) ? null : c;
  const any = c.any.map(withoutNul).filter((x): x is Condition => x !== null);
  return any.length === 0 ? null : { kind: 'or', any };
}

/** The conditions a server can evaluate, or null when they can match nothing (as SQLite would answer). */
function satisfiable(conditions: readonly Condition[]): Condition[] | null {
  const kept: Condition[] = [];
  for (const c of conditions) {
    const k = withoutNul(c);
    if (k === null) return null;
    kept.push(k);
  }
  return kept;
}

const COLUMNS_SQL = 'SELECT "table_name", "column_name" FROM information_schema.columns WHERE "table_schema" = current_schema() AND "table_name" = ANY($1)';

export class PostgresStore implements Store {
  readonly kind = 'postgres' as const;
  private readonly db: Connection;

  /** Whether the tables were seen to have the registry's shape; checked until they do (a load may fix them). */
  private shapeSeen = false;

  private readonly text: PostgresFullText;

  /**
   * Connects lazily: the service starts, and answers 503, while the database is down. With `version`,
   * the store of an older version, moved by a later import into its own schema, without users or catalog.
   */
  constructor(
    config: Config,
    private readonly version?: VersionInfo,
  ) {
    this.db = new Connection(config, 'service', version && versionSchema(version));
    this.text = new PostgresFullText((text, values) => this.query(text, values));
  }

  /** Every query goes through here: a database built for another shape of the registry is a 503 naming the cure. */
  private async query<T extends QueryResultRow>(text: string, values: readonly unknown[] = []): Promise<T[]> {
    if (!this.shapeSeen) {
      const { rows } = await this.db.query<{ table_name: string; column_name: string }>(COLUMNS_SQL, [expectedTables()]);
      const columns = new Map<string, Set<string>>();
      for (const r of rows) columns.set(r.table_name, (columns.get(r.table_name) ?? new Set()).add(r.column_name));
      const problem = shapeProblem(columns, this.version === undefined);
      if (problem !== null) throw new UnservableDatasetError(problem);
      this.shapeSeen = true;
    }
    return (await this.db.query<T>(text, values)).rows;
  }

  async search(rs: RecordSet, query: SearchQuery): Promise<Row[]> {
    const conditions = satisfiable(query.conditions);
    if (conditions === null) return [];
    const q = buildSearch(rs, conditions, query.skip, query.limit, postgresDialect);
    return this.query<Row>(q.text, q.values);
  }

  async count(rs: RecordSet, conditions: readonly Condition[]): Promise<number> {
    const kept = satisfiable(conditions);
    if (kept === null) return 0;
    const q = buildCount(rs, kept, postgresDialect);
    return (await this.query<{ total: number }>(q.text, q.values))[0]?.total ?? 0;
  }

  async lookup(rs: RecordSet, key: readonly (string | number)[]): Promise<Row | undefined> {
    if (key.some(hasNul)) return undefined;
    return (await this.query<Row>(buildLookup(rs, postgresDialect), key))[0];
  }

  async lookupMany(rs: RecordSet, keys: readonly (readonly (string | number)[])[]): Promise<Row[]> {
    const wanted = keys.filter((key) => !key.some(hasNul));
    if (wanted.length === 0) return [];
    const q = buildLookupMany(rs, wanted, postgresDialect);
    return this.query<Row>(q.text, q.values);
  }

  async dataset(): Promise<DatasetInfo | null> {
    const v = this.version;
    if (!v) return toDatasetInfo((await this.query<DatasetRow>(DATASET_SELECT))[0]);
    await this.query('SELECT 1');
    return { source: v.fuente, importedAt: v.importado, hash: v.hash, counts: v.conteos };
  }

  /** The catalog; a database loaded before versions has none and is one version (catalogOf). */
  async versions(): Promise<VersionInfo[]> {
    const present = (await this.query<{ present: boolean }>(`SELECT to_regclass('dataset_versions') IS NOT NULL AS "present"`))[0]?.present;
    const rows = present ? await this.query<VersionRow>(VERSIONS_SELECT) : [];
    return catalogOf(rows, await this.dataset());
  }

  /** Whether the version's tables include the exchange rates (a database loaded before they existed has none); once seen, kept. */
  private ratesSeen = false;

  async tiposCambio(fecha: string): Promise<SeriesWindow> {
    if (!this.ratesSeen) {
      const present = (await this.query<{ present: boolean }>(`SELECT to_regclass('${TIPOS_CAMBIO_TABLE}') IS NOT NULL AS "present"`))[0]?.present;
      if (!present) return EMPTY_WINDOW;
      this.ratesSeen = true;
    }
    if (hasNul(fecha)) return EMPTY_WINDOW;
    return toSeriesWindow(await this.query<WindowRow>(tiposCambioWindowSql(postgresDialect), [fecha]));
  }

  /** Whether the version's tables include the rules of origin (a database loaded before they existed has none); once seen, kept. */
  private reglasSeen = false;

  async reglasOrigen(): Promise<ReglasAcuerdo[]> {
    if (!this.reglasSeen) {
      const present = (await this.query<{ present: boolean }>(`SELECT to_regclass('${REGLAS_ORIGEN_TABLE}') IS NOT NULL AS "present"`))[0]?.present;
      if (!present) return [];
      this.reglasSeen = true;
    }
    return toReglas(await this.query<ReglasRow>(REGLAS_ORIGEN_ALL));
  }

  async coverage(): Promise<Coverage> {
    return toCoverage((await this.query<Record<string, unknown>>(coverageSql()))[0]);
  }

  async findUser(username: string): Promise<User | undefined> {
    if (hasNul(username)) return undefined;
    // Users only: a dataset of another shape does not stop logins.
    return toUser((await this.db.query<UserRow>(userSelect(postgresDialect), [username])).rows[0]);
  }

  fullText(query: FullTextQuery): Promise<FullTextResult> {
    return this.text.search(query);
  }

  searchReading(query: FullTextQuery): Promise<string> {
    return this.text.reading(query);
  }

  suggest(q: string): Promise<Suggestion[]> {
    return this.text.suggest(q);
  }

  close(): Promise<void> {
    return this.db.close();
  }
}

/**
 * What every store does the same way, written once: the tables besides the record sets (users,
 * dataset info), reading them back, the content hash, the per-set counts, the checks before a record
 * set is kept from the main store's dataset or a dataset is served at all, writing a whole dataset, and user
 * administration over a small executor. A driver adds only what differs: connection, dialect, bulk
 * load and full text.
 */
import { createHash } from 'node:crypto';
import type { RecordSet } from '../record-sets/define.js';
import { recordSets } from '../record-sets/index.js';
import { accountOf } from './accounts.js';
import type { Dialect } from './sql.js';
import { TIPOS_CAMBIO_TABLE } from './rates-coverage.js';
import { REGLAS_ORIGEN_TABLE } from './reglas-origen-table.js';
import { DATASET_INFO_DDL, quote } from './sql.js';
import type { CommittedDataset, DatasetBuild, DatasetInfo, DatasetWriter, User, UserAdmin, UserSummary, Values } from './store.js';
import type { VersionInfo, VersionRow } from './versions.js';
import { SINCE_ALWAYS, VERSIONS_DDL, byRecency, inForce, newestImport, nextVersionId, toVersionInfo } from './versions.js';

/** How a store names the column types of the tables besides the record sets. */
export interface MetaTypes {
  /** Text compared byte by byte (a username). */
  readonly keyText: string;
  readonly boolean: string;
  readonly false: string;
}

/** The tables every dataset has besides its record sets. */
export function metaDdl(types: MetaTypes): string[] {
  return [
    DATASET_INFO_DDL,
    VERSIONS_DDL,
    `CREATE TABLE IF NOT EXISTS "users" (
  "username" ${types.keyText} PRIMARY KEY,
  "full_name" TEXT,
  "email" TEXT,
  "disabled" ${types.boolean} NOT NULL DEFAULT ${types.false},
  "password_hash" TEXT NOT NULL,
  "created_at" TEXT NOT NULL
)`,
  ];
}

export const META_TABLES = ['dataset_info', 'users'] as const;

// ---------------------------------------------------------------------------------------------
// Reading back

export const DATASET_SELECT = 'SELECT "source", "imported_at", "hash", "counts" FROM "dataset_info" WHERE "id" = 1';

export function datasetInsert(dialect: Dialect): string {
  const p = (i: number): string => dialect.placeholder(i);
  return `INSERT INTO "dataset_info" ("id", "source", "imported_at", "hash", "counts") VALUES (1, ${p(1)}, ${p(2)}, ${p(3)}, ${p(4)})`;
}

export const datasetValues = (info: DatasetInfo): string[] => [info.source, info.importedAt, info.hash, JSON.stringify(info.counts)];

export interface DatasetRow {
  readonly source: string;
  readonly imported_at: string;
  readonly hash: string;
  /** JSON text, not a JSON column: PostgreSQL's jsonb would reorder its keys. */
  readonly counts: string;
}

export function toDatasetInfo(row: DatasetRow | undefined): DatasetInfo | null {
  if (!row) return null;
  return { source: row.source, importedAt: row.imported_at, hash: row.hash, counts: JSON.parse(row.counts) as Record<string, number> };
}

export const userSelect = (dialect: Dialect): string =>
  `SELECT "username", "full_name", "email", "disabled", "password_hash", "created_at" FROM "users" WHERE "username" = ${dialect.placeholder(1)}`;

export interface UserRow {
  readonly username: string;
  readonly full_name: string | null;
  readonly email: string | null;
  /** 0/1 on SQLite, a boolean on PostgreSQL. */
  readonly disabled: number | boolean;
  readonly password_hash: string;
  readonly created_at: string;
}

export function toUser(row: UserRow | undefined): User | undefined {
  if (!row) return undefined;
  return {
    username: row.username,
    account: accountOf(row.username, row.created_at),
    createdAt: row.created_at,
    fullName: row.full_name,
    email: row.email,
    disabled: row.disabled === true || row.disabled === 1,
    passwordHash: row.password_hash,
  };
}

// ---------------------------------------------------------------------------------------------
// A dataset's content

export const columnList = (rs: RecordSet): string => rs.fields.map((f) => quote(f.name)).join(', ');

/** Every row of a record set in identifier order. */
export const selectAll = (rs: RecordSet): string => `SELECT ${columnList(rs)} FROM ${quote(rs.table)} ORDER BY ${rs.key.map(quote).join(', ')}`;

/** How a record differs between two versions, as `selectChanges` codes it. */
export const CHANGE_KINDS = ['baja', 'alta', 'modificacion'] as const;

/**
 * The records of a record set that differ between two versions' tables (`desde`, `hasta`: quoted,
 * qualified names): each one's identifier and how it differs (its index in CHANGE_KINDS), in
 * identifier order. Records with the same identifier are compared field by field as stored, so the
 * answer is the database's own comparison, without reading either table into the process.
 */
export function selectChanges(rs: RecordSet, desde: string, hasta: string): string {
  const keys = rs.key.map(quote);
  const same = keys.map((k) => `d.${k} = h.${k}`).join(' AND ');
  const others = rs.fields.filter((f) => !rs.key.includes(f.name)).map((f) => `d.${quote(f.name)} IS DISTINCT FROM h.${quote(f.name)}`);
  const differs = others.length === 0 ? 'FALSE' : others.join(' OR ');
  const first = keys[0]!;
  return (
    `SELECT ${keys.join(', ')}, "cambio" FROM (` +
    `SELECT ${keys.map((k) => `d.${k}`).join(', ')}, CASE WHEN h.${first} IS NULL THEN 0 ELSE 2 END AS "cambio" ` +
    `FROM ${desde} AS d LEFT JOIN ${hasta} AS h ON ${same} WHERE h.${first} IS NULL OR ${differs} ` +
    `UNION ALL SELECT ${keys.map((k) => `h.${k}`).join(', ')}, 1 FROM ${hasta} AS h WHERE NOT EXISTS (SELECT 1 FROM ${desde} AS d WHERE ${same})` +
    `) AS "cambios" ORDER BY ${keys.join(', ')}`
  );
}

/**
 * The hash of the content only: every record set's rows in identifier order, as stored, so the same
 * data has the same hash on every store however it was loaded (from files, kept from the previous
 * dataset, in any row order).
 */
const HASH_CHUNK = 1 << 16;

export async function contentHash(
  rowsOf: (rs: RecordSet) => AsyncIterable<Values> | Iterable<Values>,
  rates?: AsyncIterable<Values> | Iterable<Values>,
  reglas?: Iterable<Values>,
): Promise<string> {
  const hash = createHash('sha256');
  // Lines are hashed in chunks of many (the same bytes, so the same hash), and rows read without a
  // promise each where the store gives them synchronously: the hash is on every load's path.
  let chunk = '';
  // The exchange-rate series is part of a version too: a load that changes only the rates changes
  // the hash, so that cached answers (kept per hash) start afresh.
  const parts: [string, () => AsyncIterable<Values> | Iterable<Values>][] = recordSets.map((rs) => [rs.path, () => rowsOf(rs)]);
  if (rates) parts.push([TIPOS_CAMBIO_TABLE, () => rates]);
  // So are its rules of origin.
  if (reglas) parts.push([REGLAS_ORIGEN_TABLE, () => reglas]);
  for (const [name, rowsOfPart] of parts) {
    const rows = rowsOfPart();
    const prefix = `${name}\t`;
    const add = (row: Values): void => {
      chunk += `${prefix}${JSON.stringify(row)}\n`;
      if (chunk.length >= HASH_CHUNK) {
        hash.update(chunk);
        chunk = '';
      }
    };
    if (Symbol.iterator in rows) for (const row of rows) add(row);
    else for await (const row of rows) add(row);
  }
  hash.update(chunk);
  return hash.digest('hex');
}

/** The records of every record set, as /health and the import report show them. */
export async function countsOf(count: (rs: RecordSet) => Promise<number> | number): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const rs of recordSets) counts[rs.path] = await count(rs);
  return counts;
}

/** The dataset info of a build that is complete: its content hash and counts, stamped now. */
export async function describeDataset(
  source: string,
  rowsOf: (rs: RecordSet) => AsyncIterable<Values> | Iterable<Values>,
  count: (rs: RecordSet) => Promise<number> | number,
  rates?: AsyncIterable<Values> | Iterable<Values>,
  reglas?: Iterable<Values>,
): Promise<DatasetInfo> {
  const counts = await countsOf(count);
  return { source, importedAt: new Date().toISOString(), hash: await contentHash(rowsOf, rates, reglas), counts };
}

/** A record set is kept from the main store's dataset only when that one has all its columns: never silently half. */
export function checkKeepable(rs: RecordSet, present: ReadonlySet<string>): void {
  if (present.size === 0) throw new Error(`cannot keep ${rs.path}: the current database has no table ${rs.table}`);
  const missing = rs.fields.filter((f) => !present.has(f.name)).map((f) => f.name);
  if (missing.length > 0) throw new Error(`cannot keep ${rs.path}: the current database has no column ${missing.join(', ')}`);
}

/**
 * Why a database cannot be served by this version of the service, or null when it can: a table or a
 * column of the registry is not in it (a file built before a field was added, say). `columns` gives
 * the columns of each table present. Reported as a 503 naming the cure, instead of failing queries.
 */
export function shapeProblem(columns: ReadonlyMap<string, ReadonlySet<string>>, withMeta = true): string | null {
  if (recordSets.every((rs) => !columns.has(rs.table))) return 'no dataset is loaded in this database: load one (tariff-lookup import)';
  const missing: string[] = [];
  if (withMeta) for (const table of META_TABLES) if (!columns.has(table)) missing.push(`table ${table}`);
  for (const rs of recordSets) {
    const present = columns.get(rs.table);
    if (!present) {
      missing.push(`table ${rs.table}`);
      continue;
    }
    for (const f of rs.fields) if (!present.has(f.name)) missing.push(`${rs.table}.${f.name}`);
  }
  if (missing.length === 0) return null;
  const shown = missing.length > 5 ? `${missing.slice(0, 5).join(', ')} and ${missing.length - 5} more` : missing.join(', ');
  return `the database was built for another version of the service (missing ${shown}): load the data again (tariff-lookup import)`;
}

/** The tables a shape check needs to see: the record sets' and the meta tables. */
export const expectedTables = (): string[] => [...META_TABLES, ...recordSets.map((rs) => rs.table)];

// ---------------------------------------------------------------------------------------------
// Versions

/**
 * The catalog as stored, or, for a database loaded before versions existed (no catalog rows, a
 * dataset info row), that dataset as the one version, in force since always.
 */
export function catalogOf(rows: readonly VersionRow[], legacy: DatasetInfo | null): VersionInfo[] {
  if (rows.length > 0) return rows.map(toVersionInfo).sort(byRecency);
  if (!legacy) return [];
  return [
    {
      version: `${SINCE_ALWAYS}.1`,
      vigenteDesde: SINCE_ALWAYS,
      fuente: legacy.source,
      importado: legacy.importedAt,
      hash: legacy.hash,
      conteos: legacy.counts,
      seq: 1,
    },
  ];
}

/** What a build needs to know of the versions already there: where its kept record sets come from, and what it adds. */
export interface VersionPlan {
  readonly catalog: readonly VersionInfo[];
  /** The newest import before this one: its record sets become an older version, moved to a file or schema of their own by this build's commit. */
  readonly main: VersionInfo | undefined;
  /** The version in force on the new one's date, whose record sets a build keeps. */
  readonly keepFrom: VersionInfo | undefined;
  readonly vigenteDesde: string;
}

export function planVersion(catalog: readonly VersionInfo[], vigenteDesde = SINCE_ALWAYS): VersionPlan {
  return { catalog, main: newestImport(catalog), keepFrom: inForce(catalog, vigenteDesde), vigenteDesde };
}

/** The catalog row of the version a build adds. */
export function newVersion(plan: VersionPlan, info: DatasetInfo): VersionInfo {
  return {
    version: nextVersionId(plan.catalog, plan.vigenteDesde),
    vigenteDesde: plan.vigenteDesde,
    fuente: info.source,
    importado: info.importedAt,
    hash: info.hash,
    conteos: info.counts,
    seq: Math.max(0, ...plan.catalog.map((v) => v.seq)) + 1,
  };
}

/** Why a version cannot be removed, or null when it can. */
export function removalRefused(catalog: readonly VersionInfo[], version: string, today: string): string | null {
  if (!catalog.some((v) => v.version === version)) return `no version ${version}`;
  if (inForce(catalog, today)?.version === version) return `${version} is the version in force today: it cannot be removed`;
  if (newestImport(catalog)?.version === version) return `${version} is the newest import: import another version before removing it`;
  return null;
}

// ---------------------------------------------------------------------------------------------
// Writing

/**
 * Builds a complete dataset from `fill` and commits it; on any failure nothing changes. Two rows with
 * one identifier are an error here: the callers (demo build, fixtures) generate their rows and must
 * not make any (an import reports them as refused rows instead).
 */
export async function writeDataset(build: DatasetBuild, source: string, fill: (writer: DatasetWriter) => void | Promise<void>): Promise<CommittedDataset> {
  try {
    await fill({
      insert: (rs, row) => {
        if (!build.insert(rs, row)) throw new Error(`${rs.path}: a second record with the identifier of ${JSON.stringify(row)}`);
        return true;
      },
      ready: () => build.ready(),
    });
  } catch (error) {
    await build.abandon();
    throw error;
  }
  return build.commit(source);
}

// ---------------------------------------------------------------------------------------------
// Users

/** What user administration needs of a database: run a statement, read rows. */
export interface Executor {
  readonly dialect: Dialect;
  /** The boolean as the store binds it (SQLite: 0/1). */
  readonly bool: (value: boolean) => boolean | number;
  /** Rows changed. */
  run(text: string, values: readonly unknown[]): Promise<number>;
  all<T>(text: string, values?: readonly unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

export class SqlUserAdmin implements UserAdmin {
  constructor(private readonly db: Executor) {}

  private p(i: number): string {
    return this.db.dialect.placeholder(i);
  }

  async list(): Promise<UserSummary[]> {
    const rows = await this.db.all<Omit<UserSummary, 'disabled'> & { disabled: number | boolean }>(
      'SELECT "username", "full_name", "email", "disabled", "created_at" FROM "users" ORDER BY "username"',
    );
    return rows.map((r) => ({ ...r, disabled: r.disabled === true || r.disabled === 1 }));
  }

  async add(username: string, passwordHash: string, fullName: string | null, email: string | null): Promise<boolean> {
    const p = (i: number): string => this.p(i);
    const text = `INSERT INTO "users" ("username", "full_name", "email", "disabled", "password_hash", "created_at") VALUES (${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}, ${p(6)}) ON CONFLICT DO NOTHING`;
    return (await this.db.run(text, [username, fullName, email, this.db.bool(false), passwordHash, new Date().toISOString()])) === 1;
  }

  async setDisabled(username: string, disabled: boolean): Promise<boolean> {
    return (await this.db.run(`UPDATE "users" SET "disabled" = ${this.p(1)} WHERE "username" = ${this.p(2)}`, [this.db.bool(disabled), username])) === 1;
  }

  async setPassword(username: string, passwordHash: string): Promise<boolean> {
    return (await this.db.run(`UPDATE "users" SET "password_hash" = ${this.p(1)} WHERE "username" = ${this.p(2)}`, [passwordHash, username])) === 1;
  }

  async remove(username: string): Promise<boolean> {
    return (await this.db.run(`DELETE FROM "users" WHERE "username" = ${this.p(1)}`, [username])) === 1;
  }

  close(): Promise<void> {
    return this.db.close();
  }
}

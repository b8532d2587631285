/**
 * The stores a suite runs on (storeKinds): SQLite always, PostgreSQL when it answers at
 * TEST_DATABASE_URL (and with CI=true it must); and PostgreSQL databases of a test's own, made and
 * dropped through an administrative connection.
 */
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import pg from 'pg';
import type { StoreKind } from '../src/config-values.js';
import { redactDatabaseUrl } from '../src/config-values.js';

/** An administrative connection to a PostgreSQL server, where test databases are created and dropped. */
export const TEST_DATABASE_URL = process.env['TEST_DATABASE_URL'] || 'postgres://postgres@127.0.0.1:5432/postgres';

export async function adminQuery<R extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 30_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.query<R>(sql, values)).rows;
  } finally {
    await client.end().catch(() => undefined);
  }
}

let postgresAnswer: Promise<string | null> | undefined;

/** Null when PostgreSQL answers at TEST_DATABASE_URL, else why not. */
function postgresProblem(): Promise<string | null> {
  postgresAnswer ??= adminQuery('SELECT 1').then(
    () => null,
    (error: unknown) => (error instanceof Error ? error.message || String((error as { code?: string }).code) : String(error)),
  );
  return postgresAnswer;
}

let skipReported = false;

/**
 * The stores a suite runs on. Without PostgreSQL the suite runs on SQLite and says, as a skipped
 * test, why not on PostgreSQL; with CI=true a missing PostgreSQL fails the file instead.
 */
export async function storeKinds(): Promise<StoreKind[]> {
  const problem = await postgresProblem();
  if (problem === null) return ['sqlite', 'postgres'];
  const where = redactDatabaseUrl(TEST_DATABASE_URL);
  if (process.env['CI'] === 'true') throw new Error(`CI=true needs PostgreSQL at ${where} (TEST_DATABASE_URL): ${problem}`);
  if (!skipReported) test('the same suite on PostgreSQL', { skip: `PostgreSQL is not reachable at ${where}: ${problem}` }, () => undefined);
  skipReported = true;
  return ['sqlite'];
}

/** The admin URL with another database name: the same server, user and password. */
export function postgresUrl(database: string): string {
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

const strategies = new Map<string, Promise<string>>();

/** Templates up to this size are copied through the WAL (WAL_LOG), larger ones by their files (FILE_COPY). */
const WAL_LOG_UP_TO_BYTES = 64 * 2 ** 20;

/**
 * How a copy of `template` is made, from PostgreSQL 15 (before it, by its files always): a small
 * template by writing its blocks to the WAL (WAL_LOG, the default, meant for small templates), a
 * large one by copying its files (FILE_COPY). FILE_COPY waits for two checkpoints, each writing out
 * whatever the whole server has changed: a copy and drop of the fixture's original (11 MB) took 3.3 s
 * with it and 0.7 s with WAL_LOG on one busy 2-core machine (means of three). For the demo's (about
 * 110 MB) the two are closer (2.9 s and 2.2 s there), and WAL_LOG costs the server 0.74 s of CPU
 * against 0.18 s and writes the whole copy to the WAL: over a whole steady run FILE_COPY wrote 185 MB
 * of WAL instead of 989 MB, and the machine was busy 688 CPU-s instead of 714.
 */
function copyStrategy(template: string): Promise<string> {
  let strategy = strategies.get(template);
  if (strategy === undefined) {
    strategy = adminQuery<{ v: string; size: string }>(
      "SELECT current_setting('server_version_num') AS v, pg_database_size(datname) AS size FROM pg_database WHERE datname = $1",
      [template],
    ).then(([row]) =>
      row === undefined || Number(row.v) < 150000 ? '' : Number(row.size) <= WAL_LOG_UP_TO_BYTES ? ' STRATEGY WAL_LOG' : ' STRATEGY FILE_COPY',
    );
    strategies.set(template, strategy);
    // A failure is not kept: the next copy asks again, as it would try a failed CREATE DATABASE again.
    strategy.catch(() => strategies.delete(template));
  }
  return strategy;
}

/**
 * An empty PostgreSQL database of its own (or a copy of `template`). Its default collation is a
 * linguistic one, as production databases usually have (es_MX, en_US): the store must answer as
 * SQLite does whatever the collation. A copy has its template's collation.
 */
export async function createPostgresDatabase(template?: string): Promise<{ name: string; url: string; drop: () => Promise<void> }> {
  const name = `tariff_test_${randomBytes(6).toString('hex')}`;
  if (template !== undefined) await adminQuery(`CREATE DATABASE "${name}" TEMPLATE "${template}"${await copyStrategy(template)}`);
  else {
    try {
      await adminQuery(`CREATE DATABASE "${name}" TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER icu ICU_LOCALE 'es-MX' LOCALE 'C.UTF-8'`);
    } catch {
      // A server without ICU or without that locale: its default collation then.
      await adminQuery(`CREATE DATABASE "${name}" TEMPLATE template0 ENCODING 'UTF8'`);
    }
  }
  // A commit does not wait for its WAL to reach the disk: what a test sees is the same (a committed
  // row is seen by every session at once, and a killed service loses nothing committed; only a crash
  // of the server itself would), but each commit waited 1.6 ms for the flush on an idle disk (300
  // one-row commits: 0.56 s, 0.08 s without), longer while others write.
  await adminQuery(`ALTER DATABASE "${name}" SET synchronous_commit = off`);
  return { name, url: postgresUrl(name), drop: async () => void (await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)) };
}

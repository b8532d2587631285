/**
 * Test helpers: a real server on a free port over a real database, called with fetch. Suites that
 * touch the store run once per store kind (storeKinds): SQLite always, PostgreSQL when it answers at
 * TEST_DATABASE_URL (and with CI=true it must), each over a database of its own made for the file.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { hashPassword } from '../src/auth/passwords.js';
import type { Config, StoreKind } from '../src/config.js';
import { demoSourcesDir, loadConfig, redactDatabaseUrl } from '../src/config.js';
import { demoRecords } from '../src/data/demo/index.js';
import { recordToRow } from '../src/data/load.js';
import { recordSets } from '../src/record-sets/index.js';
import { withUserAdmin } from '../src/store/open.js';
import { writePostgresDatabase } from '../src/store/postgres.js';
import type { DatasetWriter } from '../src/store/sqlite.js';
import { writeSqliteDatabase } from '../src/store/sqlite.js';
import { fillFixture } from './fixtures.js';

export const TEST_SECRET = 'test-secret-that-is-long-enough-0123456789';
export const TEST_USER = 'tester';
export const TEST_PASSWORD = 'correct horse battery staple';

/** An administrative connection to a PostgreSQL server, where test databases are created and dropped. */
export const TEST_DATABASE_URL = process.env['TEST_DATABASE_URL'] || 'postgres://postgres@127.0.0.1:5432/postgres';

export interface Running {
  readonly app: FastifyInstance;
  readonly base: string;
  readonly config: Config;
  /** The bearer token of the test user. */
  readonly token: string;
  /** A request with no Authorization header unless one is given. */
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  /** A request as the test user, parsed as JSON. */
  json<T = unknown>(path: string, headers?: Record<string, string>): Promise<{ status: number; body: T; response: Response }>;
  close(): Promise<void>;
}

export function tempDir(prefix = 'tariff-test-'): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 3000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query(sql);
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

export interface TestDatabase {
  readonly kind: StoreKind;
  /** The DATABASE_URL that names it. */
  readonly url: string;
  drop(): Promise<void>;
}

/** The admin URL with another database name: the same server, user and password. */
export function postgresUrl(database: string): string {
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

/**
 * An empty PostgreSQL database of its own. Its default collation is a linguistic one, as production
 * databases usually have (es_MX, en_US): the store must answer as SQLite does whatever the collation.
 */
export async function createPostgresDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `tariff_test_${randomBytes(6).toString('hex')}`;
  try {
    await adminQuery(`CREATE DATABASE "${name}" TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER icu ICU_LOCALE 'es-MX' LOCALE 'C.UTF-8'`);
  } catch {
    // A server without ICU or without that locale: its default collation then.
    await adminQuery(`CREATE DATABASE "${name}" TEMPLATE template0 ENCODING 'UTF8'`);
  }
  return { url: postgresUrl(name), drop: () => adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}

/** A database of the given kind holding the fixture (or what `fill` writes), with `source` 'test fixture'. */
export async function createTestDatabase(kind: StoreKind, fill: (writer: DatasetWriter) => void = fillFixture): Promise<TestDatabase> {
  if (kind === 'sqlite') {
    const tmp = tempDir();
    const path = join(tmp.dir, 'fixture.sqlite');
    writeSqliteDatabase(path, 'test fixture', fill);
    return { kind, url: `sqlite:${path}`, drop: () => Promise.resolve(tmp.remove()) };
  }
  const db = await createPostgresDatabase();
  try {
    await writePostgresDatabase(db.url, 'test fixture', fill);
  } catch (error) {
    await db.drop();
    throw error;
  }
  return { kind, url: db.url, drop: db.drop };
}

/**
 * Inside a describe: a database of `kind` holding the fixture and a server over it, made before the
 * suite's tests and removed after them; `use` receives both once they are ready.
 */
export function serveFixture(
  kind: StoreKind,
  env: Record<string, string>,
  use: (server: Running, db: TestDatabase) => void,
  fill: (writer: DatasetWriter) => void = fillFixture,
): void {
  let db: TestDatabase | undefined;
  let server: Running | undefined;
  before(async () => {
    db = await createTestDatabase(kind, fill);
    server = await startServer({ DATABASE_URL: db.url, ...env });
    use(server, db);
  });
  after(async () => {
    await server?.close();
    await db?.drop();
  });
}

export async function addUser(config: Config, username: string, password: string): Promise<void> {
  const hash = await hashPassword(password);
  await withUserAdmin(config, (admin) => admin.add(username, hash, null, null));
}

export async function login(base: string, username: string, password: string): Promise<Response> {
  return fetch(`${base}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
}

/** Starts the service over the database the environment names, with a test user logged in. */
export async function startServer(env: Record<string, string>, options: { user?: boolean } = {}): Promise<Running> {
  const config = loadConfig({ LOG_LEVEL: 'silent', JWT_SECRET: TEST_SECRET, ...env });
  if (options.user !== false) await addUser(config, TEST_USER, TEST_PASSWORD);
  const app = await buildApp(config);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  const base = `http://127.0.0.1:${address.port}`;
  const get = (path: string, headers: Record<string, string> = {}): Promise<Response> => fetch(base + path, { headers });
  const answer = await login(base, TEST_USER, TEST_PASSWORD);
  const token = answer.ok ? ((await answer.json()) as { access_token: string }).access_token : '';
  return {
    app,
    base,
    config,
    token,
    get,
    json: async <T>(path: string, headers: Record<string, string> = {}) => {
      const response = await get(path, { authorization: `Bearer ${token}`, ...headers });
      return { status: response.status, body: (await response.json()) as T, response };
    },
    close: () => app.close(),
  };
}

/** Fills a database with the whole demo dataset, real data included, as the embedded default serves it. */
export function fillDemo(writer: DatasetWriter): void {
  const byPath = new Map(recordSets.map((rs) => [rs.path, rs]));
  for (const { recordSet, record } of demoRecords(demoSourcesDir)) {
    const rs = byPath.get(recordSet)!;
    writer.insert(rs, recordToRow(rs, record));
  }
}

/** What a finished command printed and how it ended. */
export interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function outcomeOf(child: ChildProcessWithoutNullStreams): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

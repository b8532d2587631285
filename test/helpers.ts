/**
 * Test helpers: a real server on a free port over a real database, called with fetch. Suites that
 * touch the store run once per store kind (storeKinds): SQLite always, PostgreSQL when it answers at
 * TEST_DATABASE_URL (and with CI=true it must), each over a database of its own made for the file.
 *
 * A test cleans up by itself: `serve(t, …)`, `database(t, …)` and `temporary(t)` undo what they made
 * when the test ends (`defer`), last made first undone, whether it passed or not. Anything that
 * takes time is awaited with `waitFor`, never with a fixed sleep.
 */
import assert from 'node:assert/strict';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Readable, Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import type { TestContext } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import type { AppOptions } from '../src/app.js';
import { runCli } from '../src/cli/run.js';
import { hashPassword } from '../src/auth/passwords.js';
import type { Config } from '../src/config.js';
import type { StoreKind } from '../src/config-values.js';
import { loadConfig } from '../src/config.js';
import { demoSourcesDir, projectRoot, redactDatabaseUrl } from '../src/config-values.js';
import { demoRecords } from '../src/data/demo/index.js';
import { buildDemoDatabase } from '../src/data/startup.js';
import { recordToRow } from '../src/data/record-row.js';
import { recordSets } from '../src/record-sets/index.js';
import { withUserAdmin } from '../src/store/drivers.js';
import { writeDatabase } from '../src/data/write.js';
import type { DatasetInfo, DatasetWriter } from '../src/store/store.js';
import { buildDataFiles, buildModules, builtByOneProcess } from './build-inputs.js';
import { fillFixture } from './fixtures.js';

export const TEST_SECRET = 'test-secret-that-is-long-enough-0123456789';
export const TEST_USER = 'tester';
export const TEST_PASSWORD = 'correct horse battery staple';

/** An administrative connection to a PostgreSQL server, where test databases are created and dropped. */
export const TEST_DATABASE_URL = process.env['TEST_DATABASE_URL'] || 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * What every server a test starts runs with unless the test says otherwise: no log, a known secret,
 * no load shedding and no rate limit, and PostgreSQL time limits far above any query's time: each of
 * these answers 503 or 429 by how busy the machine is or how many requests a test makes, not by what
 * the test is about. Their own tests set them (robustness.test.ts, postgres.test.ts).
 */
export const TEST_ENV: Readonly<Record<string, string>> = {
  LOG_LEVEL: 'silent',
  JWT_SECRET: TEST_SECRET,
  MAX_EVENT_LOOP_DELAY_MS: '0',
  RATE_LIMIT_MAX: '0',
  PG_STATEMENT_TIMEOUT_MS: '120000',
  PG_CONNECT_TIMEOUT_MS: '120000',
};

/** The configuration of a test's server: TEST_ENV with the test's own variables over it. */
export const testConfig = (env: Record<string, string> = {}): Config => loadConfig({ ...TEST_ENV, ...env });

const cleanups = new WeakMap<TestContext, (() => unknown)[]>();

/**
 * Runs `undo` when the test ends, passed or failed: the test's undos run last registered first (a
 * server closes before its database is dropped), each even if an earlier one failed.
 */
export function defer(t: TestContext, undo: () => unknown): void {
  let stack = cleanups.get(t);
  if (stack === undefined) {
    const undos: (() => unknown)[] = [];
    stack = undos;
    cleanups.set(t, undos);
    t.after(async () => {
      const errors: unknown[] = [];
      for (const step of undos.reverse())
        await Promise.resolve()
          .then(step)
          .catch((error: unknown) => errors.push(error));
      if (errors.length > 0) throw errors.length === 1 ? errors[0] : new AggregateError(errors, 'cleanup failed');
    });
  }
  stack.push(undo);
}

/**
 * Polls `condition` until it holds, and fails naming `what` when it has not held by the deadline.
 * The deadline is generous (a busy machine is slow, not wrong); a test never sleeps a fixed time
 * and then asserts.
 */
export async function waitFor(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** What `promise` gives if it settles within `timeoutMs`, else `late`: a bound on a wait that must end, not a speed check. */
export async function within<T, L>(promise: Promise<T>, timeoutMs: number, late: L): Promise<T | L> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<L>((resolve) => (timer = setTimeout(() => resolve(late), timeoutMs)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export interface Running {
  readonly app: FastifyInstance;
  readonly base: string;
  readonly config: Config;
  /** The bearer token of the test user. */
  readonly token: string;
  /** Requests as the test user. */
  readonly authed: Client;
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

async function adminQuery<R extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, values: unknown[] = []): Promise<R[]> {
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

let strategy: Promise<string> | undefined;

/**
 * How a copy is made: from PostgreSQL 15, by copying the template's files (FILE_COPY) rather than by
 * writing each of its blocks to the WAL (WAL_LOG, the default since 15, meant for small templates).
 * A copy of the demo's original (about 110 MB) took 0.74 s of the server's CPU and 1.07 s with
 * WAL_LOG, 0.18 s and 0.29 s with FILE_COPY. Over a whole steady run on one 2-core machine, FILE_COPY
 * wrote 185 MB of WAL instead of 989 MB, and the machine was busy 688 CPU-s instead of 714.
 */
function copyStrategy(): Promise<string> {
  if (strategy === undefined) {
    strategy = adminQuery<{ v: string }>("SELECT current_setting('server_version_num') AS v").then((rows) =>
      Number(rows[0]?.v) >= 150000 ? ' STRATEGY FILE_COPY' : '',
    );
    // A failure is not kept: the next copy asks again, as it would try a failed CREATE DATABASE again.
    strategy.catch(() => (strategy = undefined));
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
  if (template !== undefined) await adminQuery(`CREATE DATABASE "${name}" TEMPLATE "${template}"${await copyStrategy()}`);
  else {
    try {
      await adminQuery(`CREATE DATABASE "${name}" TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER icu ICU_LOCALE 'es-MX' LOCALE 'C.UTF-8'`);
    } catch {
      // A server without ICU or without that locale: its default collation then.
      await adminQuery(`CREATE DATABASE "${name}" TEMPLATE template0 ENCODING 'UTF8'`);
    }
  }
  return { name, url: postgresUrl(name), drop: async () => void (await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)) };
}

/** A folder of the test's own, removed when the test ends. */
export function temporary(t: TestContext, prefix?: string): string {
  const tmp = tempDir(prefix);
  defer(t, tmp.remove);
  return tmp.dir;
}

/** A database of the given kind holding the fixture (or what `fill` writes), dropped when the test ends. */
export async function database(t: TestContext, kind: StoreKind, fill?: (writer: DatasetWriter) => void): Promise<TestDatabase> {
  const db = await createTestDatabase(kind, fill);
  defer(t, () => db.drop());
  return db;
}

/** startServer, closed when the test ends. */
export async function serve(t: TestContext, env: Record<string, string>, options: ServerOptions = {}): Promise<Running> {
  const server = await startServer(env, options);
  defer(t, () => server.close());
  return server;
}

/**
 * A database of the given kind holding the fixture (or what `fill` writes), with `source` 'test
 * fixture'. The fixture and the demo dataset are built once per run and copied (builtOnce).
 */
export async function createTestDatabase(kind: StoreKind, fill: (writer: DatasetWriter) => void = fillFixture): Promise<TestDatabase> {
  const once = builtOnce.get(fill);
  if (kind === 'sqlite') {
    const tmp = tempDir();
    const path = join(tmp.dir, 'fixture.sqlite');
    try {
      if (once === undefined) await writeDatabase(`sqlite:${path}`, 'test fixture', fill);
      else copyFileSync(await sqliteOriginal(once, fill), path);
    } catch (error) {
      tmp.remove();
      throw error;
    }
    return { kind, url: `sqlite:${path}`, drop: () => Promise.resolve(tmp.remove()) };
  }
  if (once !== undefined) {
    const db = await copyOfPostgresOriginal(once, fill);
    return { kind, url: db.url, drop: db.drop };
  }
  const db = await createPostgresDatabase();
  try {
    await writeDatabase(db.url, 'test fixture', fill);
  } catch (error) {
    await db.drop();
    throw error;
  }
  return { kind, url: db.url, drop: db.drop };
}

// ---------------------------------------------------------------------------------------------
// Databases built once per run and copied

/**
 * The fills whose database is built once and copied for every test that asks for one (a SQLite file
 * copied in milliseconds, a PostgreSQL database made from a template), by the name of their original.
 * Tests that are about the build itself call writeDatabase or buildDemoDatabase instead.
 */
const builtOnce = new Map<(writer: DatasetWriter) => void, string>([
  [fillFixture, 'fixture'],
  [fillDemo, 'demo'],
]);

/**
 * Makes the database `fill` writes one more original, built once per run, kept between runs and copied
 * like the fixture's (createTestDatabase, database). `definedIn` is the module that defines `fill`
 * (its `import.meta.url`): its compiled text is part of the original's name, so that a change to the
 * fill gives a new original.
 */
export function keepOriginal(name: string, fill: (writer: DatasetWriter) => void, definedIn: string): void {
  builtOnce.set(fill, name);
  definers.set(name, fileURLToPath(definedIn));
}

/** The modules that define the fills kept by keepOriginal, by the name of their original. */
const definers = new Map<string, string>();

/** The key in the name of an original: originalsKey, with the text of the module that defines its fill when a test file does. */
function keyOf(name: string): string {
  const definer = definers.get(name);
  if (definer === undefined) return originalsKey();
  return createHash('sha256').update(originalsKey()).update(readFileSync(definer)).digest('hex').slice(0, 16);
}

/** Beside the compiled tests; kept between runs, each original named by what it is made from (originalsKey). */
const ORIGINALS = fileURLToPath(new URL('../.test-originals/', import.meta.url));
/** An original not made by this run (another key) is removed once it is this old: a run in progress may still copy it. */
const STALE_AFTER_MS = 60 * 60 * 1000;

let sourcesKey: string | undefined;

/**
 * A name for everything an original is made from: the compiled modules a build reaches (the demo
 * generator, the import validation, the schema and the store's writers: test/build-inputs.ts), the
 * data files they read and the compiled tests' fixtures by their content, the demo sources (22 MB,
 * read in every test process otherwise) by their name, size and time of change. Any change to one of them gives another name, so a stale original is never copied.
 */
function originalsKey(): string {
  if (sourcesKey !== undefined) return sourcesKey;
  const hash = createHash('sha256');
  for (const file of filesUnder(demoSourcesDir)) {
    const { size, mtimeMs } = statSync(file);
    hash.update(`${relative(demoSourcesDir, file)}\0${size}\0${mtimeMs}\0`);
  }
  const compiled = fileURLToPath(new URL('../', import.meta.url));
  const code = [...buildModules(join(compiled, 'src')), join(compiled, 'test', 'helpers.js'), join(compiled, 'test', 'fixtures.js')];
  for (const file of code) hash.update(`${relative(compiled, file)}\0`).update(readFileSync(file));
  for (const file of buildDataFiles(projectRoot)) hash.update(`${relative(projectRoot, file)}\0`).update(readFileSync(file));
  sourcesKey = hash.digest('hex').slice(0, 16);
  return sourcesKey;
}

function filesUnder(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[])
    .map((name) => join(dir, name))
    .filter((file) => statSync(file).isFile())
    .sort();
}

const sqliteOriginals = new Map<string, Promise<string>>();

/** The SQLite file `fill` writes, made once per run (by the first test file that needs it) under ORIGINALS. */
function sqliteOriginal(name: string, fill: (writer: DatasetWriter) => void): Promise<string> {
  let made = sqliteOriginals.get(name);
  if (made === undefined) {
    made = makeSqliteOriginal(name, fill);
    sqliteOriginals.set(name, made);
    made.catch(() => sqliteOriginals.delete(name));
  }
  return made;
}

async function makeSqliteOriginal(name: string, fill: (writer: DatasetWriter) => void): Promise<string> {
  const file = join(ORIGINALS, `${name}-${keyOf(name)}.sqlite`);
  if (existsSync(file)) return file;
  mkdirSync(ORIGINALS, { recursive: true });
  await builtByOneProcess(
    `${file}.lock`,
    () => (existsSync(file) ? file : undefined),
    async () => {
      // Written under a name of this process's own, then renamed: a file at `file` is always complete.
      const building = `${file}.${process.pid}`;
      try {
        await writeDatabase(`sqlite:${building}`, 'test fixture', fill);
        renameSync(building, file);
      } finally {
        rmSync(building, { force: true });
      }
      return file;
    },
  );
  for (const other of readdirSync(ORIGINALS)) {
    const path = join(ORIGINALS, other);
    if (!other.startsWith(`${name}-`) || other.endsWith('.lock') || path === file) continue;
    // Another test process may have renamed or removed it since the listing (one building the same original).
    const changed = statSync(path, { throwIfNoEntry: false })?.mtimeMs;
    if (changed !== undefined && Date.now() - changed > STALE_AFTER_MS) rmSync(path, { force: true });
  }
  return file;
}

/** A SQLite file at `path` holding the fixture, with `source` 'test fixture': a copy of the one built once per run. */
export async function writeFixtureDatabase(path: string): Promise<void> {
  copyFileSync(await sqliteOriginal('fixture', fillFixture), path);
}

let builtDemo: Promise<{ file: string; info: DatasetInfo }> | undefined;

/**
 * A copy at `path` (a file that does not exist yet) of the embedded demo database as the first start
 * builds it (buildDemoDatabase: both versions, the older in the folder beside it), built once per run;
 * gives what the build gave. The build's own tests (demo-versions.test.ts) build small versions of their own.
 */
export async function copyOfBuiltDemo(path: string): Promise<DatasetInfo> {
  builtDemo ??= makeBuiltDemo();
  builtDemo.catch(() => (builtDemo = undefined));
  const { file, info } = await builtDemo;
  copyFileSync(file, path);
  cpSync(`${file}.versions`, `${path}.versions`, { recursive: true });
  return info;
}

async function makeBuiltDemo(): Promise<{ file: string; info: DatasetInfo }> {
  const folder = join(ORIGINALS, `built-demo-${originalsKey()}`);
  const file = join(folder, 'demo.sqlite');
  const infoFile = join(folder, 'info.json');
  const made = (): { file: string; info: DatasetInfo } | undefined =>
    existsSync(infoFile) ? { file, info: JSON.parse(readFileSync(infoFile, 'utf8')) as DatasetInfo } : undefined;
  mkdirSync(ORIGINALS, { recursive: true });
  return builtByOneProcess(`${folder}.lock`, made, () => buildDemoOriginal(folder, file, infoFile));
}

async function buildDemoOriginal(folder: string, file: string, infoFile: string): Promise<{ file: string; info: DatasetInfo }> {
  // Built in a folder of this process's own, then renamed: a folder at `folder` is always complete.
  const building = `${folder}.${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(building, { recursive: true });
  try {
    const info = await buildDemoDatabase(join(building, 'demo.sqlite'));
    writeFileSync(join(building, 'info.json'), JSON.stringify(info));
    try {
      renameSync(building, folder);
    } catch (error) {
      if (!existsSync(infoFile)) throw error; // else another test file built it at the same time
    }
    return { file, info };
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
}

const postgresOriginals = new Map<string, Promise<string>>();

/**
 * A new PostgreSQL database holding what `fill` writes: a copy of a template database made once
 * (`tariff_original_<name>_<key>`, kept on the server between runs since its name says what it holds).
 */
async function copyOfPostgresOriginal(name: string, fill: (writer: DatasetWriter) => void): Promise<{ url: string; drop: () => Promise<void> }> {
  for (let attempt = 1; ; attempt++) {
    let template = postgresOriginals.get(name);
    if (template === undefined) {
      template = makePostgresOriginal(name, fill);
      postgresOriginals.set(name, template);
      template.catch(() => postgresOriginals.delete(name));
    }
    try {
      return await createPostgresDatabase(await template);
    } catch (error) {
      // Another run removed a template it found stale (STALE_AFTER_MS) after this one looked: made again.
      if ((error as { code?: string }).code !== '3D000' || attempt > 1) throw error;
      postgresOriginals.delete(name);
    }
  }
}

async function makePostgresOriginal(name: string, fill: (writer: DatasetWriter) => void): Promise<string> {
  const prefix = `tariff_original_${name}_`;
  const template = `${prefix}${keyOf(name)}`;
  const exists = async (): Promise<boolean> => (await adminQuery('SELECT 1 FROM pg_database WHERE datname = $1', [template])).length > 0;
  if (await exists()) return template;
  mkdirSync(ORIGINALS, { recursive: true });
  return builtByOneProcess(
    join(ORIGINALS, `${template}.lock`),
    async () => ((await exists()) ? template : undefined),
    () => buildPostgresOriginal(prefix, template, fill, exists),
  );
}

async function buildPostgresOriginal(prefix: string, template: string, fill: (writer: DatasetWriter) => void, exists: () => Promise<boolean>): Promise<string> {
  const db = await createPostgresDatabase();
  try {
    await writeDatabase(db.url, 'test fixture', fill);
    await adminQuery(`COMMENT ON DATABASE "${db.name}" IS '${new Date().toISOString()}'`);
    // The rename is what makes it visible, complete.
    await adminQuery(`ALTER DATABASE "${db.name}" RENAME TO "${template}"`);
  } catch (error) {
    await db.drop();
    if (await exists()) return template; // another test file made it at the same time
    throw error;
  }
  // A template takes no connections, so a copy never waits for one to end.
  await adminQuery(`ALTER DATABASE "${template}" WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`);
  await removeStaleTemplates(prefix, template);
  return template;
}

/** Templates of this fill made from other sources (their comment is when) are removed once STALE_AFTER_MS old. */
async function removeStaleTemplates(prefix: string, keep: string): Promise<void> {
  const templates = await adminQuery<{ datname: string; made: string | null }>(
    `SELECT d.datname, shobj_description(d.oid, 'pg_database') AS made FROM pg_database d WHERE starts_with(d.datname, $1) AND d.datname <> $2`,
    [prefix, keep],
  );
  for (const { datname, made } of templates) {
    if (made !== null && Date.now() - Date.parse(made) < STALE_AFTER_MS) continue;
    await adminQuery(`ALTER DATABASE "${datname}" WITH IS_TEMPLATE false`)
      .then(() => adminQuery(`DROP DATABASE IF EXISTS "${datname}"`))
      .catch(() => undefined);
  }
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

/** Users added by the tests, with a hash made once per run for each password (the service still verifies it at every login). */
export async function addUser(config: Config, username: string, password: string): Promise<void> {
  const hash = await passwordHash(password);
  await withUserAdmin(config, (admin) => admin.add(username, hash, null, null));
}

const hashes = new Map<string, Promise<string>>();

/**
 * A scrypt hash of `password`, made by the first test file of a run that needs it and kept under
 * ORIGINALS, named by a SHA-256 of the password (a test password, never a secret) and of the code
 * that hashes: a server start then costs no hashing, only the login's verification.
 */
function passwordHash(password: string): Promise<string> {
  let hash = hashes.get(password);
  if (hash === undefined) {
    hash = keptHash(password);
    hashes.set(password, hash);
  }
  return hash;
}

/**
 * The cost of the test users' hashes: scrypt at N = 2^10 verifies in a few milliseconds where the
 * service's own cost takes about half a second of CPU here, and the suite logs in some hundred times.
 * The parameters travel with each hash, so the service verifies these by the same code as any other;
 * hashes at its own cost are made by the CLI's tests (`users add`) and the demo user.
 */
const TEST_HASH_COST = { N: 2 ** 10, r: 8, p: 1 } as const;

async function keptHash(password: string): Promise<string> {
  const hasher = readFileSync(fileURLToPath(new URL('../src/auth/passwords.js', import.meta.url)));
  const file = join(
    ORIGINALS,
    `password-${createHash('sha256')
      .update(hasher)
      .update(`\0${JSON.stringify(TEST_HASH_COST)}\0${password}`)
      .digest('hex')
      .slice(0, 16)}.txt`,
  );
  if (existsSync(file)) return readFileSync(file, 'utf8');
  const hash = await hashPassword(password, TEST_HASH_COST);
  mkdirSync(ORIGINALS, { recursive: true });
  writeFileSync(`${file}.${process.pid}`, hash);
  renameSync(`${file}.${process.pid}`, file);
  return hash;
}

export async function login(base: string, username: string, password: string): Promise<Response> {
  return fetch(`${base}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
}

/** A bearer token for the user (the test user by default): the login must succeed. */
export async function tokenFor(base: string, username = TEST_USER, password = TEST_PASSWORD): Promise<string> {
  const response = await login(base, username, password);
  assert.equal(response.status, 200);
  return ((await response.json()) as { access_token: string }).access_token;
}

/** How a test's server starts: `app` are buildApp's options (a clock, a store, no batch worker…). */
export interface ServerOptions {
  /** The user added and logged in: the test user by default (true), another by name, or none (false). */
  readonly user?: boolean | string;
  readonly app?: AppOptions;
}

/**
 * Starts the service over the database the environment names (over TEST_ENV), on a free port, with
 * its user (the test user unless `user` says otherwise; password TEST_PASSWORD) added and logged in.
 */
export async function startServer(env: Record<string, string>, options: ServerOptions = {}): Promise<Running> {
  const config = testConfig(env);
  const username = typeof options.user === 'string' ? options.user : TEST_USER;
  if (options.user !== false) await addUser(config, username, TEST_PASSWORD);
  const app = await buildApp(config, options.app);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  const base = `http://127.0.0.1:${address.port}`;
  const get = (path: string, headers: Record<string, string> = {}): Promise<Response> => fetch(base + path, { headers });
  const answer = await login(base, username, TEST_PASSWORD);
  const token = answer.ok ? ((await answer.json()) as { access_token: string }).access_token : '';
  return {
    app,
    base,
    config,
    token,
    authed: clientWith(base, token),
    get,
    json: async <T>(path: string, headers: Record<string, string> = {}) => {
      const response = await get(path, { authorization: `Bearer ${token}`, ...headers });
      return { status: response.status, body: (await response.json()) as T, response };
    },
    close: () => app.close(),
  };
}

/** The one authenticated client of the tests: requests to `base` carrying a user's bearer token. */
export interface Client {
  readonly base: string;
  readonly token: string;
  /** fetch(base + path) with the user's Authorization header over `init`'s headers. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /**
   * A request as the user: a string or bytes body is sent as it is, typed `type`; any other body
   * as JSON. The answer is parsed as JSON (null when empty).
   */
  call<T = Record<string, unknown>>(method: string, path: string, body?: unknown, type?: string): Promise<{ status: number; body: T; response: Response }>;
}

/** A client sending `token`. */
export function clientWith(base: string, token: string): Client {
  const authed = (path: string, init: RequestInit = {}): Promise<Response> =>
    fetch(base + path, { ...init, headers: { ...(init.headers as Record<string, string> | undefined), authorization: `Bearer ${token}` } });
  return {
    base,
    token,
    fetch: authed,
    call: async <T>(method: string, path: string, body?: unknown, type = 'application/json') => {
      const raw = typeof body === 'string' || Buffer.isBuffer(body);
      const response = await authed(path, {
        method,
        ...(body === undefined ? {} : { headers: { 'content-type': type } }),
        body: body === undefined ? undefined : typeof body === 'string' ? body : raw ? new Uint8Array(body as Buffer) : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: (text === '' ? null : JSON.parse(text)) as T, response };
    },
  };
}

/** A client of the user (the test user by default), logged in: the login must succeed. */
export async function clientFor(base: string, username = TEST_USER, password = TEST_PASSWORD): Promise<Client> {
  return clientWith(base, await tokenFor(base, username, password));
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

/**
 * `tariff-lookup ...args` run in this process (runCli) with streams of its own, `input` on its standard
 * input, none of them a terminal: for the tests of what a command does, where the process itself (its
 * start, its exit status, a signal) is not the subject. Loading the service for each command in a
 * process of its own cost about a second of CPU a command.
 */
export async function cliInProcess(args: readonly string[], env: Record<string, string | undefined>, input = ''): Promise<Outcome> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    env: { ...process.env, ...env },
    stdin: Readable.from([Buffer.from(input)]),
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, stdout, stderr };
}

/** What the command `child` printed and how it ended. */
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

/** A stream for an app's log (buildApp's `log.stream`) that keeps every line written: as text, or parsed. */
export function captureLog(): { stream: Writable; text: () => string; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  const text = () => chunks.join('');
  const lines = () =>
    text()
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { stream, text, lines };
}

/** The app on a port of its own with the test user, every line of its log kept; closed when the test ends. */
export async function serveWithLog(
  t: TestContext,
  env: Record<string, string>,
): Promise<{ app: FastifyInstance; base: string; log: ReturnType<typeof captureLog> }> {
  const config = testConfig(env);
  await addUser(config, TEST_USER, TEST_PASSWORD);
  const log = captureLog();
  const app = await buildApp(config, { log: { stream: log.stream } });
  defer(t, () => app.close());
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, log, base: `http://127.0.0.1:${(app.server.address() as { port: number }).port}` };
}

/** A body the service answered shows nothing of its insides: no stack frame, SQLite error code or module path. */
export function assertNoInternals(body: string, path: string): void {
  assert.ok(!/\(?\/[^ ]+\.js:\d+|SQLITE_[A-Z]|node_modules/.test(body), `no internals in the body of ${path}: ${body.slice(0, 200)}`);
}

/**
 * A test's database of either store holding a dataset (the fixture by default, the demo, or what a
 * fill writes), made for the test and dropped after it. The datasets tests share are built once per
 * run and copied (originals, kept between runs under names that say what they are made from).
 */
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestContext } from 'node:test';
import type { StoreKind } from '../src/config-values.js';
import { demoSourcesDir, projectRoot } from '../src/config-values.js';
import { demoRecords } from '../src/data/demo/index.js';
import { buildDemoDatabase } from '../src/data/startup.js';
import { recordToRow } from '../src/data/record-row.js';
import { recordSets } from '../src/record-sets/index.js';
import { writeDatabase } from '../src/data/write.js';
import type { DatasetInfo, DatasetWriter } from '../src/store/store.js';
import { buildDataFiles, buildModules, builtByOneProcess } from './build-inputs.js';
import { fillFixture } from './fixtures.js';
import { defer, tempDir } from './lifetime.js';
import { adminQuery, createPostgresDatabase } from './stores.js';

export interface TestDatabase {
  readonly kind: StoreKind;
  /** The DATABASE_URL that names it. */
  readonly url: string;
  drop(): Promise<void>;
}

/** A database of the given kind holding the fixture (or what `fill` writes), dropped when the test ends. */
export async function database(t: TestContext, kind: StoreKind, fill?: (writer: DatasetWriter) => void): Promise<TestDatabase> {
  const db = await createTestDatabase(kind, fill);
  defer(t, () => db.drop());
  return db;
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

/**
 * A text a test file computes from what the originals are made from (a hash of the demo's records), kept
 * between runs under ORIGINALS, named by originalsKey and the test file's own compiled text: undefined
 * until a run keeps it. Other kept texts of the same name, from other sources or code, are removed.
 */
export function keptText(name: string, definedIn: string): { read(): string | undefined; keep(text: string): void } {
  const key = createHash('sha256')
    .update(originalsKey())
    .update(readFileSync(fileURLToPath(definedIn)))
    .digest('hex')
    .slice(0, 16);
  const file = join(ORIGINALS, `${name}-${key}.txt`);
  return {
    read: () => (existsSync(file) ? readFileSync(file, 'utf8') : undefined),
    keep: (text) => {
      mkdirSync(ORIGINALS, { recursive: true });
      // Written under a name of this process's own, then renamed: a file at `file` is always complete.
      writeFileSync(`${file}.${process.pid}`, text);
      renameSync(`${file}.${process.pid}`, file);
      for (const other of readdirSync(ORIGINALS))
        if (other.startsWith(`${name}-`) && other.endsWith('.txt') && join(ORIGINALS, other) !== file) rmSync(join(ORIGINALS, other), { force: true });
    },
  };
}

/** Beside the compiled tests; kept between runs, each original named by what it is made from (originalsKey). */
export const ORIGINALS = fileURLToPath(new URL('../.test-originals/', import.meta.url));
/** An original not made by this run (another key) is removed once it is this old: a run in progress may still copy it. */
const STALE_AFTER_MS = 60 * 60 * 1000;

let sourcesKey: string | undefined;

/**
 * A name for everything an original is made from: the compiled modules a build reaches (the demo
 * generator, the import validation, the schema and the store's writers: test/build-inputs.ts), the
 * data files they read and the test modules that build them (databases, stores, fixtures) by their
 * content, the demo sources (22 MB,
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
  const code = [...buildModules(join(compiled, 'src')), ...['databases.js', 'stores.js', 'fixtures.js'].map((file) => join(compiled, 'test', file))];
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

/** Fills a database with the whole demo dataset, real data included, as the embedded default serves it. */
export function fillDemo(writer: DatasetWriter): void {
  const byPath = new Map(recordSets.map((rs) => [rs.path, rs]));
  for (const { recordSet, record } of demoRecords(demoSourcesDir)) {
    const rs = byPath.get(recordSet)!;
    writer.insert(rs, recordToRow(rs, record));
  }
}

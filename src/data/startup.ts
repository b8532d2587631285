/**
 * What has to exist before the service starts: the SQLite file to serve (built from the shipped demo
 * sources on first start) and, in the embedded demo only, a signing secret and the demo user.
 */
import { randomBytes } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { hashPassword } from '../auth/passwords.js';
import type { Config } from '../config.js';
import { demoSourcesDir, isEmbeddedDemo, sqlitePath, storeKind } from '../config-values.js';
import type { RecordSet } from '../record-sets/define.js';
import { recordSets } from '../record-sets/index.js';
import { withUserAdmin } from '../store/drivers.js';
import { writeDatabase } from './write.js';
import { adoptOlderVersions, isRunning } from '../store/sqlite-build.js';
import type { CommittedDataset, DatasetInfo, DatasetWriter } from '../store/store.js';
import { DEMO_VERSION_COUNT, LIGIE_2022_FROM } from './demo/index.js';
import { TIGIE_2012_FROM } from './demo/tigie2012.js';
import type { DemoRecord, DemoVersion } from './demo/index.js';
import { recordToRow } from './record-row.js';

const byPath = new Map(recordSets.map((rs) => [rs.path, rs]));

/**
 * Builds the demo dataset into a SQLite file that does not exist yet, all of it or nothing, in a
 * folder of its own beside the path: its versions (demoVersions) are written side by side, each in a
 * worker thread into a file of its own through the usual load, then put together as one database
 * with its older versions in files of their own; at the end the older versions' folder is moved into place first,
 * then the database file, whose rename is the one switch. A build that dies before it leaves no file
 * at the path, so the next start builds again. `versions` given (tests) are loaded one after the
 * other instead. Gives the current version's dataset.
 */
export async function buildDemoDatabase(path: string, versions?: readonly DemoVersion[]): Promise<DatasetInfo> {
  if (existsSync(path)) throw new Error(`${path} exists: the demo dataset is only built where there is no database`);
  const versionsFolder = `${path}.versions`;
  checkVersionsFolder(versionsFolder);
  removeStaleDemoBuilds(path);
  const folder = `${path}.demo-${process.pid}`;
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder);
  const building = join(folder, basename(path));
  try {
    const info = versions === undefined ? await buildSideBySide(building, folder) : await buildInTurn(building, versions);
    checkVersionsFolder(versionsFolder);
    rmSync(versionsFolder, { recursive: true, force: true });
    renameSync(`${building}.versions`, versionsFolder);
    renameSync(building, path);
    return info;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** Every version loaded one after the other into `building`, each keeping what it keeps from the one before. */
async function buildInTurn(building: string, versions: readonly DemoVersion[]): Promise<DatasetInfo> {
  let info: DatasetInfo | null = null;
  for (const version of versions) {
    const skip = new Set(version.keep);
    info = await writeDatabase(`sqlite:${building}`, version.fuente, (writer) => insertAll(writer, version.records(), skip), {
      vigenteDesde: version.vigenteDesde,
      keep: version.keep.map(recordSetOf),
    });
  }
  if (!info) throw new Error('the demo dataset has no version');
  return info;
}

/** One version alone in a new file: the usual load, every record set inserted (there is no version before it to keep from). */
export function writeDemoVersion(file: string, version: DemoVersion): Promise<CommittedDataset> {
  return writeDatabase(`sqlite:${file}`, version.fuente, (writer) => insertAll(writer, version.records(true)), { vigenteDesde: version.vigenteDesde });
}

/**
 * Each version written at once in a worker of its own (two cores build the two versions in little
 * more than the time of one), the newest into `building`, the older ones beside it; then the older
 * ones become the newest file's older versions (adoptOlderVersions), with the same identifiers,
 * catalog and contents as loads one after the other would give.
 */
async function buildSideBySide(building: string, folder: string): Promise<DatasetInfo> {
  const files = Array.from({ length: DEMO_VERSION_COUNT }, (_, i) => (i === DEMO_VERSION_COUNT - 1 ? building : join(folder, `version-${i}.sqlite`)));
  const built = await Promise.all(files.map((file, index) => inWorker(index, file)));
  adoptOlderVersions(
    building,
    built.slice(0, -1).map((info, i) => ({ file: files[i]!, version: info.version })),
  );
  return built[built.length - 1]!;
}

function inWorker(index: number, file: string): Promise<CommittedDataset> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./demo/build-worker.js', import.meta.url), { workerData: { index, file, sourcesDir: demoSourcesDir } });
    let answer: CommittedDataset | null = null;
    worker.once('message', (info: CommittedDataset) => (answer = info));
    worker.once('error', reject);
    worker.once('exit', (code) => (answer ? resolve(answer) : reject(new Error(`the demo build of version ${index} stopped (exit ${code})`))));
  });
}

function insertAll(writer: DatasetWriter, records: Iterable<DemoRecord>, skip: ReadonlySet<string> = new Set()): void {
  for (const { recordSet, record } of records) {
    if (skip.has(recordSet)) continue;
    const rs = recordSetOf(recordSet);
    writer.insert(rs, recordToRow(rs, record));
  }
}

function recordSetOf(path: string): RecordSet {
  const rs = byPath.get(path);
  if (!rs) throw new Error(`demo dataset names an unknown record set: ${path}`);
  return rs;
}

/**
 * A versions folder with no database beside it is what a build that died between its two renames
 * left: it holds only version files, which no catalog names any more, and the build replaces it.
 * Anything else in it is not the build's to remove.
 */
function checkVersionsFolder(folder: string): void {
  if (!existsSync(folder)) return;
  const strangers = readdirSync(folder).filter((name) => !/^\d{4}-\d{2}-\d{2}\.\d+\.sqlite$/.test(name));
  if (strangers.length > 0) throw new Error(`${folder} holds files the demo build does not know (${strangers.join(', ')}): move them away first`);
}

/** Build folders of demo builds whose process is gone only take space. */
function removeStaleDemoBuilds(path: string): void {
  const prefix = `${basename(path)}.demo-`;
  for (const name of readdirSync(dirname(path))) {
    const pid = name.startsWith(prefix) ? Number(name.slice(prefix.length)) : Number.NaN;
    if (!Number.isInteger(pid) || pid === process.pid || isRunning(pid)) continue;
    rmSync(join(dirname(path), name), { recursive: true, force: true });
  }
}


/** The embedded demo's signing secret: made once and kept beside its database, so tokens survive a restart. */
function demoSecret(databasePath: string): string {
  const file = join(dirname(databasePath), '.jwt-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const secret = randomBytes(32).toString('hex');
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

export interface Prepared {
  readonly config: Config;
  /** What was done, for the log. */
  readonly notes: string[];
}

export async function prepareStartup(config: Config): Promise<Prepared> {
  const notes: string[] = [];
  // A PostgreSQL database is loaded and given users by its operator; nothing is built at start.
  if (storeKind(config) === 'postgres') return { config, notes };
  const path = sqlitePath(config);
  // The demo user's password hash (scrypt, on libuv's threads) is made while the demo builds, not after.
  const demoHash = isEmbeddedDemo(config) ? hashPassword('demo') : null;
  if (!existsSync(path)) {
    const started = Date.now();
    const info = await buildDemoDatabase(path);
    const rows = Object.values(info.counts).reduce((a, b) => a + b, 0);
    notes.push(
      `created ${isEmbeddedDemo(config) ? 'the embedded demo database' : path} with the demo dataset in ${Date.now() - started} ms: ` +
        `versions ${TIGIE_2012_FROM} (TIGIE 2012) and ${LIGIE_2022_FROM} (LIGIE 2022, current: ${rows} records)`,
    );
  }
  if (demoHash === null) return { config, notes };

  const hash = await demoHash;
  await withUserAdmin(config, async (admin) => {
    if ((await admin.list()).length > 0) return;
    await admin.add('demo', hash, 'Demo user', null);
    notes.push('created the user "demo" with password "demo": this is for local trial only; never expose this service as it is');
  });
  const secret = config.JWT_SECRET === '' ? demoSecret(path) : config.JWT_SECRET;
  return { config: { ...config, JWT_SECRET: secret }, notes };
}

/**
 * What has to exist before the service starts: the SQLite file to serve (built from the shipped demo
 * sources on first start) and, in the embedded demo only, a signing secret and the demo user.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { hashPassword } from '../auth/passwords.js';
import type { Config } from '../config.js';
import { demoSourcesDir, isEmbeddedDemo, sqlitePath, storeKind } from '../config.js';
import type { RecordSet } from '../record-sets/define.js';
import { recordSets } from '../record-sets/index.js';
import { withUserAdmin, writeDatabase } from '../store/drivers.js';
import type { DatasetInfo } from '../store/store.js';
import { demoVersions, LIGIE_2022_FROM } from './demo/index.js';
import { TIGIE_2012_FROM } from './demo/tigie2012.js';
import type { DemoVersion } from './demo/index.js';
import { recordToRow } from './record-row.js';

const byPath = new Map(recordSets.map((rs) => [rs.path, rs]));

/**
 * Builds the demo dataset into a SQLite file that does not exist yet, all of it or nothing: both
 * versions (demoVersions) are loaded one after the other, through the usual loads, into a folder of
 * their own beside the path, and put in place at the end: the older version's folder first, then the
 * database file, whose rename is the one switch. A build that dies before it leaves no file at the
 * path, so the next start builds again. Gives the current version's dataset.
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
    let info: DatasetInfo | null = null;
    for (const version of versions ?? demoVersions(demoSourcesDir)) {
      const keep = version.keep.map(recordSetOf);
      const skip = new Set(version.keep);
      info = await writeDatabase(
        `sqlite:${building}`,
        version.fuente,
        (writer) => {
          for (const { recordSet, record } of version.records()) {
            if (skip.has(recordSet)) continue;
            const rs = recordSetOf(recordSet);
            writer.insert(rs, recordToRow(rs, record));
          }
        },
        { vigenteDesde: version.vigenteDesde, keep },
      );
    }
    if (!info) throw new Error('the demo dataset has no version');
    checkVersionsFolder(versionsFolder);
    rmSync(versionsFolder, { recursive: true, force: true });
    renameSync(`${building}.versions`, versionsFolder);
    renameSync(building, path);
    return info;
  } finally {
    rmSync(folder, { recursive: true, force: true });
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

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
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
  if (!existsSync(path)) {
    const started = Date.now();
    const info = await buildDemoDatabase(path);
    const rows = Object.values(info.counts).reduce((a, b) => a + b, 0);
    notes.push(
      `created ${isEmbeddedDemo(config) ? 'the embedded demo database' : path} with the demo dataset in ${Date.now() - started} ms: ` +
        `versions ${TIGIE_2012_FROM} (TIGIE 2012) and ${LIGIE_2022_FROM} (LIGIE 2022, current: ${rows} records)`,
    );
  }
  if (!isEmbeddedDemo(config)) return { config, notes };

  const hash = await hashPassword('demo');
  await withUserAdmin(config, async (admin) => {
    if ((await admin.list()).length > 0) return;
    await admin.add('demo', hash, 'Demo user', null);
    notes.push('created the user "demo" with password "demo": this is for local trial only; never expose this service as it is');
  });
  const secret = config.JWT_SECRET === '' ? demoSecret(path) : config.JWT_SECRET;
  return { config: { ...config, JWT_SECRET: secret }, notes };
}

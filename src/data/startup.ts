/**
 * What has to exist before the service starts: the SQLite file to serve (built from the shipped demo
 * sources on first start) and, in the embedded demo only, a signing secret and the demo user.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { hashPassword } from '../auth/passwords.js';
import type { Config } from '../config.js';
import { demoSourcesDir, isEmbeddedDemo, sqlitePath, storeKind } from '../config.js';
import { recordSets } from '../record-sets/index.js';
import { withUserAdmin, writeDatabase } from '../store/drivers.js';
import type { DatasetInfo } from '../store/store.js';
import { demoRecords } from './demo/index.js';
import { recordToRow } from './record-row.js';

const byPath = new Map(recordSets.map((rs) => [rs.path, rs]));

/** Builds the demo dataset into a SQLite file, all of it or nothing. */
export function buildDemoDatabase(path: string, sourcesDir = demoSourcesDir): Promise<DatasetInfo> {
  return writeDatabase(`sqlite:${path}`, 'demo', (writer) => {
    for (const { recordSet, record } of demoRecords(sourcesDir)) {
      const rs = byPath.get(recordSet);
      if (!rs) throw new Error(`demo dataset names an unknown record set: ${recordSet}`);
      writer.insert(rs, recordToRow(rs, record));
    }
  });
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
    notes.push(`created ${isEmbeddedDemo(config) ? 'the embedded demo database' : path} with the demo dataset: ${rows} records in ${Date.now() - started} ms`);
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

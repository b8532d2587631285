/**
 * Writing a dataset version as one CSV file per record set, in exactly the form `import` reads back
 * (csv.ts). Operators use it to start an edit from the data being served; the tests use it for round trips.
 */
import { closeSync, mkdirSync, openSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Config } from '../config.js';
import { driverFor } from '../store/drivers.js';
import { csvBatches } from './csv.js';
import type { VersionInfo } from '../store/versions.js';
import { inForce, mexicoCityDate, newestImport } from '../store/versions.js';

export interface ExportReport {
  readonly directory: string;
  readonly files: { file: string; rows: number }[];
  rows: number;
  seconds: number;
}

/** The version `wanted` names (the one in force today when not given) if it is not the newest import, whose record sets are the main tables. */
async function olderVersionOf(config: Config, wanted: string | undefined): Promise<VersionInfo | undefined> {
  const store = driverFor(config).open(config);
  let catalog: VersionInfo[];
  try {
    catalog = await store.versions();
  } finally {
    await store.close();
  }
  const version = wanted === undefined ? inForce(catalog, mexicoCityDate(new Date())) : catalog.find((v) => v.version === wanted);
  if (wanted !== undefined && !version) throw new Error(`no version ${wanted} (see tariff-lookup versions list)`);
  return version === newestImport(catalog) ? undefined : version;
}

/** Writes a dataset version (the current one unless `version` names another) of the database `config` names (SQLite or PostgreSQL). */
export async function exportDatabase(config: Config, directory: string, version?: string): Promise<ExportReport> {
  const olderVersion = await olderVersionOf(config, version);
  const started = performance.now();
  const report: ExportReport = { directory: resolve(directory), files: [], rows: 0, seconds: 0 };
  mkdirSync(report.directory, { recursive: true });
  await driverFor(config).readDataset(config, async (rs, rows) => {
    const file = `${rs.path}.csv`;
    // Written under another name and renamed when complete: an interrupted export leaves no half file to import.
    const partial = join(report.directory, `${file}.partial`);
    const fd = openSync(partial, 'w');
    let count = 0;
    try {
      for await (const batch of csvBatches(rs, rows, (n) => (count = n))) writeFileSync(fd, batch);
    } finally {
      closeSync(fd);
    }
    renameSync(partial, join(report.directory, file));
    report.files.push({ file, rows: count });
    report.rows += count;
  }, olderVersion);
  report.seconds = (performance.now() - started) / 1000;
  return report;
}

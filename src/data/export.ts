/**
 * Writing a database as one CSV file per record set, in exactly the form `import` reads back: RFC 4180
 * (CRLF, quotes only where needed), a header of the field names in registry order, an empty field for
 * null. Operators use it to start an edit from the data being served; the tests use it for round trips.
 */
import { closeSync, mkdirSync, openSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Config } from '../config.js';
import { driverFor } from '../store/drivers.js';

/** Rows are written in batches of about this many characters: few system calls, bounded memory. */
const BATCH_CHARS = 1 << 20;

export interface ExportReport {
  readonly directory: string;
  readonly files: { file: string; rows: number }[];
  rows: number;
  seconds: number;
}

function csvField(value: string | number | null): string {
  if (value === null) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const csvLine = (values: readonly (string | number | null)[]): string => `${values.map(csvField).join(',')}\r\n`;

/** Writes the dataset of the database `config` names (SQLite or PostgreSQL). */
export async function exportDatabase(config: Config, directory: string): Promise<ExportReport> {
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
      let batch = csvLine(rs.fields.map((f) => f.name));
      for await (const row of rows) {
        batch += csvLine(row);
        count++;
        if (batch.length >= BATCH_CHARS) {
          writeFileSync(fd, batch);
          batch = '';
        }
      }
      writeFileSync(fd, batch);
    } finally {
      closeSync(fd);
    }
    renameSync(partial, join(report.directory, file));
    report.files.push({ file, rows: count });
    report.rows += count;
  });
  report.seconds = (performance.now() - started) / 1000;
  return report;
}

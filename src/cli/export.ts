/** `tariff-lookup export DIR`: the served database as one CSV file per record set, in the form import reads. */
import { parseArgs } from 'node:util';
import type { Config } from '../config.js';
import { exportDatabase } from '../data/export.js';
import { oneFolder } from './io.js';

export const exportHelp = `Usage: tariff-lookup export DIR [--json]

Writes the database DATABASE_URL names (SQLite or PostgreSQL) as one CSV file per record set in DIR (created if
needed; files of the same names are replaced), in the form import reads back.`;

export async function exportCommand(args: string[], config: Config, out: (line: string) => void): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } },
  });
  if (values.help) return out(exportHelp);
  const report = await exportDatabase(config, oneFolder('export', positionals));
  if (values.json) return out(JSON.stringify(report, null, 2));
  for (const f of report.files) out(`${f.file}\t${f.rows}`);
  out(`${report.rows.toLocaleString('en-US')} rows written to ${report.directory} in ${report.seconds.toFixed(2)} s`);
}

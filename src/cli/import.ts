/** `tariff-lookup import DIR`: a folder of files into the configured database, checked row by row. */
import { parseArgs } from 'node:util';
import type { Config } from '../config.js';
import { formatReport, runImport } from '../data/import.js';
import { isIsoDate, mexicoCityDate } from '../store/versions.js';
import type { Output, Terminal } from './io.js';
import { CliError, oneFolder } from './io.js';
import { pruneVersions } from './versions.js';

export const importHelp = `Usage: tariff-lookup import DIR [--vigente-desde YYYY-MM-DD] [--fuente TEXT] [--strict] [--empty-missing] [--json]

Loads DIR into the database DATABASE_URL names (the embedded demo database when it is empty) as a new
dataset version, in force from --vigente-desde (default: today in Mexico City); the versions already
there are kept (tariff-lookup versions). DIR holds one file per record set, named after its path:
aladi2.csv, fracciones-usa.csv, ... (CSV as RFC 4180 with a header of field names in any order), or
aladi2.jsonl, ... (one JSON object a line); UTF-8, a BOM accepted. A file gives its record set; record
sets with no file are carried over from the version in force on that date.

SQLite: the new data is built beside the served file and renamed over it only when complete, so a
failed or interrupted import changes nothing; a running service switches to it within 2 seconds, or at
once on SIGHUP, without a restart. PostgreSQL: the new data is built in a staging schema and switched
in by one transaction; every copy of the service sees it within 2 seconds.

Options:
  --strict          stop at the first refused row, importing nothing
  --empty-missing   empty the record sets that have no file instead of keeping them
  --json            print the report as JSON
  --vigente-desde D the date the version is in force from, YYYY-MM-DD (a version loaded ahead takes over by itself that day)
  --fuente TEXT     where the data comes from, e.g. "DOF 2022-06-07 LIGIE" (default: the folder's name; --source is the same)

Exit status: 0 imported; 1 nothing imported (the data served is unchanged); 2 imported without the
refused rows the report lists.`;

const flags = {
  strict: { type: 'boolean', default: false },
  'empty-missing': { type: 'boolean', default: false },
  json: { type: 'boolean', default: false },
  source: { type: 'string' },
  fuente: { type: 'string' },
  'vigente-desde': { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

/** Progress on one rewritten line, only for a person watching a terminal. */
function progressLine(stdout: Output): { show: (file: string, rows: number) => void; clear: () => void } | undefined {
  if (!stdout.isTTY) return undefined;
  let last = 0;
  return {
    show: (file, rows) => {
      if (Date.now() - last < 200) return;
      last = Date.now();
      stdout.write(`\r\x1b[K${file}: ${rows.toLocaleString('en-US')} rows`);
    },
    clear: () => stdout.write('\r\x1b[K'),
  };
}

export async function importCommand(args: string[], config: Config, out: (line: string) => void, terminal: Terminal): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: flags });
  if (values.help) {
    out(importHelp);
    return 0;
  }
  const directory = oneFolder('import', positionals);
  const vigenteDesde = values['vigente-desde'] ?? mexicoCityDate(new Date());
  if (!isIsoDate(vigenteDesde)) throw new CliError(`import: --vigente-desde must be a date written YYYY-MM-DD, not ${JSON.stringify(vigenteDesde)}`);
  const progress = values.json ? undefined : progressLine(terminal.stdout);
  const report = await runImport({
    directory,
    config,
    strict: values.strict,
    emptyMissing: values['empty-missing'],
    source: values.fuente ?? values.source,
    vigenteDesde,
    onProgress: progress?.show,
  });
  progress?.clear();
  if (values.json) out(JSON.stringify(report, null, 2));
  else for (const line of formatReport(report)) out(line);
  if (report.failure !== null) throw new CliError(`import failed, nothing changed: ${report.failure}`);
  for (const removed of await pruneVersions(config))
    if (!values.json) out(`removed version ${removed} (DATASET_VERSIONS_KEEP=${config.DATASET_VERSIONS_KEEP})`);
  if (report.refusedRows > 0) {
    terminal.stderr.write(`tariff-lookup: ${report.refusedRows} rows refused (listed in the report); the other rows were imported\n`);
    return 2;
  }
  return 0;
}

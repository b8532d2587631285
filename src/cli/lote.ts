/**
 * `tariff-lookup lote FILE`: a batch worked in this process against the database DATABASE_URL names,
 * with the service's own readers, line answers and writers (src/lotes/): the same table the API
 * gives, without storing the batch. A progress bar on standard error when it is a terminal.
 */
import { createWriteStream } from 'node:fs';
import { readFile as readBytes } from 'node:fs/promises';
import { extname } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import type { Config } from '../config.js';
import { loadTables } from '../contribuciones/tables.js';
import type { Resultado } from '../lotes/answer.js';
import { LineChecker } from '../lotes/answer.js';
import type { FileFormat } from '../lotes/read.js';
import { FileError, TooLarge, readAllLines } from '../lotes/read.js';
import { SLICE_LINES } from '../lotes/worker.js';
import { csvChunks, xlsxStream } from '../lotes/write.js';
import { recordSets } from '../record-sets/index.js';
import { driverFor } from '../store/drivers.js';
import type { Store } from '../store/store.js';
import { inForce, isIsoDate, mexicoCityDate, newestImport } from '../store/versions.js';
import type { Output, Terminal } from './io.js';
import { CliError, writeAll } from './io.js';

export const loteHelp = `Usage: tariff-lookup lote FILE [--fecha YYYY-MM-DD] [--pais PAIS] [--salida OUT.csv|OUT.xlsx]

Checks every line of FILE (.csv, .xlsx, or .ndjson: columns referencia, descripcion, fraccion, nico,
pais_origen, valor_aduana, cantidad_umt, certificado_origen) against the dataset version in force on
--fecha (default today in Mexico City) of the database DATABASE_URL names, as POST /api/v1/lotes does.
--pais is the origin of lines that give none. The results go to --salida (CSV or XLSX by its
extension), or as CSV to standard output.`;

const FORMAT_BY_EXTENSION: Record<string, FileFormat> = { '.csv': 'csv', '.txt': 'csv', '.xlsx': 'xlsx', '.ndjson': 'ndjson', '.jsonl': 'ndjson' };

/** The store of the version in force on `fecha`, as the service picks it (src/store/datasets.ts). */
async function storeOn(config: Config, fecha: string): Promise<Store> {
  const driver = driverFor(config);
  const main = driver.open(config);
  const catalog = await main.versions();
  if (catalog.length === 0) return main;
  const version = inForce(catalog, fecha);
  if (!version) {
    await main.close();
    throw new CliError(`no dataset version is in force on ${fecha}`);
  }
  if (version.version === newestImport(catalog)?.version) return main;
  await main.close();
  return driver.openVersion(config, version);
}

/** A progress bar on `stderr`, only for a person watching a terminal. */
function progress(stderr: Output, done: number, total: number): void {
  if (!stderr.isTTY) return;
  const width = 30;
  const filled = total === 0 ? width : Math.floor((width * done) / total);
  stderr.write(`\r[${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${Math.floor((100 * done) / Math.max(total, 1))}% ${done}/${total}`);
  if (done === total) stderr.write('\n');
}

export async function loteCommand(args: string[], config: Config, out: (line: string) => void, terminal: Terminal): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { fecha: { type: 'string' }, pais: { type: 'string' }, salida: { type: 'string' }, help: { type: 'boolean', short: 'h', default: false } },
  });
  if (values.help) return out(loteHelp);
  if (positionals.length !== 1) throw new CliError('lote takes one FILE (see tariff-lookup lote --help)');
  const file = positionals[0]!;
  const format = FORMAT_BY_EXTENSION[extname(file).toLowerCase()];
  if (!format) throw new CliError(`${file}: not a .csv, .xlsx or .ndjson file`);
  const fecha = values.fecha ?? mexicoCityDate(new Date());
  if (!isIsoDate(fecha)) throw new CliError(`--fecha ${fecha} is not a date YYYY-MM-DD`);
  if (values.pais !== undefined && !/^[A-Za-z]{3}$/.test(values.pais)) throw new CliError(`--pais ${values.pais} is not a 3-letter country key`);
  const output = values.salida;
  if (output !== undefined && !['.csv', '.xlsx'].includes(extname(output).toLowerCase())) throw new CliError('--salida must end in .csv or .xlsx');

  let read;
  try {
    read = await readAllLines(format, await readBytes(file));
  } catch (error) {
    if (error instanceof FileError || error instanceof TooLarge) throw new CliError(`${file}: ${error.message}`);
    throw error;
  }
  const store = await storeOn(config, fecha);
  try {
    const checker = new LineChecker(recordSets, loadTables());
    const parameters = { fecha, paisOrigen: values.pais?.toUpperCase() ?? null };
    const lines = read.lines;
    async function* pages(): AsyncGenerator<Resultado[]> {
      progress(terminal.stderr, 0, lines.length);
      for (let i = 0; i < lines.length; i += SLICE_LINES) {
        yield await checker.check(store, parameters, lines.slice(i, i + SLICE_LINES));
        progress(terminal.stderr, Math.min(i + SLICE_LINES, lines.length), lines.length);
      }
    }
    if (output !== undefined && extname(output).toLowerCase() === '.xlsx') await pipeline(xlsxStream(pages(), read.extraColumns), createWriteStream(output));
    else await writeAll(csvChunks(pages(), read.extraColumns), output === undefined ? terminal.stdout : createWriteStream(output));
  } finally {
    await store.close();
  }
}

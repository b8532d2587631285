/**
 * The import pipeline: a folder with one CSV or JSON-lines file per record set, each row checked
 * against the registry (checkValue through recordToRow) and loaded into a new dataset that takes the
 * place of the main one all at once (the store's DatasetBuild).
 *
 * Files are streamed in chunks, never read whole, so their size is bounded by the disk, not memory.
 * A problem with a whole file (its encoding, its CSV syntax, a header without the identifier) stops
 * the import and leaves the main store untouched; a problem with one row refuses that row, which is
 * reported with its file, line, field and reason (and stops the import too with `strict`).
 */
import { isUtf8 } from 'node:buffer';
import { createReadStream, existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { CsvError, parse } from 'csv-parse';
import type { Info } from 'csv-parse';
import type { RecordSet } from '../record-sets/define.js';
import { recordSets } from '../record-sets/index.js';
import type { Config } from '../config.js';
import { REFERENCES_FILE, readReferences } from '../buscar/references.js';
import type { Fix } from '../tipos-cambio/series.js';
import { TIPOS_CAMBIO_FILE, parseTiposCambio } from '../tipos-cambio/series.js';
import type { ReglasAcuerdo } from '../reglas-origen/archivos.js';
import { ArchivoReglasInvalido, REGLAS_ORIGEN_DIR, acuerdoDeClave, parseArchivo, reglasDeCarga } from '../reglas-origen/archivos.js';
import { driverFor } from '../store/drivers.js';
import type { DatasetBuild } from '../store/store.js';
import { RefusedRecord, recordToRow } from './record-row.js';
import type { StoredValue } from './values.js';
import type { FileReport, ImportReport } from './import-report.js';
import { REFUSALS_LISTED } from './import-report.js';
export type { FileReport, ImportReport, Refusal } from './import-report.js';
export { REFUSALS_LISTED, formatReport } from './import-report.js';

/** No record of any record set comes near this: a longer line means a broken file, refused rather than buffered. */
const MAX_RECORD_BYTES = 32 * 1024 * 1024;
/** Refused rows listed one by one; past this they are only counted (a wholly wrong file would list millions). */
const PROGRESS_EVERY_ROWS = 5000;
/** Rows between two waits for a server-side build to take what it was sent. */
const FLUSH_EVERY_ROWS = 2000;

export interface ImportOptions {
  readonly directory: string;
  /** The database to load into (DATABASE_URL): its driver builds the new dataset. */
  readonly config: Config;
  /** Fail the whole import on the first refused row. */
  readonly strict?: boolean;
  /** Record sets with no file are emptied instead of kept as they are. */
  readonly emptyMissing?: boolean;
  /** Where the data comes from (the version's `fuente`); the folder's name when not given. */
  readonly source?: string;
  /** The date the new version is in force from, `YYYY-MM-DD`; record sets with no file come from the version in force then. */
  readonly vigenteDesde?: string;
  readonly onProgress?: (file: string, rows: number) => void;
}

/** A problem with a whole file (or the folder): nothing is imported. */
export class ImportFailure extends Error {
  override readonly name = 'ImportFailure';
  constructor(file: string, line: number | null, reason: string) {
    super(line === null ? `${file}: ${reason}` : `${file}:${line}: ${reason}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Which file holds which record set

interface PlannedFile {
  readonly file: string;
  readonly path: string;
  readonly format: 'csv' | 'jsonl';
  readonly rs: RecordSet;
}

const byPath = new Map(recordSets.map((rs) => [rs.path, rs]));

function listFolder(directory: string): string[] {
  try {
    return readdirSync(directory).sort();
  } catch (error) {
    throw new ImportFailure(directory, null, `cannot read the folder: ${(error as Error).message}`);
  }
}

function planFiles(directory: string, ignored: ImportReport['ignored']): PlannedFile[] {
  const planned = new Map<RecordSet, PlannedFile>();
  for (const file of listFolder(directory)) {
    const path = join(directory, file);
    const match = /^(.+)\.(csv|jsonl)$/.exec(file);
    const rs = match?.[1] === undefined ? undefined : byPath.get(match[1]);
    if (!match || !rs) {
      ignored.push({ file, reason: match ? 'names no record set' : 'not a .csv or .jsonl file' });
      continue;
    }
    if (statSync(path, { throwIfNoEntry: false })?.isFile() !== true) {
      ignored.push({ file, reason: 'not a file' });
      continue;
    }
    const other = planned.get(rs);
    if (other) throw new ImportFailure(file, null, `${other.file} holds ${rs.path} too: keep one of the two`);
    planned.set(rs, { file, path, format: match[2] === 'csv' ? 'csv' : 'jsonl', rs });
  }
  // A folder with only the exchange rates or search references is a load of those alone: every record set kept.
  const ownTables =
    [REFERENCES_FILE, TIPOS_CAMBIO_FILE].some((f) => statSync(join(directory, f), { throwIfNoEntry: false })?.isFile() === true) ||
    statSync(join(directory, REGLAS_ORIGEN_DIR), { throwIfNoEntry: false })?.isDirectory() === true;
  if (planned.size === 0 && !ownTables) {
    throw new ImportFailure(
      directory,
      null,
      'no file names a record set (expected files such as aladi2.csv or fracciones.jsonl, or tipos-cambio.csv, or a folder reglas-origen)',
    );
  }
  // Registry order: reports and timings read the same on every run.
  return recordSets.flatMap((rs) => planned.get(rs) ?? []);
}

// ---------------------------------------------------------------------------------------------
// What happens to each row, whatever the format

class FileLoad {
  readonly report: FileReport;
  private readonly unknown = new Set<string>();

  constructor(
    private readonly planned: PlannedFile,
    private readonly build: DatasetBuild,
    private readonly summary: ImportReport,
    private readonly options: ImportOptions,
  ) {
    this.report = { file: planned.file, recordSet: planned.rs.path, rows: 0, imported: 0, refused: 0, unknownColumns: [], absentColumns: [] };
  }

  row(line: number, record: Readonly<Record<string, unknown>>): void {
    this.count();
    const { rs } = this.planned;
    let row: StoredValue[];
    try {
      row = recordToRow(rs, record);
    } catch (error) {
      if (!(error instanceof RefusedRecord)) throw error;
      return this.refuse(line, error.field, error.reason);
    }
    if (!this.build.insert(rs, row)) {
      const key = rs.key.map((k) => `${k}=${String(row[rs.fields.findIndex((f) => f.name === k)])}`).join(', ');
      return this.refuse(line, rs.key.join(', '), `duplicate identifier ${key}: the first row with it is kept`);
    }
    this.report.imported++;
  }

  /** Lets a build whose rows travel to a server catch up now and then (no-op on SQLite). */
  async flush(): Promise<void> {
    if (this.report.rows % FLUSH_EVERY_ROWS === 0) await this.build.ready?.();
  }

  /** A row that cannot even be read as a record (wrong number of fields, not a JSON object). */
  unreadable(line: number, reason: string): void {
    this.count();
    this.refuse(line, null, reason);
  }

  /** JSON keys are only known row by row; they are collected and reported once. */
  noteKeys(keys: readonly string[]): void {
    for (const key of keys) {
      if (this.unknown.has(key) || this.planned.rs.fields.some((f) => f.name === key)) continue;
      this.unknown.add(key);
      if (this.unknown.size <= 100) this.report.unknownColumns.push(key);
    }
  }

  private count(): void {
    this.report.rows++;
    if (this.report.rows % PROGRESS_EVERY_ROWS === 0) this.options.onProgress?.(this.planned.file, this.report.rows);
  }

  private refuse(line: number, field: string | null, reason: string): void {
    this.report.refused++;
    this.summary.refusedRows++;
    const refusal = { file: this.planned.file, line, field, reason: clip(reason) };
    if (this.summary.refusals.length < REFUSALS_LISTED) this.summary.refusals.push(refusal);
    if (this.options.strict) throw new ImportFailure(refusal.file, line, `${refusal.reason} (--strict: the first refused row stops the import)`);
  }
}

const clip = (s: string): string => (s.length > 300 ? `${s.slice(0, 300)}…` : s);

// ---------------------------------------------------------------------------------------------
// UTF-8, checked on the bytes so that a bad file is named with its line

/** The length of `bytes` without a character cut at its end (the next chunk holds the rest of it). */
function completeCharacters(bytes: Buffer): number {
  for (let i = bytes.length - 1; i >= Math.max(0, bytes.length - 3); i--) {
    const b = bytes[i]!;
    if (b < 0x80) return bytes.length;
    if (b >= 0xc0) {
      const size = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
      return i + size > bytes.length ? i : bytes.length;
    }
  }
  return bytes.length;
}

function countLines(bytes: Buffer): number {
  let lines = 0;
  for (let i = bytes.indexOf(0x0a); i !== -1; i = bytes.indexOf(0x0a, i + 1)) lines++;
  return lines;
}

/** How many whole lines precede the first invalid one (`bytes` starts at a character boundary). */
function linesBeforeInvalid(bytes: Buffer): number {
  let start = 0;
  for (let lines = 0; ; lines++) {
    const end = bytes.indexOf(0x0a, start);
    if (!isUtf8(bytes.subarray(start, end === -1 ? bytes.length : end)) || end === -1) return lines;
    start = end + 1;
  }
}

const NOT_UTF8 = 'not valid UTF-8 (a file saved as Latin-1, Windows-1252 or UTF-16 must be converted to UTF-8)';

/** Passes the bytes through, cut at character boundaries, failing at the first invalid one. */
function checkUtf8(file: string) {
  return async function* (chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
    let carried = Buffer.alloc(0);
    let line = 1;
    for await (const chunk of chunks) {
      const bytes = carried.length === 0 ? chunk : Buffer.concat([carried, chunk]);
      const end = completeCharacters(bytes);
      const whole = bytes.subarray(0, end);
      if (!isUtf8(whole)) throw new ImportFailure(file, line + linesBeforeInvalid(whole), NOT_UTF8);
      line += countLines(whole);
      carried = Buffer.from(bytes.subarray(end));
      yield whole;
    }
    if (carried.length > 0) throw new ImportFailure(file, line, NOT_UTF8);
  };
}

// ---------------------------------------------------------------------------------------------
// CSV (RFC 4180, a header of field names in any order) and JSON lines

/** The header's columns as field names, null for a column that is not a field. */
function readHeader(planned: PlannedFile, line: number, names: readonly string[], report: FileReport): (string | null)[] {
  const { rs } = planned;
  const columns = names.map((n) => n.trim());
  const twice = columns.find((c, i) => columns.indexOf(c) !== i);
  if (twice !== undefined) throw new ImportFailure(planned.file, line, `the header names the column ${twice} twice`);
  const noKey = rs.key.filter((k) => !columns.includes(k));
  if (noKey.length > 0) {
    throw new ImportFailure(
      planned.file,
      line,
      `the header has no ${noKey.join(', ')} column (the identifier of ${rs.path}), so no row can be imported; the header is: ${clip(columns.join(','))}`,
    );
  }
  const known = new Set(rs.fields.map((f) => f.name));
  report.unknownColumns = columns.filter((c) => !known.has(c));
  report.absentColumns = rs.fields.map((f) => f.name).filter((n) => !columns.includes(n));
  return columns.map((c) => (known.has(c) ? c : null));
}

function toRecord(header: readonly (string | null)[], values: readonly string[]): Record<string, string> {
  const record: Record<string, string> = {};
  header.forEach((name, i) => {
    if (name !== null) record[name] = values[i]!;
  });
  return record;
}

async function readCsv(planned: PlannedFile, load: FileLoad): Promise<void> {
  let header: (string | null)[] | null = null;
  // csv-parse gives the line a record ends on; a record starts after the previous one and any skipped empty lines.
  let previousEnd = 0;
  let previousEmpty = 0;
  const parser = parse({ bom: true, info: true, relax_column_count: true, skip_empty_lines: true, max_record_size: MAX_RECORD_BYTES });
  const consume = async (records: AsyncIterable<{ record: string[]; info: Info }>): Promise<void> => {
    for await (const { record, info } of records) {
      const line = previousEnd + (info.empty_lines - previousEmpty) + 1;
      previousEnd = info.lines;
      previousEmpty = info.empty_lines;
      if (header === null) header = readHeader(planned, line, record, load.report);
      else if (record.length !== header.length) load.unreadable(line, `${record.length} fields where the header has ${header.length}`);
      else load.row(line, toRecord(header, record));
      await load.flush();
    }
  };
  try {
    await pipeline(createReadStream(planned.path), checkUtf8(planned.file), parser, consume);
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    const line = typeof error['lines'] === 'number' ? error['lines'] : null;
    throw new ImportFailure(planned.file, line, `not CSV as RFC 4180 writes it: ${error.message}`);
  }
  if (header === null) throw new ImportFailure(planned.file, 1, 'empty: a CSV file starts with a header naming its columns');
}

function jsonLine(line: number, text: string, load: FileLoad): void {
  const trimmed = (line === 1 ? text.replace(/^\uFEFF/, '') : text).trim();
  if (trimmed === '') return;
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch (error) {
    return load.unreadable(line, `not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return load.unreadable(line, 'not a JSON object');
  load.noteKeys(Object.keys(value));
  load.row(line, value as Record<string, unknown>);
}

async function readJsonLines(planned: PlannedFile, load: FileLoad): Promise<void> {
  const consume = async (chunks: AsyncIterable<Buffer>): Promise<void> => {
    // Pieces of the current line, joined once it ends: a long line costs its length, not its length squared.
    let pieces: string[] = [];
    let pending = 0;
    let line = 0;
    for await (const chunk of chunks) {
      const text = chunk.toString('utf8');
      let start = 0;
      for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
        pieces.push(text.slice(start, end));
        jsonLine(++line, pieces.join(''), load);
        await load.flush();
        pieces = [];
        pending = 0;
        start = end + 1;
      }
      pieces.push(text.slice(start));
      pending += text.length - start;
      if (pending > MAX_RECORD_BYTES) throw new ImportFailure(planned.file, line + 1, `a line longer than ${MAX_RECORD_BYTES} bytes: not JSON lines`);
    }
    if (pending > 0) jsonLine(++line, pieces.join(''), load);
  };
  await pipeline(createReadStream(planned.path), checkUtf8(planned.file), consume);
}

// ---------------------------------------------------------------------------------------------
// The import

/** The folder's exchange-rate series; a malformed one stops the import, naming the file and line. */
function readRatesFile(path: string): Fix[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ImportFailure(TIPOS_CAMBIO_FILE, null, `cannot read: ${(error as Error).message}`);
  }
  try {
    const series = parseTiposCambio(text);
    if (series.length === 0) throw new Error(`${TIPOS_CAMBIO_FILE}: no rates (a header fecha,tipo_cambio and one row per banking day)`);
    return series;
  } catch (error) {
    throw new ImportFailure(TIPOS_CAMBIO_FILE, null, (error as Error).message.replace(`${TIPOS_CAMBIO_FILE}: `, '').replace(`${TIPOS_CAMBIO_FILE} `, ''));
  }
}

/**
 * The folder's own rules of origin (`reglas-origen/<clave>.json`, `<clave>` an agreement of
 * acuerdos.csv), each checked whole: a file that names no agreement or is not the shape stops the
 * import, naming the file, the entry and the reason, so that no version holds half an annex.
 */
function readReglasFolder(directory: string): ReglasAcuerdo[] {
  const folder = join(directory, REGLAS_ORIGEN_DIR);
  if (statSync(folder, { throwIfNoEntry: false })?.isDirectory() !== true) return [];
  const found: ReglasAcuerdo[] = [];
  for (const file of listFolder(folder)) {
    const name = `${REGLAS_ORIGEN_DIR}/${file}`;
    const match = /^(.+)\.json$/.exec(file);
    if (!match?.[1]) throw new ImportFailure(name, null, 'not a .json file: the folder holds one <clave>.json per agreement of acuerdos.csv');
    const acuerdo = acuerdoDeClave(match[1]);
    if (acuerdo === undefined) throw new ImportFailure(name, null, `${match[1]} names no free-trade agreement of acuerdos.csv (such as T-MEC or TIPAT)`);
    const other = found.find((r) => r.acuerdo === acuerdo);
    if (other) throw new ImportFailure(name, null, `${REGLAS_ORIGEN_DIR}/${other.archivo} holds the rules of ${acuerdo} too: keep one of the two`);
    let text: string;
    try {
      text = readFileSync(join(folder, file), 'utf8');
    } catch (error) {
      throw new ImportFailure(name, null, `cannot read: ${(error as Error).message}`);
    }
    try {
      found.push({ acuerdo, archivo: file, contenido: parseArchivo(file, text) });
    } catch (error) {
      if (!(error instanceof ArchivoReglasInvalido)) throw error;
      throw new ImportFailure(name, null, `${error.entrada === '' ? '' : `entry ${error.entrada}: `}${error.motivo}`);
    }
  }
  return found;
}

export async function runImport(options: ImportOptions): Promise<ImportReport> {
  const started = performance.now();
  const directory = resolve(options.directory);
  const report: ImportReport = {
    directory,
    database: driverFor(options.config).describe(options.config),
    source: options.source ?? basename(directory),
    imported: false,
    failure: null,
    dataset: null,
    files: [],
    kept: [],
    emptied: [],
    ignored: [],
    reglasOrigen: [],
    refusedRows: 0,
    refusals: [],
    seconds: 0,
    rowsPerSecond: 0,
  };
  let build: DatasetBuild | null = null;
  try {
    const planned = planFiles(directory, report.ignored);
    // The search references are no record set: a folder may carry its own in place of the shipped ones.
    const referencesFile = join(directory, REFERENCES_FILE);
    const references = existsSync(referencesFile) ? readReferences(referencesFile) : undefined;
    // So is the exchange-rate series: a folder may carry a newer one in place of the shipped series.
    const ratesFile = join(directory, TIPOS_CAMBIO_FILE);
    const tiposCambio = existsSync(ratesFile) ? readRatesFile(ratesFile) : undefined;
    // And so are the rules of origin: the shipped files, each replaced or joined by the folder's own.
    const ownReglas = readReglasFolder(directory);
    const reglasOrigen = ownReglas.length === 0 ? undefined : reglasDeCarga(ownReglas);
    report.reglasOrigen = (reglasOrigen ?? reglasDeCarga([])).map((r) => ({ acuerdo: r.acuerdo, archivo: r.archivo, conjuntos: r.contenido.rule_sets.length }));
    for (const file of [REFERENCES_FILE, TIPOS_CAMBIO_FILE, REGLAS_ORIGEN_DIR]) {
      const listed = report.ignored.findIndex((i) => i.file === file);
      if (listed !== -1) report.ignored.splice(listed, 1);
    }
    const missing = recordSets.filter((rs) => !planned.some((p) => p.rs === rs));
    const keep = options.emptyMissing ? [] : missing;
    build = await driverFor(options.config).startBuild(options.config, { keep, references, tiposCambio, reglasOrigen, vigenteDesde: options.vigenteDesde });
    const keeps = !options.emptyMissing && build.replacesExisting;
    report.kept = keeps ? missing.map((rs) => rs.path) : [];
    report.emptied = keeps ? [] : missing.map((rs) => rs.path);
    for (const p of planned) {
      const load = new FileLoad(p, build, report, options);
      report.files.push(load.report);
      await (p.format === 'csv' ? readCsv(p, load) : readJsonLines(p, load));
    }
    report.dataset = await build.commit(report.source);
    report.imported = true;
  } catch (error) {
    await build?.abandon();
    report.failure = error instanceof Error ? error.message : String(error);
  }
  report.seconds = (performance.now() - started) / 1000;
  const rows = report.files.reduce((sum, f) => sum + f.rows, 0);
  report.rowsPerSecond = Math.round(rows / Math.max(report.seconds, 0.001));
  return report;
}

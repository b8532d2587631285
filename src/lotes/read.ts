/**
 * A batch's file read as lines (../shared/spec/lotes.md, "Sending a batch"): CSV (csv-parse; a BOM, `;`
 * when the header uses it), XLSX (ExcelJS's streaming reader, the first sheet, its first row the
 * header, every cell read as text) or NDJSON. A file that cannot be read as its type, has no header or
 * has neither a `descripcion` nor a `fraccion` column is refused whole (FileError names the problem
 * and the line); a line's bad values are the line's business (columns.ts).
 */
import { isUtf8 } from 'node:buffer';
import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import type { CellValue, Row } from 'exceljs';
import type { Column, RawLine } from './columns.js';
import { knownColumn } from './columns.js';
import { loadExcelJS } from './excel.js';

export const MAX_LINES = 100_000;
export const MAX_BYTES = 20 * 1024 * 1024;

export const FORMATS = {
  csv: 'text/csv',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ndjson: 'application/x-ndjson',
} as const;
export type FileFormat = keyof typeof FORMATS;

/** The file cannot be taken: `line` is the line where that shows, when there is one. */
export class FileError extends Error {
  constructor(
    message: string,
    readonly line?: number,
  ) {
    super(line === undefined ? message : `line ${line}: ${message}`);
  }
}

/** More lines than a batch takes (a 413). */
export class TooManyLines extends Error {
  constructor() {
    super(`A batch takes at most ${MAX_LINES} lines`);
  }
}

/** The file's format by its Content-Type, or undefined when it is none of the three. */
export function formatOf(contentType: string | undefined): FileFormat | undefined {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return (Object.keys(FORMATS) as FileFormat[]).find((f) => FORMATS[f] === type);
}

export interface ReadFile {
  /** How many lines the file has (blank ones aside). */
  readonly lines: number;
  /** The extra columns' headers in file order (the result table's last columns). */
  readonly extraColumns: string[];
}

/**
 * Lines handed on at a time (one INSERT's worth): a 100,000-line file is never held whole as lines (the
 * bytes are, up to 20 MiB). Small chunks die young: with 1,000 lines a chunk outlived the young
 * generation and a 100,000-line upload took the process up by 75 MB instead of 41.
 */
export const CHUNK_LINES = 200;

/** Where a file's lines go, a chunk at a time in file order; the next chunk is read once the last is taken. */
export type TakeLines = (lines: RawLine[]) => void | Promise<void>;

/**
 * Reads `body` as `format`, handing its lines to `take`. A refusal (FileError, TooManyLines) can come
 * after some chunks were taken: whoever stores them does so in a transaction that the refusal undoes.
 */
export async function readFile(format: FileFormat, body: Buffer, take: TakeLines): Promise<ReadFile> {
  const chunks = new Chunks(take);
  switch (format) {
    case 'csv':
      return readCsv(body, chunks);
    case 'xlsx':
      return readXlsx(body, chunks);
    case 'ndjson':
      return readNdjson(body, chunks);
  }
}

/** Every line of a file, in an array: for the command line, which answers a file it has whole. */
export async function readAllLines(format: FileFormat, body: Buffer): Promise<{ lines: RawLine[]; extraColumns: string[] }> {
  const lines: RawLine[] = [];
  const { extraColumns } = await readFile(format, body, (chunk) => void lines.push(...chunk));
  return { lines, extraColumns };
}

/** The lines read so far, handed on CHUNK_LINES at a time; counts them against MAX_LINES. */
class Chunks {
  private pending: RawLine[] = [];
  count = 0;
  /** What the taker threw, if it did: the taker's failure, never called the file's. */
  private takerFailure: unknown;

  constructor(private readonly take: TakeLines) {}

  /** Whether `error` came from parsing the file (to be refused as a FileError), not from the taker or a refusal already made. */
  fromParser(error: unknown): boolean {
    return !(error instanceof FileError || error instanceof TooManyLines || (this.takerFailure !== undefined && error === this.takerFailure));
  }

  async add(line: RawLine): Promise<void> {
    if (this.count >= MAX_LINES) throw new TooManyLines();
    this.count++;
    this.pending.push(line);
    if (this.pending.length >= CHUNK_LINES) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const chunk = this.pending;
    this.pending = [];
    try {
      await this.take(chunk);
    } catch (error) {
      this.takerFailure = error;
      throw error;
    }
  }
}

/** The header's columns: which known column each position is, the extra columns' names. */
class Header {
  readonly known: (Column | undefined)[];
  readonly names: string[];
  readonly extraColumns: string[];

  constructor(cells: readonly string[], line: number) {
    this.names = cells.map((c, i) => (c.trim() === '' ? `columna_${i + 1}` : c.trim()));
    if (cells.every((c) => c.trim() === '')) throw new FileError('the header is empty', line);
    this.known = cells.map(knownColumn);
    if (!this.known.includes('descripcion') && !this.known.includes('fraccion')) {
      throw new FileError('the header has neither a descripcion nor a fraccion column', line);
    }
    this.extraColumns = this.names.filter((_, i) => this.known[i] === undefined);
  }

  line(linea: number, cells: readonly string[]): RawLine {
    const values: Partial<Record<Column, string>> = {};
    const extra: Record<string, string> = {};
    cells.forEach((cell, i) => {
      const column = this.known[i];
      if (column !== undefined) values[column] ??= cell;
      else extra[this.names[i] ?? `columna_${i + 1}`] = cell;
    });
    return { linea, values, extra };
  }
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** The file's bytes past a UTF-8 BOM, refused unless they are UTF-8 (checked without decoding the whole file). */
function utf8(body: Buffer): Buffer {
  if (!isUtf8(body)) throw new FileError('the file is not UTF-8 text');
  return body.subarray(0, 3).equals(BOM) ? body.subarray(3) : body;
}

const blank = (cells: readonly string[]): boolean => cells.every((c) => c.trim() === '');

/**
 * Bytes fed to csv-parse a piece at a time, so that it holds a piece's records rather than the file's.
 * It decodes a field once its bytes are whole, so a character cut between pieces is read whole.
 */
const PIECE_BYTES = 64 * 1024;
function* pieces(bytes: Buffer): Generator<Buffer> {
  for (let at = 0; at < bytes.length; at += PIECE_BYTES) yield bytes.subarray(at, at + PIECE_BYTES);
}

async function readCsv(body: Buffer, chunks: Chunks): Promise<ReadFile> {
  const bytes = utf8(body);
  const newline = bytes.indexOf(0x0a);
  const firstLine = bytes.toString('utf8', 0, newline === -1 ? bytes.length : newline);
  // `;` is the separator of spreadsheets saved with a decimal comma; the header says which one the file uses.
  const delimiter = (firstLine.match(/;/g)?.length ?? 0) > (firstLine.match(/,/g)?.length ?? 0) ? ';' : ',';
  const parser = Readable.from(pieces(bytes)).pipe(parse({ delimiter, relax_column_count: true, relax_quotes: true, info: true }));
  let header: Header | undefined;
  try {
    for await (const record of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      const cells = record.record;
      if (header === undefined) {
        if (blank(cells)) continue;
        header = new Header(cells, record.info.lines);
        continue;
      }
      if (blank(cells)) continue;
      await chunks.add(header.line(record.info.lines, cells));
    }
    await chunks.flush();
  } catch (error) {
    parser.destroy();
    if (!chunks.fromParser(error)) throw error;
    const csv = error as { message?: string; lines?: number };
    throw new FileError(`the file cannot be read as CSV (${String(csv.message ?? error)})`, csv.lines);
  }
  if (header === undefined) throw new FileError('the file has no header');
  return { lines: chunks.count, extraColumns: header.extraColumns };
}

/** A cell as text: numbers as written, formulas by their result, rich text and links by their text. */
function cellText(value: CellValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if ('richText' in value) return value.richText.map((r) => r.text).join('');
  if ('formula' in value || 'sharedFormula' in value) return cellText((value as { result?: CellValue }).result ?? '');
  if ('text' in value) return cellText(value.text);
  if ('error' in value) return String(value.error);
  return '';
}

async function readXlsx(body: Buffer, chunks: Chunks): Promise<ReadFile> {
  // ExcelJS's zip reader fails on an empty stream outside the iteration (an unhandled error): refused here.
  if (body.length === 0) throw new FileError('the file is empty: an XLSX file is a ZIP archive');
  const ExcelJS = await loadExcelJS();
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(Readable.from([body]), {
    entries: 'emit',
    sharedStrings: 'cache',
    hyperlinks: 'ignore',
    styles: 'ignore',
    worksheets: 'emit',
  });
  let header: Header | undefined;
  try {
    for await (const sheet of reader) {
      for await (const row of sheet as AsyncIterable<Row>) {
        const values = row.values as CellValue[];
        // ExcelJS numbers cells from 1: position 0 is always empty.
        const cells = values.slice(1).map(cellText);
        for (let i = 0; i < cells.length; i++) cells[i] ??= '';
        if (header === undefined) {
          if (blank(cells)) continue;
          header = new Header(cells, row.number);
          continue;
        }
        if (blank(cells)) continue;
        await chunks.add(header.line(row.number, cells));
      }
      // The first sheet only.
      break;
    }
    await chunks.flush();
  } catch (error) {
    if (!chunks.fromParser(error)) throw error;
    throw new FileError(`the file cannot be read as XLSX (${error instanceof Error ? error.message : String(error)})`);
  }
  if (header === undefined) throw new FileError('the file has no header (its first sheet is empty)');
  return { lines: chunks.count, extraColumns: header.extraColumns };
}

/** NDJSON has no header line: the columns are the names the objects use, in the order first met. */
async function readNdjson(body: Buffer, chunks: Chunks): Promise<ReadFile> {
  const bytes = utf8(body);
  const extraColumns: string[] = [];
  let sawKnown = false;
  let linea = 0;
  for (let start = 0; start <= bytes.length;) {
    const newline = bytes.indexOf(0x0a, start);
    const end = newline === -1 ? bytes.length : newline;
    const part = bytes.toString('utf8', start, end);
    start = end + 1;
    linea++;
    if (part.trim() === '') continue;
    let object: unknown;
    try {
      object = JSON.parse(part);
    } catch {
      throw new FileError('the line is not JSON', linea);
    }
    if (object === null || typeof object !== 'object' || Array.isArray(object)) throw new FileError('the line is not a JSON object', linea);
    const values: Partial<Record<Column, string>> = {};
    const extra: Record<string, string> = {};
    for (const [name, value] of Object.entries(object as Record<string, unknown>)) {
      const cell = value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
      const column = knownColumn(name);
      if (column !== undefined) {
        sawKnown ||= column === 'descripcion' || column === 'fraccion';
        values[column] ??= cell;
      } else {
        extra[name] = cell;
        if (!extraColumns.includes(name)) extraColumns.push(name);
      }
    }
    await chunks.add({ linea, values, extra });
  }
  await chunks.flush();
  if (chunks.count === 0) throw new FileError('the file has no lines');
  if (!sawKnown) throw new FileError('no line has a descripcion or a fraccion field');
  return { lines: chunks.count, extraColumns };
}

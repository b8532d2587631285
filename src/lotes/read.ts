/**
 * A batch's file read as lines (../shared/spec/lotes.md, "Sending a batch"): CSV (csv-parse; a BOM, `;`
 * when the header uses it), XLSX (ExcelJS's streaming reader, the first sheet, its first row the
 * header, every cell read as text) or NDJSON. A file that cannot be read as its type, has no header or
 * has neither a `descripcion` nor a `fraccion` column is refused whole (FileError names the problem
 * and the line); a line's bad values are the line's business (columns.ts).
 */
import { Readable, pipeline } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { parse } from 'csv-parse';
import type { CellValue, Row } from 'exceljs';
import type { Column, RawLine } from './columns.js';
import { knownColumn } from './columns.js';
import { loadExcelJS } from './excel.js';
import { XLSX_UNREADABLE, csvProblem } from './refusals.js';

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
 * A file's bytes in the order they come: a stream (the upload, spooled to a file by the HTTP edge) or a
 * buffer the command line holds whole. Only an XLSX file is gathered whole (a ZIP archive, compressed).
 */
export type FileBytes = Uint8Array | AsyncIterable<Uint8Array>;

/**
 * Lines handed on at a time (one INSERT's worth): a 100,000-line file is never held whole as lines,
 * nor as bytes unless it is XLSX. Small chunks die young: with 1,000 lines a chunk outlived the young
 * generation and a 100,000-line upload took the process up by 75 MB instead of 41.
 */
export const CHUNK_LINES = 200;

/** Where a file's lines go, a chunk at a time in file order; the next chunk is read once the last is taken. */
export type TakeLines = (lines: RawLine[]) => void | Promise<void>;

/**
 * Reads `body` as `format`, handing its lines to `take`. A refusal (FileError, TooManyLines) can come
 * after some chunks were taken: whoever stores them does so in a transaction that the refusal undoes.
 */
export async function readFile(format: FileFormat, body: FileBytes, take: TakeLines): Promise<ReadFile> {
  const chunks = new Chunks(take);
  const bytes = chunks.source(body);
  switch (format) {
    case 'csv':
      return readCsv(bytes, chunks);
    case 'xlsx':
      return readXlsx(await buffer(bytes), chunks);
    case 'ndjson':
      return readNdjson(bytes, chunks);
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
  /** What the taker or the bytes' source threw: their failures, never called the file's. */
  private readonly notTheFile = new Set<unknown>();

  constructor(private readonly take: TakeLines) {}

  /** Whether `error` came from parsing the file (to be refused as a FileError), not from the taker, the source or a refusal already made. */
  fromParser(error: unknown): boolean {
    return !(error instanceof FileError || error instanceof TooManyLines || this.notTheFile.has(error));
  }

  /** `body` in pieces of at most PIECE_BYTES, its failures (a refused upload, a lost connection) kept as they are. */
  async *source(body: FileBytes): AsyncGenerator<Uint8Array> {
    try {
      for await (const bytes of body instanceof Uint8Array ? [body] : body) {
        for (let at = 0; at < bytes.length; at += PIECE_BYTES) yield bytes.subarray(at, at + PIECE_BYTES);
      }
    } catch (error) {
      this.notTheFile.add(error);
      throw error;
    }
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
      this.notTheFile.add(error);
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

/**
 * The most handed on at once: csv-parse holds a piece's records, not the file's, whatever size the
 * source's own pieces are (the command line's is the whole file).
 */
const PIECE_BYTES = 64 * 1024;

/** The file's text as it comes, a BOM dropped; refused unless it is UTF-8 (a character cut between pieces is read whole). */
async function* utf8(bytes: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const decode = (piece?: Uint8Array): string => {
    try {
      return piece === undefined ? decoder.decode() : decoder.decode(piece, { stream: true });
    } catch {
      throw new FileError('the file is not UTF-8 text');
    }
  };
  for await (const piece of bytes) {
    const text = decode(piece);
    if (text !== '') yield text;
  }
  const last = decode();
  if (last !== '') yield last;
}

/** The text's first line (`;` or `,` is read from it) and the whole text again, the first line included. */
async function firstLine(text: AsyncIterator<string>): Promise<{ line: string; all: AsyncGenerator<string> }> {
  let head = '';
  let ended = false;
  // Each piece is looked at once: a 20 MiB file of one line is not scanned again at every piece.
  for (let seen = false; !seen;) {
    const next = await text.next();
    if (next.done === true) {
      ended = true;
      break;
    }
    head += next.value;
    seen = next.value.includes('\n');
  }
  async function* all(): AsyncGenerator<string> {
    if (head !== '') yield head;
    for (let next = ended ? undefined : await text.next(); next !== undefined && next.done !== true; next = await text.next()) yield next.value;
  }
  const newline = head.indexOf('\n');
  return { line: newline === -1 ? head : head.slice(0, newline), all: all() };
}

const blank = (cells: readonly string[]): boolean => cells.every((c) => c.trim() === '');

async function readCsv(bytes: AsyncIterable<Uint8Array>, chunks: Chunks): Promise<ReadFile> {
  const text = await firstLine(utf8(bytes)[Symbol.asyncIterator]());
  // `;` is the separator of spreadsheets saved with a decimal comma; the header says which one the file uses.
  const delimiter = (text.line.match(/;/g)?.length ?? 0) > (text.line.match(/,/g)?.length ?? 0) ? ';' : ',';
  const parser = parse({ delimiter, relax_column_count: true, relax_quotes: true, info: true });
  // The source's failures (not UTF-8, a refused upload) end the parser with them, and the loop below.
  pipeline(Readable.from(text.all), parser, () => undefined);
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
    throw new FileError(csvProblem(error), (error as { lines?: number }).lines);
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
    throw new FileError(XLSX_UNREADABLE);
  }
  if (header === undefined) throw new FileError('the file has no header (its first sheet is empty)');
  return { lines: chunks.count, extraColumns: header.extraColumns };
}

/** NDJSON has no header line: the columns are the names the objects use, in the order first met. */
async function readNdjson(bytes: AsyncIterable<Uint8Array>, chunks: Chunks): Promise<ReadFile> {
  const extraColumns: string[] = [];
  let sawKnown = false;
  let linea = 0;
  const line = async (part: string): Promise<void> => {
    linea++;
    if (part.trim() === '') return;
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
  };
  // A line cut between pieces is carried to the next one.
  let carried = '';
  for await (const text of utf8(bytes)) {
    let start = 0;
    for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', start)) {
      await line(carried + text.slice(start, newline));
      carried = '';
      start = newline + 1;
    }
    carried += text.slice(start);
  }
  await line(carried);
  await chunks.flush();
  if (chunks.count === 0) throw new FileError('the file has no lines');
  if (!sawKnown) throw new FileError('no line has a descripcion or a fraccion field');
  return { lines: chunks.count, extraColumns };
}

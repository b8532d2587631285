/**
 * A batch's file read as lines (../shared/spec/lotes.md, "Sending a batch"): CSV (csv-parse; a BOM, `;`
 * when the header uses it), XLSX (ExcelJS's streaming reader, the first sheet, its first row the
 * header, every cell read as text) or NDJSON. A file that cannot be read as its type, has no header or
 * has neither a `descripcion` nor a `fraccion` column is refused whole (FileError names the problem
 * and the line); a line's bad values are the line's business (columns.ts).
 */
import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import ExcelJS from 'exceljs';
import type { Column, RawLine } from './columns.js';
import { knownColumn } from './columns.js';

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
  readonly lines: RawLine[];
  /** The extra columns' headers in file order (the result table's last columns). */
  readonly extraColumns: string[];
}

export async function readFile(format: FileFormat, body: Buffer): Promise<ReadFile> {
  switch (format) {
    case 'csv':
      return readCsv(body);
    case 'xlsx':
      return readXlsx(body);
    case 'ndjson':
      return readNdjson(body);
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

function utf8(body: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    throw new FileError('the file is not UTF-8 text');
  }
}

const blank = (cells: readonly string[]): boolean => cells.every((c) => c.trim() === '');

async function readCsv(body: Buffer): Promise<ReadFile> {
  const text = utf8(body).replace(/^\uFEFF/, '');
  const firstLine = text.slice(0, text.search(/\r?\n|$/));
  // `;` is the separator of spreadsheets saved with a decimal comma; the header says which one the file uses.
  const delimiter = (firstLine.match(/;/g)?.length ?? 0) > (firstLine.match(/,/g)?.length ?? 0) ? ';' : ',';
  const parser = Readable.from([text]).pipe(parse({ delimiter, relax_column_count: true, relax_quotes: true, info: true }));
  let header: Header | undefined;
  const lines: RawLine[] = [];
  try {
    for await (const record of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      const cells = record.record;
      if (header === undefined) {
        if (blank(cells)) continue;
        header = new Header(cells, record.info.lines);
        continue;
      }
      if (blank(cells)) continue;
      if (lines.length >= MAX_LINES) throw new TooManyLines();
      lines.push(header.line(record.info.lines, cells));
    }
  } catch (error) {
    if (error instanceof FileError || error instanceof TooManyLines) throw error;
    const csv = error as { message?: string; lines?: number };
    throw new FileError(`the file cannot be read as CSV (${String(csv.message ?? error)})`, csv.lines);
  }
  if (header === undefined) throw new FileError('the file has no header');
  return { lines, extraColumns: header.extraColumns };
}

/** A cell as text: numbers as written, formulas by their result, rich text and links by their text. */
function cellText(value: ExcelJS.CellValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if ('richText' in value) return value.richText.map((r) => r.text).join('');
  if ('formula' in value || 'sharedFormula' in value) return cellText((value as { result?: ExcelJS.CellValue }).result ?? '');
  if ('text' in value) return cellText(value.text);
  if ('error' in value) return String(value.error);
  return '';
}

async function readXlsx(body: Buffer): Promise<ReadFile> {
  // ExcelJS's zip reader fails on an empty stream outside the iteration (an unhandled error): refused here.
  if (body.length === 0) throw new FileError('the file is empty: an XLSX file is a ZIP archive');
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(Readable.from([body]), {
    entries: 'emit',
    sharedStrings: 'cache',
    hyperlinks: 'ignore',
    styles: 'ignore',
    worksheets: 'emit',
  });
  let header: Header | undefined;
  const lines: RawLine[] = [];
  try {
    for await (const sheet of reader) {
      for await (const row of sheet as AsyncIterable<ExcelJS.Row>) {
        const values = row.values as ExcelJS.CellValue[];
        // ExcelJS numbers cells from 1: position 0 is always empty.
        const cells = values.slice(1).map(cellText);
        for (let i = 0; i < cells.length; i++) cells[i] ??= '';
        if (header === undefined) {
          if (blank(cells)) continue;
          header = new Header(cells, row.number);
          continue;
        }
        if (blank(cells)) continue;
        if (lines.length >= MAX_LINES) throw new TooManyLines();
        lines.push(header.line(row.number, cells));
      }
      // The first sheet only.
      break;
    }
  } catch (error) {
    if (error instanceof FileError || error instanceof TooManyLines) throw error;
    throw new FileError(`the file cannot be read as XLSX (${error instanceof Error ? error.message : String(error)})`);
  }
  if (header === undefined) throw new FileError('the file has no header (its first sheet is empty)');
  return { lines, extraColumns: header.extraColumns };
}

/** NDJSON has no header line: the columns are the names the objects use, in the order first met. */
async function readNdjson(body: Buffer): Promise<ReadFile> {
  const text = utf8(body).replace(/^\uFEFF/, '');
  const lines: RawLine[] = [];
  const extraColumns: string[] = [];
  let sawKnown = false;
  let linea = 0;
  for (const part of text.split('\n')) {
    linea++;
    if (part.trim() === '') continue;
    let object: unknown;
    try {
      object = JSON.parse(part);
    } catch {
      throw new FileError('the line is not JSON', linea);
    }
    if (object === null || typeof object !== 'object' || Array.isArray(object)) throw new FileError('the line is not a JSON object', linea);
    if (lines.length >= MAX_LINES) throw new TooManyLines();
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
    lines.push({ linea, values, extra });
  }
  // Await-free parsing above; kept async so that every reader has one shape.
  await Promise.resolve();
  if (lines.length === 0) throw new FileError('the file has no lines');
  if (!sawKnown) throw new FileError('no line has a descripcion or a fraccion field');
  return { lines, extraColumns };
}

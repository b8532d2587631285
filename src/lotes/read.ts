/**
 * A batch's file read as lines (../shared/spec/lotes.md, "Sending a batch"): CSV (rows.ts: RFC 4180, a
 * BOM, `;` when the header uses it), XLSX (xlsx.ts: the first sheet, its first row the header, every
 * cell read as text) or NDJSON. A file that cannot be read as its type, has no header, no line under
 * it, or has neither a `descripcion` nor a `fraccion` column is refused whole (FileError names the
 * problem and the line); a line's bad values are the line's business (columns.ts). Every bound of
 * limits.ts is checked as the file is read, and the reading lets the event loop through every 8 ms
 * (src/turns.ts), so no file holds the service, whatever its shape.
 */
import { buffer } from 'node:stream/consumers';
import type { Column, RawLine } from './columns.js';
import { knownColumn } from './columns.js';
import { FileError, LIMITS, TooLarge, TooManyLines } from './limits.js';
import type { SheetRow, Width } from './rows.js';
import { readerTurns, countRow, csvRows } from './rows.js';
import { xlsxRows } from './xlsx.js';

export { FileError, LIMITS, TooLarge, TooManyLines } from './limits.js';

export const MAX_LINES = LIMITS.lines;
export const MAX_BYTES = LIMITS.bytes;

export const FORMATS = {
  csv: 'text/csv',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ndjson: 'application/x-ndjson',
} as const;
export type FileFormat = keyof typeof FORMATS;

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

/**
 * The lines read so far, handed on CHUNK_LINES at a time; counts lines and
 * their text against LIMITS, and lets the event loop through when its turn is over.
 */
class Chunks {
  private pending: RawLine[] = [];
  count = 0;
  private characters = 0;
  private readonly turns = readerTurns();
  /** What the taker or the bytes' source threw: their failures, never called the file's. */
  private readonly notTheFile = new Set<unknown>();

  constructor(private readonly take: TakeLines) {}

  /** Whether `error` came from parsing the file (to be refused as a FileError), not from the taker, the source or a refusal already made. */
  fromParser(error: unknown): boolean {
    return !(error instanceof FileError || error instanceof TooLarge || this.notTheFile.has(error));
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

  /**
   * Lets the event loop through when reading has run its turn: then a promise to await, else nothing.
   * Asked for every line, it makes no promise of its own the many times there is nothing to wait for.
   */
  breathe(): Promise<void> | undefined {
    return this.turns.due() ? this.turns.pause() : undefined;
  }

  /**
   * A line kept; `characters` is its text (values, and the names of its extra columns, which are stored
   * with it). A promise to await when a chunk was handed on, else nothing: a line that only joins the
   * chunk makes no promise. A bound passed throws at once.
   */
  add(line: RawLine, characters: number): Promise<void> | undefined {
    if (this.count >= LIMITS.lines) throw new TooManyLines();
    if (characters > LIMITS.lineCharacters) throw new FileError('LOTE_LINE_TOO_LONG', { characters, max: LIMITS.lineCharacters }, line.linea);
    this.characters += characters;
    if (this.characters > LIMITS.textCharacters) {
      throw new TooLarge('LOTE_TOO_MUCH_TEXT', { max: LIMITS.textCharacters });
    }
    this.count++;
    this.pending.push(line);
    return this.pending.length >= CHUNK_LINES ? this.flush() : undefined;
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
    if (cells.every((c) => c.trim() === '')) throw new FileError('LOTE_HEADER_EMPTY', {}, line);
    const characters = this.names.reduce((n, name) => n + name.length, 0);
    if (characters > LIMITS.lineCharacters) throw new FileError('LOTE_HEADER_TOO_LONG', { characters, max: LIMITS.lineCharacters }, line);
    this.known = cells.map(knownColumn);
    if (!this.known.includes('descripcion') && !this.known.includes('fraccion')) {
      throw new FileError('LOTE_HEADER_NO_KEY', {}, line);
    }
    this.extraColumns = this.names.filter((_, i) => this.known[i] === undefined);
  }

  /** The width a row may have: the header's. */
  get width(): Width {
    return { columns: this.names.length, header: true };
  }

  /** A row as a line, and the characters it stores. */
  line(linea: number, cells: readonly string[]): [RawLine, number] {
    const values: Partial<Record<Column, string>> = {};
    const extra: Record<string, string> = {};
    let characters = 0;
    cells.forEach((cell, i) => {
      const column = this.known[i];
      if (column !== undefined) {
        values[column] ??= cell;
        characters += cell.length;
      } else {
        const name = this.names[i]!;
        extra[name] = cell;
        characters += name.length + cell.length;
      }
    });
    return [{ linea, values, extra }, characters];
  }
}

/**
 * The most handed on at once: the readers hold a piece's rows, not the file's, whatever size the
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
      throw new FileError('LOTE_NOT_UTF8');
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
  const pieces: string[] = [];
  let ended = false;
  // Each piece is looked at once, and no more of the text than a header may hold is gathered to look at.
  for (let seen = false, length = 0; !seen && length <= LIMITS.lineCharacters;) {
    const next = await text.next();
    if (next.done === true) {
      ended = true;
      break;
    }
    pieces.push(next.value);
    length += next.value.length;
    seen = next.value.includes('\n');
  }
  async function* all(): AsyncGenerator<string> {
    yield* pieces;
    for (let next = ended ? undefined : await text.next(); next !== undefined && next.done !== true; next = await text.next()) yield next.value;
  }
  const head = pieces.join('').slice(0, LIMITS.lineCharacters * 2);
  const newline = head.indexOf('\n');
  return { line: newline === -1 ? head : head.slice(0, newline), all: all() };
}

/**
 * CSV and XLSX: rows, the first non-blank one the header; a row holds no more cells than the header.
 * The readers hand rows on a few at a time (the header alone, so that the rows after it are read with its width).
 */
async function readRows(rows: (width: Width) => AsyncIterable<readonly SheetRow[]>, chunks: Chunks, what: string): Promise<ReadFile> {
  const width: Width = { columns: LIMITS.columns, header: false };
  let header: Header | undefined;
  try {
    for await (const some of rows(width)) {
      for (const row of some) {
        const pause = chunks.breathe();
        if (pause !== undefined) await pause;
        if (header === undefined) {
          // The spec: an XLSX file's first row is its header (a CSV's first line that is not blank).
          if (what === 'XLSX' && row.linea !== 1) throw new FileError('LOTE_XLSX_FIRST_ROW_EMPTY', {}, 1);
          header = new Header(row.cells, row.linea);
          Object.assign(width, header.width);
          continue;
        }
        const taken = chunks.add(...header.line(row.linea, row.cells));
        if (taken !== undefined) await taken;
      }
    }
    await chunks.flush();
  } catch (error) {
    if (!chunks.fromParser(error)) throw error;
    throw new FileError('LOTE_UNREADABLE', { format: what, reason: error instanceof Error ? error.message : String(error) });
  }
  if (header === undefined) throw new FileError(what === 'XLSX' ? 'LOTE_XLSX_NO_HEADER' : 'LOTE_NO_HEADER');
  if (chunks.count === 0) throw new FileError('LOTE_NO_LINES');
  return { lines: chunks.count, extraColumns: header.extraColumns };
}

async function readCsv(bytes: AsyncIterable<Uint8Array>, chunks: Chunks): Promise<ReadFile> {
  const text = await firstLine(utf8(bytes)[Symbol.asyncIterator]());
  // `;` is the separator of spreadsheets saved with a decimal comma; the header says which one the file uses.
  const count = (c: string): number => text.line.split(c).length - 1;
  const delimiter = count(';') > count(',') ? ';' : ',';
  return readRows((width) => csvRows(text.all, delimiter, width), chunks, 'CSV');
}

async function readXlsx(body: Buffer, chunks: Chunks): Promise<ReadFile> {
  return readRows((width) => xlsxRows(body, width), chunks, 'XLSX');
}

/** How deep arrays and objects nest in a JSON text, strings aside; looked at before the text is parsed. */
function depthOf(json: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) deepest = Math.max(deepest, ++depth);
    else if (c === 93 || c === 125) depth--;
  }
  return deepest;
}

/** NDJSON has no header line: the columns are the names the objects use, in the order first met. */
async function readNdjson(bytes: AsyncIterable<Uint8Array>, chunks: Chunks): Promise<ReadFile> {
  const extraColumns: string[] = [];
  const extraNames = new Set<string>();
  let sawKnown = false;
  let linea = 0;
  const line = async (part: string): Promise<void> => {
    linea = countRow(linea);
    if (part.trim() === '') return;
    const pause = chunks.breathe();
    if (pause !== undefined) await pause;
    if (depthOf(part) > LIMITS.depth) throw new FileError('LOTE_NDJSON_TOO_DEEP', { max: LIMITS.depth }, linea);
    let object: unknown;
    try {
      object = JSON.parse(part);
    } catch {
      throw new FileError('LOTE_NDJSON_NOT_JSON', {}, linea);
    }
    if (object === null || typeof object !== 'object' || Array.isArray(object)) throw new FileError('LOTE_NDJSON_NOT_OBJECT', {}, linea);
    const entries = Object.entries(object as Record<string, unknown>);
    if (entries.length > LIMITS.columns) throw new FileError('LOTE_NDJSON_TOO_MANY_FIELDS', { fields: entries.length, max: LIMITS.columns }, linea);
    const values: Partial<Record<Column, string>> = {};
    const extra: Record<string, unknown> = {};
    let characters = 0;
    for (const [name, value] of entries) {
      // The known columns are read as text (a number's JSON is its text); the others are kept as sent, with their JSON types.
      const cell = value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);
      characters += name.length + cell.length;
      const column = knownColumn(name);
      if (column !== undefined) {
        sawKnown ||= column === 'descripcion' || column === 'fraccion';
        values[column] ??= cell;
      } else {
        extra[name] = value;
        if (!extraNames.has(name)) {
          extraNames.add(name);
          extraColumns.push(name);
          if (extraNames.size > LIMITS.columns) throw new FileError('LOTE_NDJSON_TOO_MANY_NAMES', { max: LIMITS.columns }, linea);
        }
      }
    }
    const taken = chunks.add({ linea, values, extra }, characters);
    if (taken !== undefined) await taken;
  };
  const tooLong = (): FileError => new FileError('LOTE_NDJSON_LINE_TOO_LONG', { max: LIMITS.ndjsonLineCharacters }, linea + 1);
  // A line cut between pieces is carried to the next one (in pieces: never joined again and again).
  let carried: string[] = [];
  let carriedLength = 0;
  for await (const text of utf8(bytes)) {
    let start = 0;
    for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', start)) {
      if (carriedLength + newline - start > LIMITS.ndjsonLineCharacters) throw tooLong();
      carried.push(text.slice(start, newline));
      await line(carried.join(''));
      carried = [];
      carriedLength = 0;
      start = newline + 1;
    }
    carried.push(text.slice(start));
    carriedLength += text.length - start;
    if (carriedLength > LIMITS.ndjsonLineCharacters) throw tooLong();
  }
  await line(carried.join(''));
  await chunks.flush();
  if (chunks.count === 0) throw new FileError('LOTE_NDJSON_NO_LINES');
  if (!sawKnown) throw new FileError('LOTE_NDJSON_NO_KEY');
  return { lines: chunks.count, extraColumns };
}

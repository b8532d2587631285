/**
 * A tabular file's rows, before any is a line: what the CSV reader here and the XLSX reader
 * (xlsx.ts) hand on. A row holds at most `Width.columns` cells: past the header's width (or, before
 * the header, LIMITS.columns) a cell with text refuses the file and a blank one is never held, so no
 * row costs more than the header allows, however many separators or cells it claims.
 */
import { Turns } from '../turns.js';
import { FileError, LIMITS, TooLarge } from './limits.js';

/** How long a reader runs before it lets the event loop through (a /health, a lookup, another upload). */
const SLICE_MS = 8;

/** The turns of a reader on the event loop, SLICE_MS each. */
export const readerTurns = (): Turns => new Turns(SLICE_MS);

export interface SheetRow {
  /** The row's number in the file: the line where it begins (CSV), its row number (XLSX). */
  readonly linea: number;
  /** The cells' texts, up to the last non-empty one. */
  readonly cells: string[];
}

/** How many cells a row may hold: the header's width once it is read (`header`), else LIMITS.columns. */
export interface Width {
  columns: number;
  header: boolean;
}

/** Counts one more row, blank or not, against LIMITS.rows: a file of blank rows costs as much to read as one of lines. */
export function countRow(rows: number): number {
  if (rows >= LIMITS.rows) throw new TooLarge('LOTE_TOO_MANY_ROWS', { max: LIMITS.rows });
  return rows + 1;
}

/** A row with no text in any cell (blank rows are counted, never handed on). */
export const blankRow = (cells: readonly string[]): boolean => cells.every((c) => c.trim() === '');

export const beyondWidth = (linea: number, column: number, width: Width): FileError =>
  width.header
    ? new FileError('LOTE_PAST_HEADER', { column, columns: width.columns }, linea)
    : new FileError('LOTE_TOO_MANY_COLUMNS', { max: LIMITS.columns }, linea);

/**
 * Rows the CSV reader hands on at once (one step of its generator rather than one a row). Few: the rows
 * of a whole 64 KiB piece (some 8,000 short ones) outlived the young generation while the reader
 * worked them, and the collector's work doubled.
 */
const ROWS_AT_ONCE = 64;

const QUOTE = 34;
const CR = 13;
const LF = 10;

const enum State {
  FieldStart,
  Unquoted,
  Quoted,
  /** A quote inside a quoted field: the next character says whether it closed the field or was doubled. */
  QuoteInQuoted,
}

/**
 * RFC 4180 rows of `text` that hold some text (blank ones are counted, not handed on) (pieces as they come), separated by `delimiter`: quoted fields may hold
 * separators, line breaks and doubled quotes; a quote inside an unquoted field, or after a closing
 * quote, is taken as a character (as csv-parse's `relax_quotes` did). CRLF, LF and CR end a row.
 * A piece's characters are looked at once each: the work is the file's length, whatever its shape.
 * The rows are handed on ROWS_AT_ONCE at a time (one step of the generator and its promises, not one
 * a row), and at the end of each piece; before the header is known (`width.header`) each row alone,
 * so that the rows after it are read with its width. Rows read before a refusal are handed on before
 * it, as one at a time they were.
 */
export async function* csvRows(text: AsyncIterable<string>, delimiter: string, width: Width): AsyncGenerator<SheetRow[]> {
  const DELIMITER = delimiter.charCodeAt(0);
  let line = 1;
  let rowLine = 1;
  let quoteLine = 1;
  let afterCr = false;
  let state = State.FieldStart;
  let field = '';
  let cells: string[] = [];
  let column = 0;
  let rowCharacters = 0;
  let rows = 0;
  const turns = readerTurns();

  const grow = (piece: string): void => {
    field += piece;
    if (field.length > LIMITS.lineCharacters) throw new FileError('LOTE_VALUE_TOO_LONG', { max: LIMITS.lineCharacters }, rowLine);
  };
  const endField = (): void => {
    rowCharacters += field.length;
    if (rowCharacters > LIMITS.lineCharacters) throw new FileError('LOTE_ROW_TOO_LONG', { max: LIMITS.lineCharacters }, rowLine);
    if (column < width.columns) cells.push(field);
    else if (field.trim() !== '') throw beyondWidth(rowLine, column + 1, width);
    column++;
    field = '';
    state = State.FieldStart;
  };
  /** The rows ended and not handed on yet. */
  let ended: SheetRow[] = [];
  /** Ends the row, kept unless it is blank; whether the rows kept are handed on now (ROWS_AT_ONCE of them, or any before the header). */
  const endRow = (): boolean => {
    endField();
    rows = countRow(rows);
    while (cells.length > 0 && cells.at(-1) === '') cells.pop();
    if (!blankRow(cells)) ended.push({ linea: rowLine, cells });
    cells = [];
    column = 0;
    rowCharacters = 0;
    rowLine = line;
    return ended.length >= (width.header ? ROWS_AT_ONCE : 1);
  };
  const handOn = (): SheetRow[] => {
    const out = ended;
    ended = [];
    return out;
  };

  try {
    for await (const piece of text) {
      let runStart = state === State.Unquoted || state === State.Quoted ? 0 : -1;
      for (let i = 0; i < piece.length; i++) {
        if ((i & 0x3ff) === 0 && turns.due()) await turns.pause();
        const c = piece.charCodeAt(i);
        const wasCr = afterCr;
        afterCr = c === CR;
        if (c === CR || (c === LF && !wasCr)) line++;
        switch (state) {
          case State.FieldStart:
            if (c === QUOTE) {
              state = State.Quoted;
              quoteLine = line;
              runStart = i + 1;
            } else if (c === DELIMITER) {
              endField();
            } else if (c === LF && wasCr) {
              // The LF of a CRLF whose CR ended the row.
              rowLine = line;
            } else if (c === CR || c === LF) {
              if (endRow()) yield handOn();
            } else {
              state = State.Unquoted;
              runStart = i;
            }
            break;
          case State.Unquoted:
            if (c === DELIMITER || c === CR || c === LF) {
              grow(piece.slice(runStart, i));
              runStart = -1;
              if (c === DELIMITER) endField();
              else if (endRow()) yield handOn();
            }
            break;
          case State.Quoted:
            if (c === QUOTE) {
              grow(piece.slice(runStart, i));
              runStart = -1;
              state = State.QuoteInQuoted;
            }
            break;
          case State.QuoteInQuoted:
            if (c === QUOTE) {
              // A doubled quote: the second one is the character, and the field goes on.
              state = State.Quoted;
              runStart = i;
            } else if (c === DELIMITER) {
              endField();
            } else if (c === CR || c === LF) {
              if (endRow()) yield handOn();
            } else {
              grow('"');
              state = State.Unquoted;
              runStart = i;
            }
            break;
        }
      }
      if (runStart !== -1) grow(piece.slice(runStart));
      if (ended.length > 0) yield handOn();
    }
    if (state === State.Quoted) throw new FileError('LOTE_CSV_QUOTE_OPEN', {}, quoteLine);
    if (state !== State.FieldStart || column > 0 || field !== '') {
      endRow();
      if (ended.length > 0) yield handOn();
    }
  } catch (error) {
    // The rows read before the refusal go first, as they did one at a time.
    if (ended.length > 0) yield handOn();
    throw error;
  }
}

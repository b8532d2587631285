/**
 * What one batch file may cost (issue 43): every bound is checked while the file is read, before the
 * work it would cause, and a file past one is refused whole, naming it: a 413 for what is too large
 * (bytes, lines, rows, expanded XLSX parts, text), a 422 for a file shaped past a bound (columns, keys,
 * nesting, a line's text). docs/lotes.md says why each is where it is.
 */
import type { ErrorCode, ErrorParams } from '../error-codes.js';
import { errorMessage } from '../error-codes.js';
import { MAX_BATCH_BYTES, MAX_BATCH_LINES } from '../limites.js';

export const LIMITS = {
  /** Lines kept (blank lines aside): the spec's 100,000. */
  lines: MAX_BATCH_LINES,
  /** Bytes of the file as sent: the spec's 20 MiB. */
  bytes: MAX_BATCH_BYTES,
  /** Rows read, blank ones included: a file of blank rows costs as much to read as one of lines. */
  rows: 200_000,
  /** Columns of the header (known and extra), keys of an NDJSON line, distinct keys of an NDJSON file. */
  columns: 256,
  /** Characters of one line's cells (and of the header's names), all columns together. */
  lineCharacters: 16_384,
  /** Characters of all the lines kept: what the working database stores for the batch, whatever the file claims. */
  textCharacters: 40 * 1024 * 1024,
  /** Characters of one NDJSON line, its JSON syntax included. */
  ndjsonLineCharacters: 256 * 1024,
  /** Arrays and objects inside one another in an NDJSON line. */
  depth: 32,
  /** Bytes the XLSX parts read (workbook, relations, shared strings, the first sheet) expand to, together. */
  xlsxExpandedBytes: 128 * 1024 * 1024,
  /** Bytes the shared strings part expands to: its strings are held while the sheet is read. */
  sharedStringsBytes: 24 * 1024 * 1024,
  /** Expanded to compressed size of a part over 1 MiB: beyond it the part is a zip bomb. */
  xlsxRatio: 200,
  /** Characters of one sheet row's XML. */
  rowXmlCharacters: 4 * 1024 * 1024,
} as const;

/** The file cannot be taken as it is (a 422): `line` is the line where that shows, when there is one. */
export class FileError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly params: ErrorParams = {},
    readonly line?: number,
  ) {
    const message = errorMessage(code, params);
    super(line === undefined ? message : `line ${line}: ${message}`);
  }
}

/** The file is larger than a bound (a 413); the message names the bound. */
export class TooLarge extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly params: ErrorParams = {},
  ) {
    super(errorMessage(code, params));
  }
}

/** More lines than a batch takes (a 413). */
export class TooManyLines extends TooLarge {
  constructor() {
    super('LOTE_TOO_MANY_LINES', { max: LIMITS.lines });
  }
}

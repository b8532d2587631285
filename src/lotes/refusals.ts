/**
 * Why a file cannot be read, in the service's words: the parsers' own messages (csv-parse's
 * `Invalid Closing Quote: …`, the ZIP reader's `invalid signature: 0x…` or `FILE_ENDED`) describe
 * their internals, not the file, and are not the project's to show a client.
 */

/** csv-parse's codes for what is wrong with a file (the others are about its options, never a client's). */
const CSV_PROBLEMS: Readonly<Record<string, string>> = {
  CSV_QUOTE_NOT_CLOSED: 'a quoted value is not closed before the end of the file',
  CSV_INVALID_CLOSING_QUOTE: 'a quote closes a value in the middle of it',
  CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE: 'a value goes on after its closing quote',
  CSV_MAX_RECORD_SIZE: 'a line is too long',
  CSV_RECORD_INCONSISTENT_FIELDS_LENGTH: 'a line has more columns than the header',
  CSV_RECORD_INCONSISTENT_COLUMNS: 'a line has more columns than the header',
};

/** What a CSV parser's error says of the file. */
export function csvProblem(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return `the file cannot be read as CSV: ${(typeof code === 'string' && CSV_PROBLEMS[code]) || 'it is not CSV text (RFC 4180)'}`;
}

/** What an XLSX reader's error says of the file: whatever the ZIP or XML reader stumbled on, the file is not a whole workbook. */
export const XLSX_UNREADABLE = 'the file cannot be read as XLSX: it is not a complete XLSX workbook (a ZIP archive holding its worksheets)';

/**
 * A record set as CSV in exactly the form `import` reads back: RFC 4180 (CRLF, quotes only where
 * needed), a header of the field names in registry order, an empty field for null. Written by
 * `export` and served by `/api/v1/descargas`, in batches so that memory stays flat whatever the size.
 */
import type { RecordSet } from '../record-sets/define.js';
import type { Values } from '../store/store.js';

/** Rows are handed on in batches of about this many characters: few writes, bounded memory. */
export const BATCH_CHARS = 64 * 1024;

const NEEDS_QUOTES = /[",\r\n]/;

/** One line: numbers as they are (a number's text never needs quotes), null empty, a text quoted only where needed. */
function csvLine(values: Values): string {
  let line = '';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) line += ',';
    const value = values[i];
    if (value === null) continue;
    if (typeof value === 'number') {
      line += String(value);
      continue;
    }
    const text = String(value);
    line += NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  }
  return `${line}\r\n`;
}

/**
 * The CSV text of `rows`, header first, in batches; `counted` is told the number of rows at the end.
 * Rows a store gives synchronously (an export) are read without a promise each: the same text, a
 * fraction of the work.
 */
export async function* csvBatches(rs: RecordSet, rows: AsyncIterable<Values> | Iterable<Values>, counted?: (rows: number) => void): AsyncGenerator<string> {
  let batch = csvLine(rs.fields.map((f) => f.name));
  let count = 0;
  /** Adds a row; the batch when it is full (then begun again), else undefined. */
  const add = (row: Values): string | undefined => {
    batch += csvLine(row);
    count++;
    if (batch.length < BATCH_CHARS) return undefined;
    const full = batch;
    batch = '';
    return full;
  };
  if (Symbol.iterator in rows) {
    for (const row of rows) {
      const full = add(row);
      if (full !== undefined) yield full;
    }
  } else {
    for await (const row of rows) {
      const full = add(row);
      if (full !== undefined) yield full;
    }
  }
  yield batch;
  counted?.(count);
}

/**
 * A record set as CSV in exactly the form `import` reads back: RFC 4180 (CRLF, quotes only where
 * needed), a header of the field names in registry order, an empty field for null. Written by
 * `export` and served by `/api/v1/descargas`, in batches so that memory stays flat whatever the size.
 */
import type { RecordSet } from '../record-sets/define.js';
import type { Values } from '../store/store.js';

/** Rows are handed on in batches of about this many characters: few writes, bounded memory. */
export const BATCH_CHARS = 64 * 1024;

function csvField(value: string | number | null): string {
  if (value === null) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const csvLine = (values: Values): string => `${values.map(csvField).join(',')}\r\n`;

/** The CSV text of `rows`, header first, in batches; `counted` is told the number of rows at the end. */
export async function* csvBatches(rs: RecordSet, rows: AsyncIterable<Values> | Iterable<Values>, counted?: (rows: number) => void): AsyncGenerator<string> {
  let batch = csvLine(rs.fields.map((f) => f.name));
  let count = 0;
  for await (const row of rows) {
    batch += csvLine(row);
    count++;
    if (batch.length >= BATCH_CHARS) {
      yield batch;
      batch = '';
    }
  }
  yield batch;
  counted?.(count);
}

/**
 * A batch's results as a file (../shared/spec/lotes.md, "Reading the results"): CSV (written here: RFC 4180 with every risky field quoted),
 * XLSX (ExcelJS's streaming writer) and NDJSON, written page by page as they are read, so a download
 * of 100,000 lines never holds them all. The table is the same in CSV and XLSX, its columns as the
 * result columns' table says (src/lotes/result-columns.ts): one per scalar field, the lists
 * (`reemplazada_por`, `candidatas`) as JSON, one per part of an object, then the file's extra columns. A client's
 * text never becomes a formula: XLSX cells are strings (without the characters XML 1.0 forbids, which
 * would make the file unreadable), and in CSV a text beginning with `=`, `+`, `-`, `@`, a tab, a
 * carriage return or a line feed gets a leading `'` (OWASP, CSV injection), as does every line and
 * every `;`- or `,`-separated piece inside a text that begins so; a field holding CR, LF, `;`, `,` or
 * `"` is quoted.
 */
import { PassThrough } from 'node:stream';
import type { Readable } from 'node:stream';
import type { Resultado } from './answer.js';
import { loadExcelJS } from './excel.js';
import { FILE_COLUMNS } from './result-columns.js';

type Cell = string | number;

const cell = (value: unknown): Cell => {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return value;
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return JSON.stringify(value);
};

/** One result as the table's row: the result columns' cells (src/lotes/result-columns.ts), then the extra columns'. */
export function tableRow(r: Resultado, extraColumns: readonly string[]): Cell[] {
  return [...FILE_COLUMNS.map((c) => cell(c.value(r))), ...extraColumns.map((c) => cell(r.extra[c]))];
}

/**
 * OWASP's advice: a text a spreadsheet would read as a formula starts with a `'` instead. A quoted
 * field is one cell only to a reader that splits on our `,` and honours quotes: Excel in a `;` locale
 * splits the row at every `;` and every line break, quotes or not, and a naive reader at every `,`.
 * So whatever follows a line break, a `;` or a `,` inside a text (and any quotes after it) is
 * neutralised too when it would start a formula, and so is a text that begins with a line break.
 */
export function neutralised(value: Cell): Cell {
  if (typeof value !== 'string') return value;
  const first = /^[=+\-@\t\r\n]/.test(value) ? `'${value}` : value;
  return first.replace(/([\r\n;,]+"*)(?=[=+\-@\t])/g, "$1'");
}

/**
 * A CSV field: quoted when it holds a line break, a quote or either separator (`,` ours, `;` a
 * spreadsheet's in a decimal-comma locale, which opens the file with it), so that no text ever
 * splits into cells or rows of its own.
 */
export function csvField(value: Cell): string {
  const text = String(neutralised(value));
  return /[\r\n;,"]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const csvRow = (cells: readonly Cell[]): string => `${cells.map(csvField).join(',')}\r\n`;

/** XML 1.0 allows no C0 control but tab, CR and LF, no U+FFFE/U+FFFF and no lone surrogate: an XLSX holding one cannot be opened. */
// eslint-disable-next-line no-control-regex -- the characters XML forbids are control characters
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** A cell as XML may hold it: the characters it forbids dropped. */
export const xmlSafe = (value: Cell): Cell => (typeof value === 'string' ? value.replace(NOT_XML, '') : value);

const header = (extraColumns: readonly string[]): string[] => [...FILE_COLUMNS.map((c) => c.header), ...extraColumns];

export async function* csvChunks(pages: AsyncIterable<Resultado[]>, extraColumns: readonly string[]): AsyncGenerator<string> {
  yield `\uFEFF${csvRow(header(extraColumns))}`;
  for await (const page of pages) yield page.map((r) => csvRow(tableRow(r, extraColumns))).join('');
}

export async function* ndjsonChunks(pages: AsyncIterable<Resultado[]>): AsyncGenerator<string> {
  for await (const page of pages) yield page.map((r) => `${JSON.stringify(r)}\n`).join('');
}

/** The XLSX workbook as a stream: one sheet, `resultados`, its rows committed as each page comes. */
export function xlsxStream(pages: AsyncIterable<Resultado[]>, extraColumns: readonly string[]): Readable {
  const out = new PassThrough();
  void (async () => {
    const ExcelJS = await loadExcelJS();
    const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useSharedStrings: false, useStyles: false });
    const sheet = workbook.addWorksheet('resultados');
    sheet.addRow(header(extraColumns).map(xmlSafe)).commit();
    for await (const page of pages) {
      // Text goes in as string values: ExcelJS writes them as string cells, never as formulas.
      for (const r of page) sheet.addRow(tableRow(r, extraColumns).map(xmlSafe)).commit();
      // The next page waits for a client that reads slower than the pages come: the file is never held whole.
      if (out.writableNeedDrain) await drainedOrClosed(out);
      if (out.destroyed) return;
    }
    sheet.commit();
    await workbook.commit();
  })().catch((error: unknown) => out.destroy(error instanceof Error ? error : new Error(String(error))));
  return out;
}

/** When `out` can take more, or is gone (a client that left never drains it). */
function drainedOrClosed(out: PassThrough): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      out.off('drain', done);
      out.off('close', done);
      resolve();
    };
    out.on('drain', done);
    out.on('close', done);
  });
}

/**
 * A batch's results as a file (../shared/spec/lotes.md, "Reading the results"): CSV (csv-stringify),
 * XLSX (ExcelJS's streaming writer) and NDJSON, written page by page as they are read, so a download
 * of 100,000 lines never holds them all. The table is the same in CSV and XLSX: one column per scalar
 * field, the lists (`reemplazada_por`, `candidatas`) as JSON, then the file's extra columns. A client's
 * text never becomes a formula: XLSX cells are strings, and a CSV cell beginning with `=`, `+`, `-`,
 * `@`, a tab or a carriage return gets a leading `'` (OWASP, CSV injection).
 */
import { PassThrough } from 'node:stream';
import type { Readable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import type { Resultado } from './answer.js';
import { loadExcelJS } from './excel.js';

export const TABLE_COLUMNS = [
  'linea',
  'referencia',
  'descripcion',
  'fraccion',
  'nico',
  'estado_fraccion',
  'reemplazada_por',
  'candidatas',
  'coincide',
  'igi_tasa',
  'igi_tipo',
  'igi_texto',
  'preferencia_tratamiento',
  'preferencia_acuerdo',
  'preferencia_tasa',
  'sin_datos_preferencia',
  'requisitos_permisos',
  'requisitos_regulaciones',
  'requisitos_noms',
  'requisitos_cupos',
  'contribuciones_total_general',
  'contribuciones_total_mejor',
  'contribuciones_mejor_opcion',
  'revisar',
  'error',
] as const;

type Cell = string | number;

const cell = (value: unknown): Cell => {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return value;
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return JSON.stringify(value);
};

/** One result as the table's row. */
export function tableRow(r: Resultado, extraColumns: readonly string[]): Cell[] {
  return [
    r.linea,
    cell(r.referencia),
    cell(r.descripcion),
    cell(r.fraccion),
    cell(r.nico),
    r.estado_fraccion,
    cell(r.reemplazada_por),
    cell(r.candidatas),
    cell(r.coincide),
    cell(r.igi?.tasa),
    cell(r.igi?.tipo),
    cell(r.igi?.texto),
    cell(r.preferencia?.tratamiento),
    cell(r.preferencia?.acuerdo),
    cell(r.preferencia?.tasa),
    cell(r.sin_datos_preferencia),
    cell(r.requisitos?.permisos),
    cell(r.requisitos?.regulaciones),
    cell(r.requisitos?.noms),
    cell(r.requisitos?.cupos),
    cell(r.contribuciones?.total_general),
    cell(r.contribuciones?.total_mejor),
    cell(r.contribuciones?.mejor_opcion),
    cell(r.revisar),
    cell(r.error),
    ...extraColumns.map((c) => cell(r.extra[c])),
  ];
}

/** OWASP's advice: a cell a spreadsheet would read as a formula starts with a `'` instead. */
export function neutralised(value: Cell): Cell {
  return typeof value === 'string' && /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

const header = (extraColumns: readonly string[]): string[] => [...TABLE_COLUMNS, ...extraColumns];

export async function* csvChunks(pages: AsyncIterable<Resultado[]>, extraColumns: readonly string[]): AsyncGenerator<string> {
  yield `\uFEFF${stringify([header(extraColumns).map(neutralised)], { record_delimiter: 'windows' })}`;
  for await (const page of pages) {
    yield stringify(
      page.map((r) => tableRow(r, extraColumns).map(neutralised)),
      { record_delimiter: 'windows', cast: { number: (n) => String(n) } },
    );
  }
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
    sheet.addRow(header(extraColumns)).commit();
    for await (const page of pages) {
      // Text goes in as string values: ExcelJS writes them as string cells, never as formulas.
      for (const r of page) sheet.addRow(tableRow(r, extraColumns)).commit();
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

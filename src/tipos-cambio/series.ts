/**
 * The exchange-rate series: the Banco de México FIX rate (pesos per US dollar, series SF43718) by the
 * banking day it was determined. Shipped as `data/tipos-cambio.csv`; an import folder may carry a
 * newer `tipos-cambio.csv` in its place. Each load writes the series into its version (a table beside
 * the record sets), so a version answers with the rates it was loaded with.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { projectRoot } from '../config-values.js';

export const TIPOS_CAMBIO_FILE = 'tipos-cambio.csv';
export const TIPOS_CAMBIO_COLUMNS = ['fecha', 'tipo_cambio'] as const;
/** The table every load writes the series into, beside the record sets. */
export const TIPOS_CAMBIO_TABLE = 'tipos_cambio';

/** A FIX: the day it was determined and the rate, as Banxico publishes it (a decimal string, never a float). */
export interface Fix {
  readonly fecha: string;
  readonly tipo_cambio: string;
}

/** The series shipped with the project (data/README.md gives its origin). */
export const shippedTiposCambioFile = join(projectRoot, 'data', 'tipos-cambio.csv');

/** Whether `text` is a real calendar date written `YYYY-MM-DD`. */
function isIsoDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text;
}

/** Up to four decimals as the DOF publishes them, the same form a request's `tipo_cambio` takes. */
const RATE = /^\d{1,13}(\.\d{1,4})?$/;

/**
 * Parses a series file; a malformed row is an error naming its line, so a bad file never loads half.
 * Rows may come in any order; the series is returned by date.
 */
export function parseTiposCambio(text: string, name = TIPOS_CAMBIO_FILE): Fix[] {
  const rows = parse<Record<string, string>>(text, { columns: true, bom: true, skip_empty_lines: true, trim: true });
  const first = rows[0];
  if (first) for (const c of TIPOS_CAMBIO_COLUMNS) if (!(c in first)) throw new Error(`${name}: no column ${c}`);
  const seen = new Map<string, number>();
  const series = rows.map((row, i): Fix => {
    const line = i + 2;
    const fecha = row['fecha'] ?? '';
    const rate = row['tipo_cambio'] ?? '';
    if (!isIsoDate(fecha)) throw new Error(`${name} line ${line}: fecha ${JSON.stringify(fecha)} is not a date YYYY-MM-DD`);
    if (!RATE.test(rate) || /^0*(\.0*)?$/.test(rate))
      throw new Error(`${name} line ${line}: tipo_cambio ${JSON.stringify(rate)} is not a positive decimal with at most 4 decimals`);
    const twice = seen.get(fecha);
    if (twice !== undefined) throw new Error(`${name} line ${line}: fecha ${fecha} is on line ${twice} too`);
    seen.set(fecha, line);
    return { fecha, tipo_cambio: rate };
  });
  return series.sort((a, b) => (a.fecha < b.fecha ? -1 : 1));
}

export const readTiposCambio = (path: string): Fix[] => parseTiposCambio(readFileSync(path, 'utf8'), path);

let shipped: Fix[] | undefined;
/** The shipped series, read once: every load without a file of its own writes it. */
export function shippedTiposCambio(): Fix[] {
  shipped ??= readTiposCambio(shippedTiposCambioFile);
  return shipped;
}

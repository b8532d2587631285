/**
 * Which exchange rate applies on a date (Código Fiscal de la Federación art. 20; Ley Aduanera art. 56):
 * the one Banxico published in the DOF the day before, or on days with no publication the last one
 * published before. Banxico publishes on each banking day the FIX determined on the banking day
 * before; the banking days are the dates of the series. So for a date D the rate is the FIX
 * determined on the banking day before the last publication day before D. Pure: the store gives the
 * few rows the rule reads (docs/contribuciones.md, "Tipo de cambio").
 */
import type { Fix } from './series.js';

export const FUENTE_TIPO_CAMBIO = 'Banco de México, tipo de cambio FIX (serie SF43718) publicado en el Diario Oficial de la Federación';
export const FUNDAMENTO_TIPO_CAMBIO =
  'Código Fiscal de la Federación art. 20 (tipo de cambio publicado por el Banco de México en el DOF el día anterior; sin publicación, el último publicado antes); Ley Aduanera art. 56 (fecha cuyas contribuciones se aplican)';

/** What the rule reads of a series around a date. */
export interface SeriesWindow {
  /** The first two FIX held, oldest first (fewer when the series is shorter). */
  readonly first: readonly Fix[];
  /** The last FIX held, or null when the series is empty. */
  readonly last: Fix | null;
  /** The two FIX determined last before the date, newest first. */
  readonly before: readonly Fix[];
}

/** The rate that applies on `fecha`, with the FIX it is and the DOF publication it was taken from. */
export interface TipoCambioAplicable {
  readonly fecha: string;
  readonly tipo_cambio: string;
  /** The banking day the FIX was determined. */
  readonly determinado: string;
  /** The publication day it was taken from: the last banking day before `fecha`. */
  readonly publicado_dof: string;
}

/** Why the series cannot settle a date, in words that name the dates it holds. */
export interface SinTipoCambio {
  readonly fecha: string;
  readonly motivo: string;
}

/** `YYYY-MM-DD` moved by whole days. */
export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/**
 * The dates a series settles: from the day after its second banking day (the first publication day
 * whose FIX it holds is that second day) to the day after its last (the next publication day after
 * the last FIX held is unknown, so later dates cannot be settled). Null when it settles none.
 */
export function settledRange(window: SeriesWindow): { desde: string; hasta: string } | null {
  const second = window.first[1];
  if (!second || !window.last) return null;
  return { desde: addDays(second.fecha, 1), hasta: addDays(window.last.fecha, 1) };
}

function heldDates(window: SeriesWindow): string {
  const range = settledRange(window);
  if (!window.last || !window.first[0]) return 'the data holds no exchange rates';
  const held = `the data holds the FIX determined from ${window.first[0].fecha} to ${window.last.fecha}`;
  return range === null ? `${held}, too few to settle any date` : `${held}, which settle the dates from ${range.desde} to ${range.hasta}`;
}

export function tipoCambioAplicable(fecha: string, window: SeriesWindow): TipoCambioAplicable | SinTipoCambio {
  const range = settledRange(window);
  const [published, determined] = window.before;
  if (range === null || fecha < range.desde || fecha > range.hasta || !published || !determined) {
    return { fecha, motivo: `No exchange rate for ${fecha}: ${heldDates(window)}` };
  }
  return { fecha, tipo_cambio: determined.tipo_cambio, determinado: determined.fecha, publicado_dof: published.fecha };
}

export const isAplicable = (answer: TipoCambioAplicable | SinTipoCambio): answer is TipoCambioAplicable => 'tipo_cambio' in answer;

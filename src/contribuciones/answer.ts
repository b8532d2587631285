/**
 * The answer of `POST /api/v1/contribuciones` for a checked request: the records of its fractions read
 * from the store, then the pure computation. The route and a batch's lines (src/lotes/) both come here
 * or, reading many lines' records at once, to the same two steps.
 */
import type { Answer } from './compute.js';
import { computeContribuciones, computeContribucionesPaced } from './compute.js';
import type { ContribucionesRequest } from './request.js';
import type { Source } from './sources.js';
import { countryKeys, readRecords } from './sources.js';
import type { Tables } from './tables.js';
import type { Store } from '../store/store.js';
import { tipoCambioOn } from '../tipos-cambio/lookup.js';

export interface ResultOptions {
  /** The store whose exchange-rate series converts dollars when the request gives no rate (docs/contribuciones.md). */
  readonly ratesStore: Store;
  /** Give the event loop a turn every few milliseconds (a request's answer), or compute at once (a batch's worker thread). */
  readonly paced?: boolean;
}

export async function contribucionesResult(
  store: Store,
  sources: readonly Source[],
  tables: Tables,
  parameters: ContribucionesRequest,
  options: ResultOptions,
): Promise<Answer> {
  const fractions = [...new Set(parameters.partidas.map((p) => p.fraccion))];
  const records = await readRecords(store, sources, fractions, countryKeys(parameters.paisOrigen, tables.groups));
  const rate = parameters.tipoCambio ? undefined : await tipoCambioOn(options.ratesStore, parameters.fecha);
  return options.paced === true
    ? await computeContribucionesPaced(parameters, sources, records, tables, rate)
    : computeContribuciones(parameters, sources, records, tables, rate);
}

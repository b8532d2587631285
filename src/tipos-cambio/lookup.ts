/**
 * The exchange rate of a date from a version's series: the one function the route, contributions and
 * (later) batches call, so that every one of them applies the same rule to the same data.
 */
import type { Store } from '../store/store.js';
import type { SinTipoCambio, TipoCambioAplicable } from './rule.js';
import { tipoCambioAplicable } from './rule.js';

export async function tipoCambioOn(store: Store, fecha: string): Promise<TipoCambioAplicable | SinTipoCambio> {
  return tipoCambioAplicable(fecha, await store.tiposCambio(fecha));
}

/** The registry: every record set the service serves, in the order of the interface. */
import { aladi2 } from './aladi2.js';
import { cuotas2 } from './cuotas2.js';
import { cupos } from './cupos.js';
import { fracciones } from './fracciones.js';
import { fraccionesUsa } from './fracciones-usa.js';
import { fraccionesAnteriores } from './fracciones-anteriores.js';
import { fundamentosTlc } from './fundamentos-tlc.js';
import { informacionGeneral } from './informacion-general.js';
import { preciosEstimados2 } from './precios-estimados2.js';
import { prosec } from './prosec.js';
import { rcg2 } from './rcg2.js';
import { reit } from './reit.js';
import { requisitoPrevio } from './requisito-previo.js';
import { tlcs } from './tlcs.js';
import { vehiculosMarcas } from './vehiculos-marcas.js';
import { vehiculosModelos } from './vehiculos-modelos.js';
import { regulaciones } from './regulaciones.js';
import { ieps } from './ieps.js';
import { noms } from './noms.js';
import type { RecordSet } from './define.js';

/** Every record set with its own type: what a route whose answer is typed per record set is given (the ficha). */
export const registry = [
  aladi2,
  cuotas2,
  cupos,
  fracciones,
  fraccionesUsa,
  fraccionesAnteriores,
  fundamentosTlc,
  informacionGeneral,
  preciosEstimados2,
  prosec,
  rcg2,
  reit,
  requisitoPrevio,
  tlcs,
  vehiculosMarcas,
  vehiculosModelos,
  regulaciones,
  ieps,
  noms,
] as const satisfies readonly RecordSet[];

/** The registry's record sets each with its own type (path, filters, field names as declared): the ficha's type is derived from it. */
export type Registry = typeof registry;

export const recordSets: readonly RecordSet[] = registry;

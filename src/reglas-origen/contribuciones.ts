/**
 * What `POST /api/v1/contribuciones` says of rules of origin (../shared/spec/reglas-origen.md,
 * "Elsewhere"): a line with a `tlc` option names, in its notes, the rule of origin the goods must meet
 * under each of the origin's agreements in force whose rules are loaded (agreement, heading, the
 * address of the GET), or says that the data holds no rule of origin for the agreement.
 */
import type { ContribucionesAnswer } from '../contribuciones/schema.js';
import type { Tables } from '../contribuciones/tables.js';
import { agreementsOf } from '../contribuciones/tables.js';
import type { IndiceReglas } from './indice.js';
import { reglasDeCodigo } from './indice.js';

/** The notes of one line's preference: per agreement of the origin in force on `fecha`. */
export function notasDeOrigen(indice: IndiceReglas, tables: Tables, fraccion: string, nico: string, countries: readonly string[], fecha: string): string[] {
  const loaded = new Set(indice.acuerdos.map((a) => a.acuerdo));
  return agreementsOf(tables, 'tlc', countries, fecha).map((acuerdo) => {
    const address = `/api/v1/reglas-origen/${fraccion}${nico}?acuerdo=${encodeURIComponent(acuerdo)}`;
    if (!loaded.has(acuerdo)) {
      return `Regla de origen de ${acuerdo}: los datos cargados no contienen las reglas de origen de este acuerdo; la preferencia exige que la mercancía sea originaria según el acuerdo.`;
    }
    const rules = reglasDeCodigo(indice, `${fraccion}${nico || '00'}`, new Set([acuerdo]));
    if (rules.length === 0) return `Regla de origen de ${acuerdo}: las reglas cargadas de este acuerdo no tienen regla para esta fracción (${address}).`;
    const headings = [...new Set(rules.map((r) => r.encabezado))].join(', ');
    return `Regla de origen de ${acuerdo} que la mercancía debe cumplir para la preferencia: encabezado ${headings} (${address}; evaluable con POST /api/v1/reglas-origen/evaluar).`;
  });
}

/** The answer with each line that has a `tlc` option naming its rules of origin in `notas`. */
export function conNotasDeOrigen(answer: ContribucionesAnswer, indice: IndiceReglas, tables: Tables, countries: readonly string[]): ContribucionesAnswer {
  for (const partida of answer.partidas) {
    if (!partida.opciones.some((o) => o.tratamiento === 'tlc')) continue;
    const notes = notasDeOrigen(indice, tables, partida.fraccion, partida.nico, countries, answer.fecha);
    partida.notas = [...new Set([...partida.notas, ...notes])];
  }
  return answer;
}

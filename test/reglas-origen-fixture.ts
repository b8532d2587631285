/**
 * Real fractions for the rules-of-origin tests, each under rule sets of the shipped files of a
 * different kind (a change of chapter, of heading with an exception, regional value content in
 * lettered alternatives, rules for different goods of one set, wholly obtained, materials of a heading
 * excepted from "any heading"), with preferences for
 * Japan and the United States so that contribuciones has tlc options.
 */
import { recordToRow } from '../src/data/record-row.js';
import { fracciones } from '../src/record-sets/fracciones.js';
import { tlcs } from '../src/record-sets/tlcs.js';
import type { DatasetWriter } from '../src/store/store.js';
import { keepOriginal } from './databases.js';

export const REGLAS_ORIGEN_FRACTIONS = ['01012101', '03044901', '35051001', '48232001', '73181599', '84219901'];

export function fillReglasOrigen(writer: DatasetWriter): void {
  REGLAS_ORIGEN_FRACTIONS.forEach((f, i) =>
    writer.insert(
      fracciones,
      recordToRow(fracciones, {
        SYSID: i + 1,
        FRACCION: f,
        FRACCIONPUNTO: `${f.slice(0, 4)}.${f.slice(4, 6)}.${f.slice(6)}`,
        NICO: '00',
        DESCRIPCION: `Fracción ${f}`,
        ADVIMPOTXT: '10%',
        ADVIMPONUM: '10.00',
        TIPOTASAADVIMPO: 1,
      }),
    ),
  );
  // Preferences for Japan (TIPAT, rules loaded; AAE Japón, none) and for the United States (T-MEC, none loaded).
  [
    { SYSID: 1, FRACCION: '48232001', PAIS: 'JPN', TASATXT: 'Ex.', TASA1NUM: '0.00', ORDEN: 1 },
    { SYSID: 2, FRACCION: '48232001', PAIS: 'USA', TASATXT: 'Ex.', TASA1NUM: '0.00', ORDEN: 2 },
  ].forEach((r) => writer.insert(tlcs, recordToRow(tlcs, r)));
}
keepOriginal('reglas-origen', fillReglasOrigen, import.meta.url);

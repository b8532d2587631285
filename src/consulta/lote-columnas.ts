/**
 * What the page calls each field of a batch's result, by the names of the result columns' table
 * (src/lotes/result-columns.ts, which the page cannot load: it loads only its own modules). A field of
 * the table without a label here, or a label for a field it lacks, fails to compile.
 */
import type { ResultField } from '../lotes/result-columns.js';

export const ETIQUETAS: Readonly<Record<ResultField, string>> = {
  linea: 'Línea',
  referencia: 'Referencia',
  descripcion: 'Descripción',
  extra: 'Otras columnas',
  fraccion: 'Fracción',
  nico: 'NICO',
  estado_fraccion: 'Estado',
  reemplazada_por: 'Reemplazada por',
  candidatas: 'Candidatas',
  coincide: 'Coincide con la descripción',
  igi: 'IGI',
  preferencia: 'Preferencia',
  sin_datos_preferencia: 'Sin datos de preferencia',
  requisitos: 'Requisitos',
  contribuciones: 'Contribuciones',
  revisar: 'Por revisar',
  error: 'Error',
};

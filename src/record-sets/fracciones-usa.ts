// Lines of the Harmonized Tariff Schedule of the United States.
import type { Filter } from './define.js';
import { FRACTION_PARAM, defineRecordSet, fields, int, str } from './define.js';

/** By HTS code or a prefix of one: the first six digits are the HS subheading Mexico shares. */
export const byUsCode: Filter = { param: FRACTION_PARAM, rule: 'us-fraction', field: 'FRACCION_SIN_PUNTO' };

export const fraccionesUsa = defineRecordSet({
  path: 'fracciones-usa',
  schema: 'FraccionesUSAResponse',
  description: 'Lines of the Harmonized Tariff Schedule of the United States.',
  fields: fields({
    CONSECUTIVO: int(),
    FRACCION_SIN_PUNTO: [str(19), '0101210010'],
    FRACCION_CON_PUNTO: [str(19), '0101.21.00.10'],
    FRACCION_MOSTRAR: [str(19), 'as displayed in the HTS'],
    ESPECIFICO: str(4),
    NIVEL: [int(), 'indent'],
    DESCRIPCION: str(5000),
    UNIDADCANTIDAD: [str(50), 'unit of quantity'],
    TARIFA1: [str(250), 'general rate of duty'],
    TLC: [str(5000), 'special rate of duty'],
    TARIFA2: [str(250), 'column 2 rate of duty'],
    NOTAS: str(7998),
  }),
  key: ['CONSECUTIVO'],
  paginated: true,
  filters: [byUsCode],
});

// The special tax on production and services (IEPS) due on import, by fraction.
import { date8, dec, defineRecordSet, fields, int, str, text } from './define.js';

export const ieps = defineRecordSet({
  path: 'ieps',
  schema: 'IEPSResponse',
  description: 'The special tax on production and services (IEPS) due on import, by fraction.',
  fields: fields({
    CONSECUTIVO: int(),
    FRACCION_SIN_PUNTO: [str(10), '22030001'],
    FRACCION_CON_PUNTO: [str(10), '2203.00.01'],
    DESCRIPCION: text(),
    CATEGORIA: [str(100), 'e.g. Cerveza, Bebidas saborizadas'],
    TIPO: [str(19), 'AD VALOREM, CUOTA, MIXTO'],
    TASA: [dec(7, 2), 'percent'],
    CUOTA: [dec(13, 4), 'amount per unit'],
    UNIDAD: str(50),
    FUNDAMENTO: str(1500),
    DOF: date8(),
    NOTAS: text(),
    NICO: str(2),
  }),
  key: ['CONSECUTIVO'],
  filters: [
    {
      param: 'fraccion',
      rule: 'fraction',
      field: 'FRACCION_SIN_PUNTO',
      dottedField: 'FRACCION_CON_PUNTO',
      nicoField: 'NICO',
    },
    { param: 'nico', rule: 'nico', field: 'NICO' },
  ],
  contribuciones: {
    roles: [{ kind: 'excise', type: 'TIPO', rate: 'TASA', quota: 'CUOTA', unit: 'UNIDAD', basis: 'FUNDAMENTO' }],
  },
});

// Estimated prices published by the SHCP: a declared customs value below them requires a guarantee.
import { date8, dec, defineRecordSet, fields, fractionFilters, int, str, text } from './define.js';

export const preciosEstimados2 = defineRecordSet({
  path: 'precios-estimados2',
  schema: 'PreciosEstimados2Response',
  description: 'Estimated prices published by the SHCP: a declared customs value below them requires a guarantee.',
  fields: fields({
    FRACCION: str(10),
    PRODUCTO: str(300),
    DETALLE: text(),
    CLAVEUM: str(2),
    DESCRIPCIONUM: str(50),
    PRECIO: [dec(13, 4), 'estimated price per unit'],
    CLAVEMONEDA: str(3),
    DOF: date8(),
    VIGENCIA: date8(),
    NOTAS: str(499),
    NICO: str(2),
    SYSID: int(),
  }),
  filters: fractionFilters(),
});

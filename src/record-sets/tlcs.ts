// Preferential rates under Mexico's free-trade agreements, by fraction and partner country.
import { date8, dec, defineRecordSet, fields, int, str } from './define.js';

export const tlcs = defineRecordSet({
  path: 'tlcs',
  schema: 'TLCSResponse',
  description: "Preferential rates under Mexico's free-trade agreements, by fraction and partner country.",
  fields: fields({
    FRACCION: str(10),
    PAIS: [str(3), 'partner country key, Anexo 22 apéndice 4'],
    ORDEN: int(),
    TASATXT: str(44),
    TIPOTASA: int(),
    TASA1NUM: dec(7, 2),
    FACTOR1: dec(13, 8),
    TASA2NUM: dec(7, 2),
    FACTOR2: dec(13, 8),
    DOF: date8(),
    NOTAS: str(1000),
    NICO: str(2),
    SYSID: int(),
  }),
  key: ['SYSID', 'FRACCION'],
  country: 'PAIS',
  filters: [
    { param: 'fraccion', rule: 'fraction', field: 'FRACCION', nicoField: 'NICO' },
    { param: 'pais', rule: 'code', field: 'PAIS' },
    { param: 'nico', rule: 'nico', field: 'NICO' },
  ],
  contribuciones: {
    roles: [
      {
        kind: 'preference',
        treatment: 'tlc',
        identifier: 'TL',
        rates: [{ field: 'TASA1NUM' }],
        rateText: 'TASATXT',
        requires: 'certificado_origen',
        law: 'Tasa preferencial del tratado de libre comercio con el país de origen (decreto de aplicación publicado en el DOF)',
      },
    ],
  },
});

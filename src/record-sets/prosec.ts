// Preferential import rates under the Programas de Promoción Sectorial decree; ARTICULO is the article of the decree (4, 5) and SECTOR the sector (I Eléctrica … XXIV).
import { date8, dec, defineRecordSet, fields, fractionFilters, int, str, text } from './define.js';

export const prosec = defineRecordSet({
  path: 'prosec',
  schema: 'ProsecResponse',
  description:
    'Preferential import rates under the Programas de Promoción Sectorial decree; ARTICULO is the article of the decree (4, 5) and SECTOR the sector (I Eléctrica … XXIV).',
  fields: fields({
    FRACCION: str(10),
    ARTICULO: [str(3), 'article of the decree: 4, 5'],
    SECTOR: [str(6), 'sector: I … XXIV'],
    TASATXT: str(19),
    TASANUM: dec(7, 2),
    TIPOTASA: int(),
    DOF: date8(),
    OBSERVACION: text(),
    NICO: str(2),
    SYSID: int(),
  }),
  filters: [...fractionFilters(), { param: 'sector', rule: 'code', field: 'SECTOR' }, { param: 'articulo', rule: 'code', field: 'ARTICULO' }],
  contribuciones: {
    roles: [
      {
        kind: 'preference',
        treatment: 'prosec',
        identifier: 'PS',
        rates: [{ field: 'TASANUM' }],
        rateText: 'TASATXT',
        requires: 'sector_prosec',
        sector: 'SECTOR',
        law: 'Decreto por el que se establecen diversos Programas de Promoción Sectorial (DOF 2 de agosto de 2002), art. 5',
      },
    ],
  },
});

// Non-tariff regulations and restrictions (permits, certificates, conditions) by fraction, direction and country.
import { date8, defineRecordSet, fields, fractionFilters, int, str, text } from './define.js';

export const regulaciones = defineRecordSet({
  path: 'regulaciones',
  schema: 'RegulacionesResponse',
  description: 'Non-tariff regulations and restrictions (permits, certificates, conditions) by fraction, direction and country.',
  fields: fields({
    FRACCION: str(10),
    IMPORTACION: [str(1), 'S/N'],
    EXPORTACION: str(1),
    PERMISO: str(19),
    ACUERDO: str(100),
    CONDICION: text(),
    FUNDAMENTO: text(),
    DOF: date8(),
    FORMATONOM: str(100),
    INSTRUCCIONES: str(100),
    CRITERIO: str(254),
    COMPLEMENTO: str(999),
    CRITERIOESPECIAL: str(2000),
    PAIS: str(3),
    NICO: str(2),
    SYSID: int(),
  }),
  filters: fractionFilters(),
  country: 'PAIS',
  contribuciones: {
    direction: { field: 'IMPORTACION', importValues: ['S'] },
    roles: [{ kind: 'requirement', describe: ['PERMISO', 'CONDICION'], order: 2 }],
  },
});

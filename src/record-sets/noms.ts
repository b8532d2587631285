// Normas Oficiales Mexicanas whose compliance is checked at customs, by fraction.
import { date8, defineRecordSet, fields, fractionFilters, int, str, text } from './define.js';

export const noms = defineRecordSet({
  path: 'noms',
  schema: 'NomsResponse',
  description: 'Normas Oficiales Mexicanas whose compliance is checked at customs, by fraction.',
  fields: fields({
    FRACCION: str(10),
    NOM: [str(50), 'NOM-050-SCFI-2004'],
    DESCRIPCION: text(),
    ACUERDO: str(500),
    ARTICULO: str(50),
    IMPORTACION: str(1),
    EXPORTACION: str(1),
    CONDICION: text(),
    DOF: date8(),
    VIGENCIA: date8(),
    NOTAS: text(),
    NICO: str(2),
    SYSID: int(),
  }),
  filters: fractionFilters(),
  contribuciones: {
    direction: { field: 'IMPORTACION', importValues: ['S'] },
    roles: [{ kind: 'requirement', describe: ['NOM', 'DESCRIPCION'], order: 3 }],
  },
});

// Prior import or export permits (permisos previos) required by the Secretaría de Economía.
import { date8, defineRecordSet, fields, fractionFilters, int, str } from './define.js';

export const requisitoPrevio = defineRecordSet({
  path: 'requisito-previo',
  schema: 'RequisitoPrevioResponse',
  description: 'Prior import or export permits (permisos previos) required by the Secretaría de Economía.',
  fields: fields({
    FRACCION: str(10),
    DESCRIPCION: str(1999),
    OBSERVACION: str(1999),
    DOF: date8(),
    VIGENCIA: date8(),
    PERMISO: str(2),
    NUMEROACUERDO: int(),
    NUMEROCRITERIO: int(),
    NUMEROFORMATO: int(),
    NUMEROINSTRUCCIONES: int(),
    HISTORICO: str(2000),
    NOTA: str(1000),
    NICO: str(2),
    SYSID: int(),
  }),
  filters: fractionFilters(),
  contribuciones: {
    roles: [{ kind: 'requirement', describe: ['PERMISO', 'DESCRIPCION'], order: 1 }],
  },
});

// Goods that may be imported temporarily (IMMEX) only under conditions and time limits, by regime.
import { date8, defineRecordSet, fields, fractionFilters, int, str } from './define.js';

export const reit = defineRecordSet({
  path: 'reit',
  schema: 'REITResponse',
  description: 'Goods that may be imported temporarily (IMMEX) only under conditions and time limits, by regime.',
  fields: fields({
    FRACCION: str(10),
    ARTICULO: str(50),
    FUNDAMENTO: str(1500),
    ACUERDO: str(500),
    PERMISO: [str(2), 'permit key, Anexo 22 apéndice 9'],
    DOF: date8(),
    DOCUMENTO: str(200),
    TEMPORALIDAD: [int(), 'months'],
    TEMPORALIDADSERVICIO: int(),
    TEMPORALIDADCERTIFICADA: int(),
    NICO: str(2),
    SYSID: int(),
  }),
  filters: fractionFilters(),
});

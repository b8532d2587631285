// A per-fraction summary: where it sits in the nomenclature and its main duties and taxes.
import { date8, dec, defineRecordSet, fields, fractionFilters, int, str, text } from './define.js';

export const informacionGeneral = defineRecordSet({
  path: 'informacion-general',
  schema: 'InformacionGeneralResponse',
  description: 'A per-fraction summary: where it sits in the nomenclature and its main duties and taxes.',
  fields: fields({
    FRACCION: str(10),
    SECCION: [str(5), 'roman numeral'],
    DESCRIPCIONSECCION: text(),
    CAPITULO: str(2),
    DESCRIPCIONCAPITULO: text(),
    PARTIDA: str(4),
    DESCRIPCIONPARTIDA: text(),
    SUBPARTIDA: str(6),
    DESCRIPCIONSUBPARTIDA: text(),
    DESCRIPCION: [text(), "the fraction's own text"],
    DESCRIPCIONNICO: text(),
    UMCLAVE: str(2),
    UMABREVIACION: str(4),
    ADVIMPOTXT: str(19),
    ADVEXPOTXT: str(19),
    TASAIVA: dec(7, 2),
    APLICAIEPS: str(1),
    APLICAISAN: str(1),
    DOF: date8(),
    NOTAS: text(),
    NICO: str(2),
    SYSID: int(),
  }),
  filters: fractionFilters(),
});

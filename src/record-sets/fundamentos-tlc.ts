// The legal instrument (decree, agreement, article) that grants each free-trade-agreement preference.
import { date8, defineRecordSet, fields, fractionFilters, int, str } from './define.js';

export const fundamentosTlc = defineRecordSet({
  path: 'fundamentos-tlc',
  schema: 'FundamentosTLCResponse',
  description:
    'The legal instrument (decree, agreement, article) that grants each free-trade-agreement preference. FUNDAMENTO2 is the agreement key; TIPAT is the Tratado Integral y Progresista de Asociación Transpacífico (CPTPP), whose preferences /fundamentos-tlc/tipat lists.',
  fields: fields({
    FRACCION: str(10),
    PAIS: str(3),
    TLC: [str(49), 'agreement name'],
    FUNDAMENTO: [str(1500), 'legal-basis text'],
    FUNDAMENTO2: [str(19), 'agreement key: TIPAT, TMEC, TLCUEM, …'],
    TASATXT: str(44),
    DOF: date8(),
    NOTAS: str(1000),
    NICO: str(2),
    SYSID: int(),
  }),
  fixedSearches: [
    {
      segment: 'tipat',
      summary: 'Search TIPAT (CPTPP) legal grounds',
      where: { FUNDAMENTO2: 'TIPAT' },
    },
  ],
  filters: fractionFilters(),
  country: 'PAIS',
});

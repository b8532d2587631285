// Fractions named in the annexes of the general foreign-trade rules (RGCE), e.g. Anexo 10 sectoral importer registry.
import { date8, defineRecordSet, fields, fractionFilters, int, str } from './define.js';

export const rcg2 = defineRecordSet({
  path: 'rcg2',
  schema: 'RCG2Response',
  description:
    'Fractions named in the annexes of the Reglas Generales de Comercio Exterior (e.g. Anexo 10 sectoral importer registry, Anexo 21 authorised customs offices).',
  fields: fields({
    FRACCION: str(19),
    ANEXO: str(19),
    SECTOR: str(7999),
    REGIMEN: str(1999),
    CONDICION: str(7999),
    ADUANAS: str(999),
    DOF: date8(),
    ARCHIVOCRITERIO: str(999),
    TIPO: str(4),
    IMPO: [int(), '1 applies to imports'],
    EXPO: [int(), '1 applies to exports'],
    WEB_DOCUMENTO_ID: int(),
    NICO: str(2),
    SYSID: int(),
  }),
  filters: fractionFilters(),
});

// Preferences granted under ALADI agreements (Montevideo Treaty 1980: regional, partial-scope and economic-complementation agreements), by fraction, agreement and country.
import { date8, dec, defineRecordSet, fields, fractionFilters, int, str, text } from './define.js';

export const aladi2 = defineRecordSet({
  path: 'aladi2',
  schema: 'Aladi2Response',
  description:
    'Preferences granted under ALADI agreements (Montevideo Treaty 1980: regional, partial-scope and economic-complementation agreements), by fraction, agreement and country.',
  fields: fields({
    FRACCION: str(10),
    ACUERDO: [str(49), 'agreement, e.g. ACE No. 66, AR.PAR 4'],
    PAIS: [str(3), 'country key, Anexo 22 apéndice 4'],
    TASATXT: [str(19), 'rate or preference as written, e.g. Ex., 28%'],
    TASANUM: dec(7, 2),
    TASACALCULADA: [str(19), 'resulting rate after the preference margin'],
    TIPOTASA: [int(), 'rate type, Anexo 22 apéndice 18'],
    DOF: date8(),
    NOTAS: str(499),
    OBSERVACIONES: text(),
    NICO: str(2),
    SYSID: int(),
  }),
  filters: fractionFilters(),
  country: 'PAIS',
  contribuciones: {
    roles: [
      {
        kind: 'preference',
        treatment: 'aladi',
        identifier: 'AL',
        rates: [{ field: 'TASACALCULADA', percentText: true }, { field: 'TASANUM' }],
        rateText: 'TASATXT',
        requires: 'certificado_origen',
        agreement: 'ACUERDO',
        law: 'Tratado de Montevideo 1980 (ALADI), acuerdo indicado',
      },
    ],
  },
});

// Import and export quotas (cupos, tariff-rate quotas) assigned by certificate of the Secretaría de Economía, with the in-quota rate.
import { date8, dec, defineRecordSet, fields, fractionFilters, int, str, text } from './define.js';

export const cupos = defineRecordSet({
  path: 'cupos',
  schema: 'CuposResponse',
  description: 'Import and export quotas (cupos, tariff-rate quotas) assigned by certificate of the Secretaría de Economía, with the in-quota rate.',
  fields: fields({
    FRACCION: str(10),
    PRODUCTO: str(300),
    PAIS: str(3),
    ACUERDO: [str(49), 'agreement or decree that opens the quota'],
    TIPOOPERACION: [str(1), 'I import, E export'],
    CANTIDADCUPO: dec(15, 3),
    CLAVEUM: str(2),
    TASATXT: [str(19), 'in-quota rate as written'],
    TASANUM: dec(7, 2),
    TIPOTASA: int(),
    PERIODO: [str(19), 'e.g. 2026, 2026-S1'],
    FECHAINICIO: date8(),
    FECHAFIN: date8(),
    DOF: date8(),
    NOTAS: str(499),
    OBSERVACIONES: text(),
    NICO: str(2),
    SYSID: int(),
  }),
  filters: fractionFilters(),
  country: 'PAIS',
  contribuciones: {
    validity: ['FECHAINICIO', 'FECHAFIN'],
    direction: { field: 'TIPOOPERACION', importValues: ['I'] },
    roles: [
      {
        kind: 'preference',
        treatment: 'cupo',
        identifier: 'DC',
        rates: [{ field: 'TASANUM' }],
        rateText: 'TASATXT',
        requires: null,
        agreement: 'ACUERDO',
        law: 'Arancel-cupo, Ley de Comercio Exterior arts. 13 y 23',
      },
      { kind: 'requirement', describe: ['PRODUCTO', 'ACUERDO', 'PERIODO', 'OBSERVACIONES'], order: 4 },
    ],
  },
});

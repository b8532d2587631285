// Antidumping and countervailing duties (cuotas compensatorias) set by resolutions of the Secretaría de Economía published in the DOF, by fraction, product, origin country and exporter.
import { date8, dec, defineRecordSet, fields, fractionFilters, int, str, text } from './define.js';

export const cuotas2 = defineRecordSet({
  path: 'cuotas2',
  schema: 'Cuotas2Response',
  description:
    'Antidumping and countervailing duties (cuotas compensatorias) set by resolutions of the Secretaría de Economía published in the DOF, by fraction, product, origin country and exporter.',
  fields: fields({
    FRACCION: str(10),
    PRODUCTO: str(300),
    PAIS: str(3),
    DOF: date8(),
    DOF2: [str(149), 'later publications that amend the duty'],
    EMPRESA: [str(100), 'exporter the duty applies to, or Las demás'],
    INCOTERM: str(10),
    DOLARES: [dec(13, 4), 'specific duty, in CLAVEMONEDA per CLAVEUM'],
    CLAVEMONEDA: str(3),
    CLAVEUM: str(2),
    PORCENTAJE: [dec(7, 2), 'ad-valorem duty'],
    DESCRIPCIONDOLARES: str(50),
    NOTAS: text(),
    ESTATUS: [str(19), 'e.g. VIGENTE, PROVISIONAL, DEFINITIVA'],
    NUMERORESOLUCION: int(),
    RESOLUCION: str(150),
    TIPOCUOTA: [str(19), 'provisional / definitive'],
    PRECIOREFERENCIA: dec(13, 4),
    FECHAINICIO: date8(),
    FECHAFIN: date8(),
    OBSERVACIONES: text(),
    NICO: str(2),
    SYSID: int(),
  }),
  filters: fractionFilters(),
  country: 'PAIS',
  contribuciones: {
    validity: ['FECHAINICIO', 'FECHAFIN'],
    roles: [{ kind: 'compensatory', percent: 'PORCENTAJE', amount: 'DOLARES', currency: 'CLAVEMONEDA', exporter: 'EMPRESA', resolution: 'RESOLUCION' }],
  },
});
